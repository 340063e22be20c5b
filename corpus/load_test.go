package corpus

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ariadne-graphrag/ariadne"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    ariadne.Document
		wantErr string
	}{
		{
			name: "full front matter",
			raw:  "---\nid: projects/route\ntitle: Route planner\ntype: Project\nlang: en\nupdated: 2024-05-29\nacl: [all, delivery]\nversion: 2\naliases: [RP]\n---\n# Route planner\n\nText.\n",
			want: ariadne.Document{ID: "projects/route", Title: "Route planner", Type: "project", Lang: "en",
				Updated: "2024-05-29", ACL: []string{"all", "delivery"}, Version: 2, Aliases: []string{"RP"},
				Body: "# Route planner\n\nText.\n"},
		},
		{
			name: "defaults: acl all, title from first heading, CRLF and BOM",
			raw:  "\ufeff---\r\nid: a\r\n---\r\n\r\n## Заголовок\r\nТекст\r\n",
			want: ariadne.Document{ID: "a", Title: "Заголовок", ACL: []string{"all"}, Body: "\n## Заголовок\nТекст\n"},
		},
		{
			name: "acl as a scalar",
			raw:  "---\nid: a\ntitle: T\nacl: management\n---\nbody\n",
			want: ariadne.Document{ID: "a", Title: "T", ACL: []string{"management"}, Body: "body\n"},
		},
		{name: "no front matter", raw: "# Title\nbody\n", wantErr: "no YAML front matter"},
		{name: "unterminated front matter", raw: "---\nid: a\nbody\n", wantErr: "no YAML front matter"},
		{name: "bad yaml", raw: "---\nid: [a\n---\nbody\n", wantErr: "front matter:"},
		{name: "missing id", raw: "---\ntitle: T\n---\nbody\n", wantErr: "no id"},
		{name: "empty body", raw: "---\nid: a\n---\n  \n\n", wantErr: "empty body"},
		{name: "empty file", raw: " \n\n", wantErr: "empty file"},
		{name: "NUL in the body", raw: "---\nid: a\n---\nText\x00more.\n", wantErr: "NUL character"},
		{name: "invalid utf-8", raw: "---\nid: a\n---\nbad \xff byte\n", wantErr: "invalid UTF-8"},
		{name: "bad date", raw: "---\nid: a\nupdated: 29.05.2024\n---\nbody\n", wantErr: "not an ISO date"},
		{name: "bad version", raw: "---\nid: a\nversion: two\n---\nbody\n", wantErr: "not a non-negative integer"},
		{name: "id with #", raw: "---\nid: a#b\n---\nbody\n", wantErr: "contains '#'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse("x.md", []byte(tc.raw))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ariadne.ErrInvalid) {
					t.Fatalf("err = %v, want ErrInvalid containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			tc.want.Path = "x.md"
			if got.ID != tc.want.ID || got.Title != tc.want.Title || got.Type != tc.want.Type ||
				got.Lang != tc.want.Lang || got.Updated != tc.want.Updated || got.Version != tc.want.Version ||
				!slices.Equal(got.ACL, tc.want.ACL) || !slices.Equal(got.Aliases, tc.want.Aliases) ||
				got.Body != tc.want.Body || got.Path != tc.want.Path {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestParseFieldsACL: how the front matter gave acl — absent, null, an empty list, a list, one
// value — is told apart (the API refuses the single value, Parse takes it), and an acl that is
// given but names no group, or a blank one, is refused by Parse as by the API: it would make the
// document public.
func TestParseFieldsACL(t *testing.T) {
	for _, tc := range []struct {
		name, acl string
		want      []string // nil: absent
		scalar    bool
		parsed    []string // Document.ACL after Parse
		err       string   // Parse's error, when it refuses
	}{
		{"absent", "", nil, false, []string{"all"}, ""},
		{"null", "acl:\n", nil, false, []string{"all"}, ""},
		{"tilde", "acl: ~\n", []string{"~"}, true, []string{"~"}, ""}, // Parse keeps its old reading: a group "~"
		{"empty list", "acl: []\n", []string{}, false, nil, "acl is an empty list; leave it out for the default, [all], or list the groups that may read the document"},
		{"list", "acl: [management, sales]\n", []string{"management", "sales"}, false, []string{"management", "sales"}, ""},
		{"block list", "acl:\n  - management\n", []string{"management"}, false, []string{"management"}, ""},
		{"blank in a list", "acl: [\"\", sales]\n", []string{"", "sales"}, false, nil, "acl has a blank group name (entry 1 of 2)"},
		{"one value", "acl: management\n", []string{"management"}, true, []string{"management"}, ""},
		{"an empty string", "acl: \"\"\n", nil, true, nil, "acl is an empty value; leave it out for the default, [all]"},
	} {
		raw := []byte("---\nid: a\n" + tc.acl + "---\nbody\n")
		f, err := ParseFields(raw)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if (f.ACL == nil) != (tc.want == nil) || !slices.Equal(f.ACL, tc.want) || f.ACLScalar != tc.scalar {
			t.Errorf("%s: ACL %#v scalar %v, want %#v %v", tc.name, f.ACL, f.ACLScalar, tc.want, tc.scalar)
		}
		doc, err := Parse("x.md", raw)
		if tc.err != "" {
			if err == nil || !errors.Is(err, ariadne.ErrInvalid) || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%s: Parse = acl %v, %v; want the error %q", tc.name, doc.ACL, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(doc.ACL, tc.parsed) {
			t.Errorf("%s: Parse ACL %v (%v), want %v", tc.name, doc.ACL, err, tc.parsed)
		}
	}
}

func TestLoadReportsAndSkipsBadDocuments(t *testing.T) {
	fsys := fstest.MapFS{
		"a/one.md":        {Data: []byte("---\nid: one\n---\nbody one\n")},
		"a/two.txt":       {Data: []byte("---\nid: two\n---\nbody two\n")},
		"b/dup.md":        {Data: []byte("---\nid: one\n---\nanother body\n")},
		"b/empty.md":      {Data: []byte("---\nid: empty\n---\n")},
		"b/noid.markdown": {Data: []byte("---\ntitle: x\n---\nbody\n")},
		"b/public.md":     {Data: []byte("---\nid: public\nacl: []\n---\nbody\n")},
		"b/quote.md":      {Data: []byte("---\nid: quote\ntitle: \"unclosed\n---\nbody\n")},
		"b/image.png":     {Data: []byte{0x89, 'P', 'N', 'G'}},
		".git/HEAD.md":    {Data: []byte("---\nid: hidden\n---\nbody\n")},
	}
	docs, problems, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	if !slices.Equal(ids, []string{"one", "two"}) {
		t.Errorf("loaded ids %v, want [one two]", ids)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.Error()+" [id "+p.ID+"]")
	}
	// The id is known wherever the front matter could be read (a sync keeps that stored
	// document); an unclosed quote leaves none.
	want := []string{
		`b/dup.md: duplicate id "one" (first in a/one.md) [id one]`,
		"b/empty.md: empty body [id empty]",
		"b/noid.markdown: front matter has no id [id ]",
		"b/public.md: acl is an empty list; leave it out for the default, [all], or list the groups that may read the document [id public]",
		"b/quote.md: front matter: line 3: found unexpected end of stream (an unclosed quote or bracket?) [id ]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestParseRefusesOddIdsAndLanguages: an id too long for a key, one with empty, '.' or '..' parts
// or a control character, a language Ariadne does not read and a version past 2⁵³−1 are refused
// with what to write instead (security audits: they were accepted silently; the version was then
// refused by Weaviate after Neo4j had taken the document).
func TestParseRefusesOddIdsAndLanguages(t *testing.T) {
	for _, tc := range []struct{ front, want string }{
		{"id: x/../../y", `id "x/../../y" has an empty, '.' or '..' part between slashes`},
		{"id: /clients/acme", `id "/clients/acme" has an empty, '.' or '..' part`},
		{"id: " + strings.Repeat("a", 257), "id is 257 characters long; at most 256"},
		{"id: notes/a\nlang: de", `lang "de": Ariadne reads ru and en; leave lang out to have it detected`},
		{`id: "notes/ctl\u0001"`, `id "notes/ctl\x01" contains '#' or a control character`},
		{"id: notes/a\nversion: 9223372036854775807", "version: 9223372036854775807 is larger than 9007199254740991"},
	} {
		_, err := Parse("x.md", []byte("---\n"+tc.front+"\n---\nSome text.\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ariadne.ErrInvalid) {
			t.Errorf("%q: error %v, want one containing %q", tc.front, err, tc.want)
		}
	}
	if _, err := Parse("x.md", []byte("---\nid: clients/acme-2\nlang: EN\nversion: 9007199254740991\n---\nSome text.\n")); err != nil {
		t.Errorf("a plain id and lang EN: %v", err)
	}
}
