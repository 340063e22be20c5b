package corpus

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne"
)

// FuzzParse feeds arbitrary bytes to Parse (front matter + body) and checks its contract:
//
//   - it never panics;
//   - it returns either a document or an error wrapping ariadne.ErrInvalid, never both;
//   - invalid UTF-8 in is an error; valid UTF-8 in gives a document whose every string field is
//     valid UTF-8;
//   - the document's Body is exactly the bytes after the closing "---" line (after the BOM is
//     dropped and CRLF turned into LF, which Parse documents), found here by an independent
//     line scan;
//   - the documented field rules hold: a trimmed id without '#', tab or newline; a non-blank
//     body; an ISO date or ""; a non-negative version; a non-empty ACL of trimmed, distinct
//     groups; a non-empty title.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"---\nid: projects/route\ntitle: Route planner\ntype: Project\nlang: en\nupdated: 2024-05-29\nacl: [all, delivery]\nversion: 2\naliases: [RP]\n---\n# Route planner\n\nText.\n",
		"\ufeff---\r\nid: a\r\n---\r\n\r\n## Заголовок\r\nТекст\r\n",
		"---\nid: a\ntitle: T\nacl: management\n---\nbody\n",
		"---\nid: a\n---  \t\nbody without final newline",
		"---\nid: a\n---",
		"---\nid: a\n---\n---\nsecond fence is body\n",
		"---\n---\nbody\n",
		"# Title\nbody\n",
		"---\nid: [a\n---\nbody\n",
		"---\nid: a\nupdated: 2024-05-29T10:00:00Z\nversion: 0\n---\nbody\n",
		"---\nid: a\nupdated: [2024]\nacl: {a: b}\nversion: -1\n---\nbody\n",
		"---\nid: !!binary /w==\n---\nbody\n",
		"---\nid: a\ntitle: !!binary 0J/RgNC40LLQtdGC\nacl: [!!binary /w==]\n---\nbody\n",
		"---\nid: &x a\ntitle: *x\n---\nbody\n",
		"---\nid: a\n---\nbad \xff byte\n",
		"---\r\nid: a\r\n---\r\r\nbody\r\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc, err := Parse("fuzz.md", raw)
		if err != nil {
			if !errors.Is(err, ariadne.ErrInvalid) {
				t.Fatalf("error %v does not wrap ariadne.ErrInvalid", err)
			}
			if doc.ID != "" || doc.Body != "" || doc.Path != "" {
				t.Fatalf("both an error (%v) and a document (%+v)", err, doc)
			}
			return
		}
		if !utf8.Valid(raw) {
			t.Fatalf("invalid UTF-8 input accepted: %+v", doc)
		}
		checkUTF8(t, doc)

		wantBody, ok := bodyAfterFrontMatter(raw)
		if !ok {
			t.Fatalf("document parsed from input without a front matter block: %q", raw)
		}
		if doc.Body != wantBody {
			t.Fatalf("Body = %q, want the bytes after the front matter %q", doc.Body, wantBody)
		}
		if !strings.Contains(string(raw), "\r\n") && !strings.HasPrefix(string(raw), "\ufeff") &&
			!strings.HasSuffix(string(raw), doc.Body) {
			t.Fatalf("Body %q is not a suffix of the input", doc.Body)
		}

		if doc.ID == "" || doc.ID != strings.TrimSpace(doc.ID) || strings.ContainsAny(doc.ID, "#\n\t") {
			t.Fatalf("bad id %q", doc.ID)
		}
		if strings.TrimSpace(doc.Body) == "" {
			t.Fatalf("blank body accepted")
		}
		if doc.Title == "" {
			t.Fatalf("empty title")
		}
		if doc.Updated != "" {
			if _, err := time.Parse("2006-01-02", doc.Updated); err != nil {
				t.Fatalf("Updated %q is not an ISO date", doc.Updated)
			}
		}
		if doc.Version < 0 {
			t.Fatalf("negative version %d", doc.Version)
		}
		if len(doc.ACL) == 0 {
			t.Fatalf("empty ACL")
		}
		seen := map[string]bool{}
		for _, g := range doc.ACL {
			if g == "" || g != strings.TrimSpace(g) || seen[g] {
				t.Fatalf("ACL %q: empty, untrimmed or repeated group %q", doc.ACL, g)
			}
			seen[g] = true
		}
		if doc.Path != "fuzz.md" {
			t.Fatalf("Path = %q", doc.Path)
		}
	})
}

// bodyAfterFrontMatter finds the body the way the format is described, independently of
// splitFrontMatter: drop a leading BOM, turn CRLF into LF, require a first line "---", then the
// body starts after the next line that is "---" (trailing blanks allowed).
func bodyAfterFrontMatter(raw []byte) (string, bool) {
	text := strings.ReplaceAll(strings.TrimPrefix(string(raw), "\ufeff"), "\r\n", "\n")
	lines := strings.SplitAfter(text, "\n")
	if len(lines) == 0 || lines[0] != "---\n" {
		return "", false
	}
	off := len(lines[0])
	for _, l := range lines[1:] {
		off += len(l)
		if strings.TrimRight(strings.TrimSuffix(l, "\n"), " \t") == "---" {
			return text[off:], true
		}
	}
	return "", false
}

func checkUTF8(t *testing.T, doc ariadne.Document) {
	t.Helper()
	fields := map[string]string{"id": doc.ID, "title": doc.Title, "type": doc.Type, "lang": doc.Lang,
		"updated": doc.Updated, "body": doc.Body}
	for i, a := range doc.Aliases {
		fields["alias "+string(rune('0'+i%10))] = a
	}
	for i, g := range doc.ACL {
		fields["acl "+string(rune('0'+i%10))] = g
	}
	for name, v := range fields {
		if !utf8.ValidString(v) {
			t.Fatalf("valid UTF-8 in, invalid UTF-8 out in %s: %q", name, v)
		}
	}
}
