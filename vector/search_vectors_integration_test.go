package vector

import (
	"context"
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// TestIntegrationSearchWithVectors: a search that asks for vectors returns each hit's stored
// embedding (the second hop's query feedback reads them), only for chunks the caller may read.
func TestIntegrationSearchWithVectors(t *testing.T) {
	s, _ := lexicalTestClass(t, "AriadneVectors")
	ctx := context.Background()
	chunks := []ariadne.IndexedChunk{
		{Chunk: ariadne.Chunk{ID: "a#0000-1", DocID: "a", Title: "Leave", Text: "28 days.", ACL: []string{"all"}}, Vector: []float32{1, 0, 0, 0}},
		{Chunk: ariadne.Chunk{ID: "b#0000-2", DocID: "b", Title: "Bikes", Text: "Allowance.", ACL: []string{"all"}}, Vector: []float32{0.6, 0.8, 0, 0}},
		{Chunk: ariadne.Chunk{ID: "c#0000-3", DocID: "c", Title: "Pay", Text: "Bands.", ACL: []string{"management"}}, Vector: []float32{0.8, 0.6, 0, 0}},
	}
	if _, err := s.Upsert(ctx, chunks); err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(ctx, ariadne.SearchVector, ariadne.SearchQuery{Vector: []float32{1, 0, 0, 0}, Groups: []string{"all"}, Limit: 3,
		ChunkIDs: []string{"a#0000-1", "b#0000-2", "c#0000-3"}, ScoresOnly: true, WithVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range got {
		ids = append(ids, c.ID)
	}
	if !slices.Equal(ids, []string{"a#0000-1", "b#0000-2"}) {
		t.Fatalf("hits %v, want a and b (c is management-only)", ids)
	}
	if !slices.Equal(got[0].Vector, []float32{1, 0, 0, 0}) || !slices.Equal(got[1].Vector, []float32{0.6, 0.8, 0, 0}) {
		t.Errorf("vectors %v, %v", got[0].Vector, got[1].Vector)
	}
	// Without the flag, no vectors.
	plain, err := s.Search(ctx, ariadne.SearchVector, ariadne.SearchQuery{Vector: []float32{1, 0, 0, 0}, Groups: []string{"all"}, Limit: 1})
	if err != nil || len(plain) != 1 || plain[0].Vector != nil {
		t.Errorf("plain search: %+v %v", plain, err)
	}
}
