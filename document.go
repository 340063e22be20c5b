package ariadne

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// PublicGroup is the permission group every caller has. A document without an explicit acl is
// readable by this group only (and therefore by everyone).
const PublicGroup = "all"

// DefaultSource is the source of a document written without one, and of every document stored
// before sources existed.
const DefaultSource = "default"

// Document is one source document of the corpus: its front matter and its Markdown or plain-text
// body. ID is the document's own `id` from its front matter and is the join key for everything
// derived from it.
type Document struct {
	ID      string   // front matter `id`, e.g. "projects/route-planner"; unique in a corpus
	Title   string   // front matter `title`; falls back to the first heading, then the id
	Type    string   // front matter `type`, lower case, e.g. "project"; "" when absent
	Lang    string   // front matter `lang` ("ru", "en", ...); "" when absent
	Updated string   // front matter `updated` as an ISO date "2006-01-02"; "" when absent
	ACL     []string // groups allowed to read it; defaults to [PublicGroup]
	Version int      // front matter `version`; 0 when absent
	Aliases []string // front matter `aliases`: other names of the entity the document describes
	Body    string   // text after the front matter, exactly as in the file (UTF-8)
	Path    string   // source path, for error messages only
	// Source names the corpus the document is synced from ("wiki", "contracts"; DefaultSource
	// when empty). A sync of one source adds, updates and deletes only that source's documents.
	// Document ids are unique across sources: an id another source already holds is a conflict.
	// The source is not part of ContentHash.
	Source string
}

var sourceNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// CheckSource reports whether name can name a source: 1–64 letters, digits, '.', '_' or '-',
// starting with a letter or digit. The error is an ErrInvalid Message for the caller.
func CheckSource(name string) error {
	if !sourceNameRE.MatchString(name) {
		return Messagef(ErrInvalid, "source %q: want 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// SourceName returns d.Source, or DefaultSource when it is empty.
func (d Document) SourceName() string {
	if d.Source == "" {
		return DefaultSource
	}
	return d.Source
}

// ContentHash returns the hex SHA-256 of everything that changes what Ariadne stores for d: the
// metadata that is copied into chunks and the graph, and the body. Re-ingesting a document whose
// hash is unchanged is a no-op; a different hash replaces the stored version.
func (d Document) ContentHash() string {
	h := sha256.New()
	for _, f := range []string{d.ID, d.Title, d.Type, d.Lang, d.Updated, strings.Join(d.ACL, ","),
		fmt.Sprint(d.Version), strings.Join(d.Aliases, "\x1f"), d.Body} {
		h.Write([]byte(f))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CanRead reports whether a caller holding groups may read a resource restricted to acl. An empty
// acl means public. The comparison is exact and case-sensitive.
func CanRead(acl, groups []string) bool {
	if len(acl) == 0 {
		return true
	}
	for _, g := range groups {
		if slices.Contains(acl, g) {
			return true
		}
	}
	return false
}

// WiderACL is an ACL whose readers are those of a or b: nil (public) when either is public (empty
// or holding PublicGroup), else their union, a's groups first.
func WiderACL(a, b []string) []string {
	if ReadersWithin(nil, a) || ReadersWithin(nil, b) {
		return nil
	}
	out := slices.Clone(a)
	for _, g := range b {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// ReadersKey names the readers of acl: its distinct groups, sorted, joined by U+001F; "" for a
// public acl (empty or holding PublicGroup). Caches whose hits are faster than their misses key
// their entries by it, so that an entry made from a restricted text answers only lookups for texts
// with the same readers.
func ReadersKey(acl []string) string {
	if ReadersWithin(nil, acl) {
		return ""
	}
	return GroupsKey(acl)
}

// GroupsKey is groups' distinct members, sorted, joined by U+001F: two callers (or acls) with the
// same key hold the same groups.
func GroupsKey(groups []string) string {
	gs := slices.Clone(groups)
	slices.Sort(gs)
	return strings.Join(slices.Compact(gs), "\x1f")
}

// ReadersWithin reports whether every caller who may read a resource restricted to inner may also
// read one restricted to outer (CanRead's rule, with PublicGroup held by every caller): outer is
// public (empty or holding PublicGroup), or inner is restricted to groups that are all in outer.
// Entity resolution links a chunk (inner) to an entity only through a definition (outer) that
// every reader of the chunk may read.
func ReadersWithin(inner, outer []string) bool {
	if len(outer) == 0 || slices.Contains(outer, PublicGroup) {
		return true
	}
	if len(inner) == 0 || slices.Contains(inner, PublicGroup) {
		return false
	}
	for _, g := range inner {
		if !slices.Contains(outer, g) {
			return false
		}
	}
	return true
}

// Chunk is a contiguous span of one document's body, the unit that is embedded, searched, cited
// and used as provenance for graph facts.
//
// Text is Body[Start:End] verbatim (byte offsets), so a citation's quote can always be checked
// against the original document. Title and Heading are carried separately and prepended by
// ContextText for embedding and BM25.
type Chunk struct {
	ID         string   // "<doc id>#<position, 4 digits>-<first 8 hex of sha256(text)>", stable across runs
	DocID      string   // Document.ID
	DocVersion int      // Document.Version
	DocHash    string   // Document.ContentHash() of the version this chunk came from
	DocType    string   // Document.Type
	Position   int      // 0-based order of the chunk inside its document
	Title      string   // Document.Title
	Heading    []string // heading path from the top-level heading down to the chunk's section
	Text       string   // verbatim body slice
	Start, End int      // byte offsets of Text in Document.Body
	Tokens     int      // token count of Text (see package chunking for how tokens are counted)
	Lang       string   // Document.Lang
	ACL        []string // Document.ACL
	Updated    string   // Document.Updated
	Source     string   // Document.SourceName()
}

// HeadingPath joins the heading path with " > ", e.g. "Ter Plast CRM > Architecture".
func (c Chunk) HeadingPath() string { return strings.Join(c.Heading, " > ") }

// ContextText is the text that represents the chunk to retrieval: "title\nheading path\n\ntext".
// Embeddings are computed from it, so that a chunk that does not repeat its document's name still
// matches questions that use the name.
func (c Chunk) ContextText() string {
	var b strings.Builder
	b.WriteString(c.Title)
	if hp := c.HeadingPath(); hp != "" && hp != c.Title {
		b.WriteString("\n")
		b.WriteString(hp)
	}
	b.WriteString("\n\n")
	b.WriteString(c.Text)
	return b.String()
}

// ChunkID builds the stable chunk id "<docID>#<position>-<hash8>", where hash8 is the first 8 hex
// digits of the SHA-256 of text.
func ChunkID(docID string, position int, text string) string {
	return fmt.Sprintf("%s#%04d-%s", docID, position, TextHash(text)[:8])
}

// ContentKey returns the hex SHA-256 of what a chunk's embedding is computed from — the embedder's
// name, the title, the heading path and the text — so that a chunk whose key is unchanged (after a
// graph reset, in another source, under a renamed document) reuses its stored vector.
func (c Chunk) ContentKey(embedder string) string {
	h := sha256.New()
	for _, f := range []string{embedder, c.Title, c.HeadingPath(), c.Text} {
		h.Write([]byte(f))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TextHash returns the hex SHA-256 of text.
func TextHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// DocIDOfChunk returns the document id part of a chunk id built by ChunkID, or "" when id has no
// '#'.
func DocIDOfChunk(id string) string {
	i := strings.LastIndexByte(id, '#')
	if i < 0 {
		return ""
	}
	return id[:i]
}

// ChunkPosition returns the position part of a chunk id built by ChunkID ("doc#0003-1a2b3c4d" →
// 3), or -1 when id has none.
func ChunkPosition(id string) int {
	i := strings.LastIndexByte(id, '#')
	if i < 0 {
		return -1
	}
	digits, _, _ := strings.Cut(id[i+1:], "-")
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 {
		return -1
	}
	return n
}
