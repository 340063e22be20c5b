package vector

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
)

// Object is one stored chunk object as a digest sees it: its properties' fingerprint and its
// vector. UUID is the object's id (UUIDv5 of the chunk id, so a re-run overwrites it).
type Object struct {
	ChunkID string
	UUID    string
	Props   string // hex SHA-256 of chunk_id, doc_id, doc_version, position, title, heading, text, search_text, lang, sorted acl, updated
	Vector  []float32
}

// Digest is a content fingerprint of the class: Props is the hex SHA-256 of every object's
// chunk id and property fingerprint, sorted by chunk id; Objects holds them with their vectors
// (vectors are compared by cosine, not bytes: an embedder's floats may differ in the last bits
// with the batch a text was embedded in). Duplicates counts chunk ids held by more than one object.
type Digest struct {
	Props      string
	Objects    map[string]Object
	Duplicates int
}

// Digest reads every object of the class with its vector (cursor over all objects).
func (s *Store) Digest(ctx context.Context) (Digest, error) {
	ctx = withRetryAfter(ctx)
	d := Digest{Objects: map[string]Object{}}
	fields := []graphql.Field{{Name: "chunk_id"}, {Name: "doc_id"}, {Name: "doc_version"}, {Name: "position"},
		{Name: "title"}, {Name: "heading"}, {Name: "text"}, {Name: "search_text"}, {Name: "lang"}, {Name: "acl"},
		{Name: "updated"}, {Name: "_additional", Fields: []graphql.Field{{Name: "id"}, {Name: "vector"}}}}
	err := s.scan(ctx, "digest", 500, fields, func(hits []map[string]any) error {
		for _, h := range hits {
			add, _ := h["_additional"].(map[string]any)
			acl := strs(h["acl"])
			sort.Strings(acl)
			raw, _ := json.Marshal([]any{h["chunk_id"], h["doc_id"], h["doc_version"], h["position"], h["title"], h["heading"],
				h["text"], h["search_text"], h["lang"], acl, h["updated"]})
			sum := sha256.Sum256(raw)
			o := Object{ChunkID: str(h["chunk_id"]), UUID: str(add["id"]), Props: hex.EncodeToString(sum[:]), Vector: vectorOf(add)}
			if _, dup := d.Objects[o.ChunkID]; dup {
				d.Duplicates++
			}
			d.Objects[o.ChunkID] = o
		}
		return nil
	})
	if err != nil {
		return d, err
	}
	ids := make([]string, 0, len(d.Objects))
	for id := range d.Objects {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	h := sha256.New()
	for _, id := range ids {
		h.Write([]byte(id + " " + d.Objects[id].Props + "\n"))
	}
	d.Props = hex.EncodeToString(h.Sum(nil))
	return d, nil
}

// strs is a GraphQL list of strings (nil or not a list: empty, never nil).
func strs(v any) []string {
	out := []string{}
	if l, ok := v.([]any); ok {
		for _, g := range l {
			out = append(out, str(g))
		}
	}
	return out
}
