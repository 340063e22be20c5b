package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/ariadne-graphrag/ariadne"
)

// isSource reports whether a file name is a document Load reads: *.md, *.markdown or *.txt, not
// hidden.
func isSource(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".txt":
		return !strings.HasPrefix(path.Base(name), ".")
	}
	return false
}

// Problem is a document that was skipped, with the reason.
type Problem struct {
	Path string // path inside the corpus folder
	// ID is the id its front matter gives, when the front matter could be read ("" otherwise):
	// a sync keeps the stored document of that id, as the one stored from Path.
	ID     string
	Reason string
}

func (p Problem) Error() string { return p.Path + ": " + p.Reason }

// frontMatter is the YAML header of a document. Unknown keys are ignored.
type frontMatter struct {
	ID      string    `yaml:"id"`
	Title   string    `yaml:"title"`
	Type    string    `yaml:"type"`
	Lang    string    `yaml:"lang"`
	Updated yaml.Node `yaml:"updated"`
	ACL     yaml.Node `yaml:"acl"`
	Version yaml.Node `yaml:"version"`
	Aliases []string  `yaml:"aliases"`
	Source  string    `yaml:"source"`
}

// Load reads every document under fsys (recursively; see isSource; hidden folders are skipped)
// and returns the valid ones, sorted by path, plus one Problem per skipped file. Duplicate ids are
// problems for every file after the first. The error is non-nil only when the folder itself cannot
// be walked.
func Load(fsys fs.FS) ([]ariadne.Document, []Problem, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if isSource(p) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("corpus: walk: %w", err)
	}
	slices.Sort(paths)
	var docs []ariadne.Document
	var problems []Problem
	seen := map[string]string{}
	for _, p := range paths {
		raw, err := fs.ReadFile(fsys, p)
		if err != nil {
			problems = append(problems, Problem{Path: p, Reason: err.Error()})
			continue
		}
		f, err := ParseFields(raw)
		if err != nil {
			problems = append(problems, Problem{Path: p, Reason: err.Error()})
			continue
		}
		doc, err := fromFile(p, f)
		if err != nil {
			problems = append(problems, Problem{Path: p, ID: strings.TrimSpace(f.ID), Reason: err.Error()})
			continue
		}
		if first, dup := seen[doc.ID]; dup {
			problems = append(problems, Problem{Path: p, ID: doc.ID, Reason: fmt.Sprintf("duplicate id %q (first in %s)", doc.ID, first)})
			continue
		}
		seen[doc.ID] = p
		docs = append(docs, doc)
	}
	return docs, problems, nil
}

// Parse parses one document: a front matter block between two "---" lines, then the body.
// The error wraps ariadne.ErrInvalid and says what is wrong. It is ParseFields, then FromFields;
// "acl: \"\"" (an empty value) is refused too (FromFields refuses an empty list).
func Parse(name string, raw []byte) (ariadne.Document, error) {
	f, err := ParseFields(raw)
	if err != nil {
		return ariadne.Document{}, err
	}
	return fromFile(name, f)
}

// fromFile is FromFields for the fields of a file: an acl given as an empty value ("acl: \"\"")
// would make the document public, as an empty list would; both are refused.
func fromFile(name string, f Fields) (ariadne.Document, error) {
	if f.ACLScalar && f.ACL == nil {
		return ariadne.Document{}, ariadne.Messagef(ariadne.ErrInvalid, "acl is an empty value; %s", aclRemedy)
	}
	return FromFields(name, f)
}

// aclRemedy is what the messages of an empty acl tell the writer to do.
var aclRemedy = fmt.Sprintf("leave it out for the default, [%s], or list the groups that may read the document", ariadne.PublicGroup)

// CheckACL applies the acl rule every writer shares (a file of a synced folder, POST
// /v1/documents) to an acl as given — nil is the field left out, which means the default,
// [ariadne.PublicGroup]: a given list must name at least one group and no blank one, since
// either mistake would otherwise make the document readable by everyone. The error wraps
// ariadne.ErrInvalid and says what is wrong.
func CheckACL(acl []string) error {
	if acl != nil && len(acl) == 0 {
		return ariadne.Messagef(ariadne.ErrInvalid, "acl is an empty list; %s", aclRemedy)
	}
	for i, g := range acl {
		if strings.TrimSpace(g) == "" {
			return ariadne.Messagef(ariadne.ErrInvalid, "acl has a blank group name (entry %d of %d)", i+1, len(acl))
		}
	}
	return nil
}

// ParseFields reads the front matter fields and the body of one document, checking what the
// YAML says (dates, the acl's shape, the version) but not the fields' values (FromFields).
// Fields.ACL is nil when the front matter has no acl (or a null one) and an empty, non-nil list
// for "acl: []"; Fields.ACLScalar reports "acl: management", one value where a list belongs (Parse
// takes it as a list of that one group; the API refuses it). The error wraps ariadne.ErrInvalid
// and says what is wrong.
func ParseFields(raw []byte) (Fields, error) {
	bad := func(format string, args ...any) (Fields, error) {
		return Fields{}, ariadne.Messagef(ariadne.ErrInvalid, format, args...)
	}
	if !utf8.Valid(raw) {
		return bad("invalid UTF-8")
	}
	raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
	if len(bytes.TrimSpace(raw)) == 0 {
		return bad("empty file")
	}
	text := strings.ReplaceAll(string(raw), "\r\n", "\n")
	header, body, ok := splitFrontMatter(text)
	if !ok {
		return bad("no YAML front matter (the file must start with a line '---' and the block end with '---')")
	}
	var fm frontMatter
	if err := yaml.Unmarshal([]byte(header), &fm); err != nil {
		return bad("front matter: %v", yamlReason(err))
	}
	f := Fields{ID: fm.ID, Title: fm.Title, Type: fm.Type, Lang: fm.Lang, Aliases: fm.Aliases, Source: fm.Source, Body: body}
	var err error
	if f.Updated, err = parseDate(fm.Updated); err != nil {
		return bad("updated: %v", err)
	}
	if f.ACL, err = parseACL(fm.ACL); err != nil {
		return bad("acl: %v", err)
	}
	// "acl:" with nothing after it is absent; any other scalar — a name, "", ~ or null — is one
	// value where a list belongs.
	f.ACLScalar = fm.ACL.Kind == yaml.ScalarNode && (fm.ACL.Value != "" || fm.ACL.ShortTag() != "!!null")
	if f.Version, err = parseVersion(fm.Version); err != nil {
		return bad("version: %v", err)
	}
	return f, nil
}

// Fields are a document's front matter fields and its body, as the API receives them in JSON.
type Fields struct {
	ID, Title, Type, Lang string
	Updated               string // an ISO date (2024-05-29) or an RFC 3339 time; "" when absent
	ACL                   []string
	// ACLScalar: the front matter gave acl as one value ("acl: management"), not a list
	// (ParseFields; FromFields does not look at it).
	ACLScalar bool
	Version   int
	Aliases   []string
	// Source is the front matter's "source" (the API reads it as the JSON field; a synced folder's
	// files belong to the sync's --source whatever they say).
	Source string
	Body   string
}

// MaxIDRunes bounds a document id: ids are keys in both stores and parts of URLs.
const MaxIDRunes = 256

// MaxVersion is the largest document version: 2⁵³−1, the largest integer the chunk index
// (Weaviate's int property, read through JSON numbers) stores exactly. A larger one was refused
// by Weaviate after the graph had taken the document (security audit, stop 58).
const MaxVersion = 1<<53 - 1

// FromFields validates a document given field by field exactly as Parse validates a file (it is
// the second half of Parse; CheckACL included) and returns it; name is for messages. The error
// wraps ariadne.ErrInvalid and says what is wrong.
func FromFields(name string, f Fields) (ariadne.Document, error) {
	bad := func(format string, args ...any) (ariadne.Document, error) {
		return ariadne.Document{}, ariadne.Messagef(ariadne.ErrInvalid, format, args...)
	}
	doc := ariadne.Document{
		ID:      strings.TrimSpace(f.ID),
		Title:   strings.TrimSpace(f.Title),
		Type:    strings.ToLower(strings.TrimSpace(f.Type)),
		Lang:    strings.ToLower(strings.TrimSpace(f.Lang)),
		Aliases: f.Aliases,
		Body:    f.Body,
		Path:    name,
	}
	if doc.ID == "" {
		return bad("front matter has no id")
	}
	if strings.ContainsRune(doc.ID, '#') || strings.ContainsFunc(doc.ID, unicode.IsControl) {
		return bad("id %q contains '#' or a control character (a tab, a newline…)", doc.ID)
	}
	if n := utf8.RuneCountInString(doc.ID); n > MaxIDRunes {
		return bad("id is %d characters long; at most %d", n, MaxIDRunes)
	}
	if slices.ContainsFunc(strings.Split(doc.ID, "/"), func(seg string) bool { return seg == "" || seg == "." || seg == ".." }) {
		return bad("id %q has an empty, '.' or '..' part between slashes; write it as a path inside the corpus, such as clients/acme", doc.ID)
	}
	if doc.Lang != "" && doc.Lang != "ru" && doc.Lang != "en" {
		return bad("lang %q: Ariadne reads ru and en; leave lang out to have it detected", doc.Lang)
	}
	if !utf8.ValidString(doc.Body) {
		return bad("invalid UTF-8")
	}
	if strings.ContainsRune(doc.Body, 0) || strings.ContainsRune(doc.Title, 0) || strings.ContainsRune(doc.ID, 0) {
		return bad("the document contains a NUL character (a binary file?)") // as a question may not
	}
	if strings.TrimSpace(doc.Body) == "" {
		return bad("empty body")
	}
	var err error
	if doc.Updated, err = isoDate(f.Updated); err != nil {
		return bad("updated: %v", err)
	}
	if f.Version < 0 {
		return bad("version: %d is not a non-negative integer", f.Version)
	}
	if f.Version > MaxVersion {
		return bad("version: %d is larger than %d, the largest the chunk index stores exactly", f.Version, MaxVersion)
	}
	doc.Version = f.Version
	if err := CheckACL(f.ACL); err != nil {
		return ariadne.Document{}, err
	}
	doc.ACL = groupList(f.ACL)
	// A file is valid UTF-8, but a YAML !!binary value decodes to arbitrary bytes (and JSON
	// fields are the caller's).
	if field, ok := invalidUTF8Field(doc); ok {
		return bad("%s is not valid UTF-8 text (a !!binary value?)", field)
	}
	if doc.Title == "" {
		doc.Title = firstHeading(doc.Body)
	}
	if doc.Title == "" {
		doc.Title = doc.ID
	}
	return doc, nil
}

// invalidUTF8Field names the first front matter field of doc that is not valid UTF-8.
func invalidUTF8Field(doc ariadne.Document) (string, bool) {
	for _, f := range []struct {
		name   string
		values []string
	}{{"id", []string{doc.ID}}, {"title", []string{doc.Title}}, {"type", []string{doc.Type}},
		{"lang", []string{doc.Lang}}, {"acl", doc.ACL}, {"aliases", doc.Aliases}} {
		for _, v := range f.values {
			if !utf8.ValidString(v) {
				return f.name, true
			}
		}
	}
	return "", false
}

// splitFrontMatter returns the YAML between the opening and closing "---" lines and the body after.
func splitFrontMatter(text string) (header, body string, ok bool) {
	if !strings.HasPrefix(text, "---\n") {
		return "", "", false
	}
	rest := text[len("---\n"):]
	for off := 0; off <= len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if end >= 0 {
			line = rest[off : off+end]
		}
		if strings.TrimRight(line, " \t") == "---" {
			header = rest[:off]
			if end >= 0 {
				body = rest[off+end+1:]
			}
			return header, body, true
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return "", "", false
}

// yamlLine is a line number in a YAML error ("line 2: …").
var yamlLine = regexp.MustCompile(`\bline (\d+)\b`)

// yamlReason is a YAML error of the front matter in the file's words: its line numbers count the
// file's lines (the front matter starts on line 2, after "---"), and a block that ends inside a
// quoted or bracketed value says so.
func yamlReason(err error) string {
	var msg string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msg = strings.Join(te.Errors, "; ")
	} else {
		msg = strings.TrimPrefix(err.Error(), "yaml: ")
	}
	msg = yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(m, "line "))
		if err != nil {
			return m
		}
		return "line " + strconv.Itoa(n+1)
	})
	if strings.Contains(msg, "unexpected end of stream") || strings.Contains(msg, "did not find expected") {
		msg += " (an unclosed quote or bracket?)"
	}
	return msg
}

func parseDate(n yaml.Node) (string, error) {
	if n.Kind == 0 || n.Value == "" {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("want an ISO date like 2024-05-29")
	}
	return isoDate(n.Value)
}

// isoDate normalizes an ISO date or RFC 3339 time to 2006-01-02; "" stays "".
func isoDate(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.Format("2006-01-02"), nil
		}
	}
	return "", fmt.Errorf("%q is not an ISO date like 2024-05-29", v)
}

func parseACL(n yaml.Node) ([]string, error) {
	var groups []string
	switch n.Kind {
	case 0:
	case yaml.ScalarNode:
		if n.Value != "" {
			groups = []string{n.Value}
		}
	case yaml.SequenceNode:
		if err := n.Decode(&groups); err != nil {
			return nil, fmt.Errorf("want a list of group names")
		}
		if groups == nil {
			groups = []string{} // "acl: []": given, and empty
		}
	default:
		return nil, fmt.Errorf("want a list of group names")
	}
	return groups, nil
}

// groupList trims and de-duplicates groups; none (the acl left out: CheckACL refuses a given
// list without a group) means the public group.
func groupList(groups []string) []string {
	out := make([]string, 0, len(groups))
	for _, g := range groups {
		if g = strings.TrimSpace(g); g != "" && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	if len(out) == 0 {
		out = []string{ariadne.PublicGroup}
	}
	return out
}

func parseVersion(n yaml.Node) (int, error) {
	if n.Kind == 0 || n.Value == "" {
		return 0, nil
	}
	var v int
	if err := n.Decode(&v); err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a non-negative integer", n.Value)
	}
	return v, nil
}

// firstHeading returns the text of the first Markdown ATX heading in body, or "".
func firstHeading(body string) string {
	for line := range strings.SplitSeq(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") {
			if h := strings.TrimSpace(strings.TrimLeft(t, "#")); h != "" {
				return h
			}
		}
	}
	return ""
}
