package vector

import (
	"context"
	"fmt"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
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
	fields := withIDAndVector(props)
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
			p := storedProperties(h, props)
			p["source"], p["content_key"] = ariadne.DefaultSource, c.ContentKey(e.Name)
			objs = append(objs, &models.Object{Class: s.class, ID: strfmt.UUID(id), Vector: vec, Properties: p})
		}
		if err := s.writeBack(ctx, "backfill sources", objs); err != nil {
			return err
		}
		done += len(objs)
		return nil
	})
	return done, err
}

// withIDAndVector is the GraphQL fields of props with each object's id and vector.
func withIDAndVector(props []string) []graphql.Field {
	fields := make([]graphql.Field, 0, len(props)+1)
	for _, p := range props {
		fields = append(fields, graphql.Field{Name: p})
	}
	return append(fields, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "id"}, {Name: "vector"}}})
}

// storedProperties turns the properties props of an object as GraphQL returned it (h) into the
// typed values a batch write takes; absent ones stay absent.
func storedProperties(h map[string]any, props []string) map[string]any {
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
	return p
}

// writeBack writes objects back in one batch (each with its own vector), failing on the first
// per-object error; op names the call in errors.
func (s *Store) writeBack(ctx context.Context, op string, objs []*models.Object) error {
	if len(objs) == 0 {
		return nil
	}
	resp, err := s.client.Batch().ObjectsBatcher().WithObjects(objs...).WithConsistencyLevel(s.placement.Consistency).Do(ctx)
	if err != nil {
		return s.wrap(ctx, op, err)
	}
	for _, r := range resp {
		if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
			return fmt.Errorf("vector: %s: object %s: %s", op, r.ID, r.Result.Errors.Error[0].Message)
		}
	}
	return nil
}

// Reanalyze rewrites the BM25 terms of the chunk objects chunkIDs (ids the class does not hold are
// skipped): search_text becomes analyze of the stored title, heading path and text, and analysis
// becomes version; every other property and the vector stay as stored, so nothing is embedded
// again. Objects are read and written 100 at a time. It returns how many it rewrote. A sync calls
// it for chunks whose stored analysis is not the running one (ingest: Plan.Reanalyze).
func (s *Store) Reanalyze(ctx context.Context, chunkIDs []string, version string, analyze func(ariadne.Chunk) string) (int, error) {
	ctx = withRetryAfter(ctx)
	props := []string{"chunk_id", "doc_id", "doc_version", "doc_type", "position", "title", "heading", "text",
		"lang", "acl", "updated", "source", "content_key"}
	fields := withIDAndVector(props)
	done := 0
	for start := 0; start < len(chunkIDs); start += 100 {
		batch := chunkIDs[start:min(start+100, len(chunkIDs))]
		resp, err := s.client.GraphQL().Get().WithClassName(s.class).WithFields(fields...).
			WithWhere(filters.Where().WithPath([]string{"chunk_id"}).WithOperator(filters.ContainsAny).WithValueText(batch...)).
			WithLimit(len(batch)).WithConsistencyLevel(s.placement.Consistency).Do(ctx)
		if err != nil {
			return done, s.wrap(ctx, "reanalyze", err)
		}
		if err := gqlErrors("reanalyze", resp.Errors); err != nil {
			return done, err
		}
		var objs []*models.Object
		for _, h := range hitsOf(resp, s.class) {
			add, _ := h["_additional"].(map[string]any)
			vec := vectorOf(add)
			if len(vec) == 0 {
				continue // a lost vector is the self-check's to repair (CheckIndex), not this rewrite's
			}
			c := ariadne.Chunk{Title: str(h["title"]), Text: str(h["text"])}
			if hp := str(h["heading"]); hp != "" {
				c.Heading = []string{hp}
			}
			p := storedProperties(h, props)
			p["search_text"], p["analysis"] = analyze(c), version
			objs = append(objs, &models.Object{Class: s.class, ID: strfmt.UUID(str(add["id"])), Vector: vec, Properties: p})
		}
		if err := s.writeBack(ctx, "reanalyze", objs); err != nil {
			return done, err
		}
		done += len(objs)
	}
	return done, nil
}
