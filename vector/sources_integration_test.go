package vector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/ariadne-graphrag/ariadne"
)

// TestIntegrationSourcesMigration: a class written before sources and content keys (its schema
// and objects without them) is migrated by EnsureClass — every object becomes the default
// source's and is found by its content key — and new objects carry both.
func TestIntegrationSourcesMigration(t *testing.T) {
	class := fmt.Sprintf("AriadneMigrate%d", time.Now().UnixNano())
	s := openTestStore(t, class)
	ctx := context.Background()
	t.Cleanup(func() { s.DropClass(context.Background()) })
	emb := ariadne.Embedding{Name: "lexical-ngram-v1/4", Dim: 4}
	var old []*models.Property
	for _, p := range chunkProperties() {
		if p.Name != "source" && p.Name != "content_key" {
			old = append(old, p)
		}
	}
	if err := s.client.Schema().ClassCreator().WithClass(&models.Class{Class: class, Description: classDescription(emb),
		Vectorizer: "none", Properties: old}).Do(ctx); err != nil {
		t.Fatal(err)
	}
	olds := []ariadne.Chunk{
		{ID: "a#0000-1", DocID: "a", Title: "Leave", Heading: []string{"Leave", "Rules"}, Text: "28 days.", ACL: []string{"all"}},
		{ID: "b#0000-2", DocID: "b", Title: "Bikes", Text: "Allowance.", ACL: []string{"all"}},
	}
	var objs []*models.Object
	for i, c := range olds {
		p := chunkToProperties(ariadne.IndexedChunk{Chunk: c, SearchText: c.Text})
		delete(p, "source")
		delete(p, "content_key")
		objs = append(objs, &models.Object{Class: class, ID: strfmt.UUID(ObjectID(c.ID)), Vector: []float32{float32(i + 1), 0, 0, 1}, Properties: p})
	}
	if _, err := s.client.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureClass(ctx, emb); err != nil {
		t.Fatalf("EnsureClass on an old class: %+v", errors.Unwrap(err))
	}
	fresh := ariadne.Chunk{ID: "c#0000-3", DocID: "c", Title: "Queue", Text: "Restart.", ACL: []string{"all"}, Source: "ops"}
	if res, err := s.Upsert(ctx, []ariadne.IndexedChunk{{Chunk: fresh, Vector: []float32{0, 1, 0, 0}, ContentKey: fresh.ContentKey(emb.Name)}}); err != nil || res.Written != 1 {
		t.Fatalf("upsert: %+v %v", res, err)
	}
	stored, err := s.StoredVectors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []ariadne.StoredVector{{ChunkID: "a#0000-1", Source: "default"}, {ChunkID: "b#0000-2", Source: "default"}, {ChunkID: "c#0000-3", Source: "ops"}}
	if !slices.Equal(stored, want) {
		t.Errorf("stored vectors %v, want %v", stored, want)
	}
	keys := []string{olds[0].ContentKey(emb.Name), olds[1].ContentKey(emb.Name), fresh.ContentKey(emb.Name), "no-such-key"}
	got, err := s.VectorsByContentKey(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !slices.Equal(got[keys[0]], []float32{1, 0, 0, 1}) || !slices.Equal(got[keys[1]], []float32{2, 0, 0, 1}) ||
		!slices.Equal(got[keys[2]], []float32{0, 1, 0, 0}) {
		t.Errorf("vectors by content key: %v", got)
	}
}
