package vector

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-openapi/strfmt"
	"github.com/google/uuid"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
)

// Evidence-unit vectors (the passage vectors of the sentences, table rows and list items the
// calibrated extractive generator scores) are kept in a class of their own next to the chunk class,
// "<class>Unit", keyed by content: the key is agent.UnitVectorKeyFor (embedder, the readers of the
// unit's chunk and the exact text), so
// a changed sentence has a new key and a stale vector is never served. The class has no vector
// index (vectors are read by key, never searched): each object is a 32-hex key and a vector, about
// 1.6 KB for 384 dimensions, and no text.

// unitNamespace is the UUIDv5 namespace of unit objects: UUIDv5(NameSpaceURL, "ariadne:unit").
var unitNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("ariadne:unit"))

// UnitClass is the class that keeps the chunk class's evidence-unit vectors.
func (s *Store) UnitClass() string { return s.class + "Unit" }

func unitObjectID(key string) strfmt.UUID {
	return strfmtUUID(uuid.NewSHA1(unitNamespace, []byte(key)))
}

// ensureUnitClass creates the unit class when it is missing.
func (s *Store) ensureUnitClass(ctx context.Context) error {
	_, err := s.client.Schema().ClassGetter().WithClassName(s.UnitClass()).Do(ctx)
	if err == nil {
		return nil
	}
	if !isNotFound(err) {
		return s.wrap(ctx, "get unit class", err)
	}
	cls := &models.Class{
		Class:           s.UnitClass(),
		Description:     "Ariadne evidence-unit vectors by content key (agent.UnitVectorKeyFor); no text",
		Vectorizer:      "none",
		Properties:      []*models.Property{{Name: "key", DataType: []string{"text"}, Tokenization: "field", Description: "agent.UnitVectorKeyFor: embedder, readers and exact unit text"}},
		VectorIndexType: "hnsw",
		VectorIndexConfig: map[string]any{
			"skip": true, // read by key, never searched
		},
	}
	s.placement.apply(cls)
	if err := s.client.Schema().ClassCreator().WithClass(cls).Do(ctx); err != nil && !strings.Contains(err.Error(), "already exists") {
		return s.wrap(ctx, "create unit class", err)
	}
	return nil
}

// UnitVectors returns the stored vectors of the keys the unit class holds, looked up 100 keys per
// query; absent keys (and an absent class) are absent from the map.
func (s *Store) UnitVectors(ctx context.Context, keys []string) (map[string][]float32, error) {
	return s.vectorsByKey(ctx, "unit vectors", s.UnitClass(), "key", 1, s.placement.Consistency, keys)
}

// PutUnitVectors writes vectors by key in batches of 100 (creating the unit class on first use);
// writing a key again overwrites it. A per-object failure is an error naming how many failed.
func (s *Store) PutUnitVectors(ctx context.Context, vecs map[string][]float32) error {
	if len(vecs) == 0 {
		return nil
	}
	ctx = withRetryAfter(ctx)
	if err := s.ensureUnitClass(ctx); err != nil {
		return err
	}
	objs := make([]*models.Object, 0, len(vecs))
	for k, v := range vecs {
		objs = append(objs, &models.Object{Class: s.UnitClass(), ID: unitObjectID(k), Vector: v, Properties: map[string]any{"key": k}})
	}
	failed := 0
	for start := 0; start < len(objs); start += 100 {
		resp, err := s.client.Batch().ObjectsBatcher().WithObjects(objs[start:min(start+100, len(objs))]...).
			WithConsistencyLevel(s.placement.Consistency).Do(ctx)
		if err != nil {
			return s.wrap(ctx, "batch unit vectors", err)
		}
		for _, r := range resp {
			if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				failed++
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("vector: %d of %d unit vectors were not written", failed, len(objs))
	}
	return nil
}

// UnitVectorKeys lists every key the unit class holds (cursor over all objects; none when the
// class is absent).
func (s *Store) UnitVectorKeys(ctx context.Context) ([]string, error) {
	ctx = withRetryAfter(ctx)
	var out []string
	err := s.scanClass(ctx, s.UnitClass(), "list unit keys", 1000, []graphql.Field{{Name: "key"}, {Name: "_additional", Fields: []graphql.Field{{Name: "id"}}}},
		func(hits []map[string]any) error {
			for _, h := range hits {
				out = append(out, str(h["key"]))
			}
			return nil
		})
	return out, err
}

// DeleteUnitVectors deletes the objects of the given keys (missing ones are ignored) and returns
// how many were deleted.
func (s *Store) DeleteUnitVectors(ctx context.Context, keys []string) (int, error) {
	ctx = withRetryAfter(ctx)
	deleted := 0
	for start := 0; start < len(keys); start += 200 {
		resp, err := s.client.Batch().ObjectsBatchDeleter().WithClassName(s.UnitClass()).WithOutput("minimal").WithConsistencyLevel(s.placement.Consistency).
			WithWhere(filters.Where().WithPath([]string{"key"}).WithOperator(filters.ContainsAny).WithValueText(keys[start:min(start+200, len(keys))]...)).
			Do(ctx)
		if err != nil {
			if isNotFound(err) {
				return deleted, nil
			}
			return deleted, s.wrap(ctx, "delete unit vectors", err)
		}
		if resp != nil && resp.Results != nil {
			deleted += int(resp.Results.Successful)
			if resp.Results.Failed > 0 {
				return deleted, fmt.Errorf("vector: %d unit vectors could not be deleted", resp.Results.Failed)
			}
		}
	}
	return deleted, nil
}
