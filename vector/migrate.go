package vector

import (
	"context"
	"fmt"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/ariadne-graphrag/ariadne"
)

// backfillSources gives the objects of a class created before sources and content keys existed
// their source (ariadne.DefaultSource) and content key (ariadne.Chunk.ContentKey of embedder e,
// from the stored title, heading path and text), so that their vectors are found by content.
// It rewrites each object with its own vector, 500 per batch, and returns how many it rewrote.
func (s *Store) backfillSources(ctx context.Context, e ariadne.Embedding) (int, error) {
	props := []string{"chunk_id", "doc_id", "doc_version", "doc_type", "position", "title", "heading", "text",
		"search_text", "lang", "acl", "updated", "content_key"}
	fields := make([]graphql.Field, 0, len(props)+1)
	for _, p := range props {
		fields = append(fields, graphql.Field{Name: p})
	}
	fields = append(fields, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "id"}, {Name: "vector"}}})
	done := 0
	err := s.scan(ctx, "backfill sources", 500, fields, func(hits []map[string]any) error {
		var objs []*models.Object
		for _, h := range hits {
			add, _ := h["_additional"].(map[string]any)
			id := str(add["id"])
			if str(h["content_key"]) != "" {
				continue
			}
			vec := vectorOf(add)
			c := ariadne.Chunk{Title: str(h["title"]), Text: str(h["text"])}
			if hp := str(h["heading"]); hp != "" {
				c.Heading = []string{hp}
			}
			p := map[string]any{}
			for _, k := range props {
				switch v := h[k].(type) {
				case nil:
				case []any: // acl: the gRPC batch wants typed arrays
					l := make([]string, 0, len(v))
					for _, x := range v {
						l = append(l, str(x))
					}
					p[k] = l
				case float64: // doc_version, position
					p[k] = int64(v)
				default:
					p[k] = v
				}
			}
			p["source"], p["content_key"] = ariadne.DefaultSource, c.ContentKey(e.Name)
			objs = append(objs, &models.Object{Class: s.class, ID: strfmt.UUID(id), Vector: vec, Properties: p})
		}
		if len(objs) > 0 {
			resp, err := s.client.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx)
			if err != nil {
				return s.wrap(ctx, "backfill sources", err)
			}
			for _, r := range resp {
				if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
					return fmt.Errorf("vector: backfill sources: object %s: %s", r.ID, r.Result.Errors.Error[0].Message)
				}
			}
			done += len(objs)
		}
		return nil
	})
	return done, err
}
