package vector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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
		if p.Name != "source" && p.Name != "content_key" && p.Name != "analysis" {
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
		delete(p, "analysis")
		objs = append(objs, &models.Object{Class: class, ID: strfmt.UUID(ObjectID(c.ID)), Vector: []float32{float32(i + 1), 0, 0, 1}, Properties: p})
	}
	if _, err := s.client.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx); err != nil {
		t.Fatal(err)
	}
	if stale, total, err := s.StaleAnalysis(ctx, "v2"); err != nil || stale != 2 || total != 2 {
		t.Errorf("a class without analyses: %d of %d stale, %v; want 2 of 2", stale, total, err)
	}
	if err := s.EnsureClass(ctx, emb); err != nil {
		t.Fatalf("EnsureClass on an old class: %+v", errors.Unwrap(err))
	}
	fresh := ariadne.Chunk{ID: "c#0000-3", DocID: "c", Title: "Queue", Text: "Restart.", ACL: []string{"all"}, Source: "ops"}
	if res, err := s.Upsert(ctx, []ariadne.IndexedChunk{{Chunk: fresh, Vector: []float32{0, 1, 0, 0}, ContentKey: fresh.ContentKey(emb.Name), Analysis: "v2"}}); err != nil || res.Written != 1 {
		t.Fatalf("upsert: %+v %v", res, err)
	}
	if stale, total, err := s.StaleAnalysis(ctx, "v2"); err != nil || stale != 2 || total != 3 {
		t.Errorf("after the upsert: %d of %d stale, %v; want 2 of 3", stale, total, err)
	}
	stored, err := s.StoredVectors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []ariadne.StoredVector{{ChunkID: "a#0000-1", Source: "default"}, {ChunkID: "b#0000-2", Source: "default"}, {ChunkID: "c#0000-3", Source: "ops", Analysis: "v2"}}
	if !slices.Equal(stored, want) {
		t.Errorf("stored vectors %v, want %v", stored, want)
	}
	keys := []string{olds[0].ContentKey(emb.Name), olds[1].ContentKey(emb.Name), fresh.ContentKey(emb.Name), "no-such-key"}
	got, err := s.VectorsByContentKey(ctx, keys, []string{ariadne.PublicGroup})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !slices.Equal(got[keys[0]], []float32{1, 0, 0, 1}) || !slices.Equal(got[keys[1]], []float32{2, 0, 0, 1}) ||
		!slices.Equal(got[keys[2]], []float32{0, 1, 0, 0}) {
		t.Errorf("vectors by content key: %v", got)
	}
	// Reanalyze: new terms and analysis, the same vectors and other properties.
	n, err := s.Reanalyze(ctx, []string{"a#0000-1", "b#0000-2", "no-such#0"}, "v2", func(c ariadne.Chunk) string { return strings.ToLower("re " + c.Title + " " + c.HeadingPath()) })
	if err != nil || n != 2 {
		t.Fatalf("reanalyze: %d, %v; want 2", n, err)
	}
	if stale, total, err := s.StaleAnalysis(ctx, "v2"); err != nil || stale != 0 || total != 3 {
		t.Errorf("after reanalyze: %d of %d stale, %v; want 0 of 3", stale, total, err)
	}
	hits, err := s.Search(ctx, ariadne.SearchBM25, ariadne.SearchQuery{Text: "rules", Terms: []string{"rules"}, Groups: []string{"all"}})
	if err != nil || len(hits) != 1 || hits[0].ID != "a#0000-1" || hits[0].Text != "28 days." || hits[0].HeadingPath() != "Leave > Rules" {
		t.Errorf("BM25 over the new terms: %+v, %v", hits, err)
	}
	if again, err := s.VectorsByContentKey(ctx, keys[:2], []string{ariadne.PublicGroup}); err != nil || !slices.Equal(again[keys[0]], got[keys[0]]) || !slices.Equal(again[keys[1]], got[keys[1]]) {
		t.Errorf("vectors after reanalyze: %v, %v", again, err)
	}
}

// TestIntegrationVectorReuseIsReadable: a stored vector is reused only from a chunk every reader of
// the new chunk may read — a public write whose text is a management chunk's is embedded anew (an
// outside tester timed reuse to confirm a restricted chunk's exact text), while a management
// write reuses a public chunk's vector and another management one's.
func TestIntegrationVectorReuseIsReadable(t *testing.T) {
	s, _ := lexicalTestClass(t, "AriadneReuse")
	ctx := context.Background()
	emb := lexicalTestEmbedding
	secret := ariadne.Chunk{ID: "contracts/c#0000-1", DocID: "contracts/c", Title: "Договор", Text: "Штраф 2%.", ACL: []string{"management"}}
	open := ariadne.Chunk{ID: "notes/n#0000-2", DocID: "notes/n", Title: "Note", Text: "Canteen.", ACL: []string{"all"}}
	var in []ariadne.IndexedChunk
	for i, c := range []ariadne.Chunk{secret, open} {
		in = append(in, ariadne.IndexedChunk{Chunk: c, SearchText: c.Text, ContentKey: c.ContentKey(emb.Name), Vector: []float32{float32(i + 1), 0, 0, 1}})
	}
	if res, err := s.Upsert(ctx, in); err != nil || len(res.Failed) > 0 {
		t.Fatalf("upsert: %+v %v", res, err)
	}
	keys := []string{secret.ContentKey(emb.Name), open.ContentKey(emb.Name)}
	for _, tc := range []struct {
		readers []string
		want    []string // keys found
	}{
		{[]string{"all"}, keys[1:]},
		{[]string{"sales"}, keys[1:]},
		{[]string{"management", "sales"}, keys[1:]}, // a sales reader may not read the contract
		{[]string{"management"}, keys},
	} {
		got, err := s.VectorsByContentKey(ctx, keys, tc.readers)
		if err != nil {
			t.Fatal(err)
		}
		var found []string
		for _, k := range keys {
			if _, ok := got[k]; ok {
				found = append(found, k)
			}
		}
		if !slices.Equal(found, tc.want) {
			t.Errorf("readers %v: reused %d keys (%v), want %d", tc.readers, len(found), found, len(tc.want))
		}
	}
}
