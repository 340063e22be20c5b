package vector

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
)

// TestIntegrationScoresOverGRPC: a scores-only vector search goes over Weaviate's gRPC API when
// the store has its address, and gives what GraphQL gives — the same chunks in the same order,
// the same scores to the last bit, document ids — with the caller's groups and the chunk-id
// restriction applied; an absent class gives no hits.
func TestIntegrationScoresOverGRPC(t *testing.T) {
	class := fmt.Sprintf("AriadneGrpc%d", time.Now().UnixNano())
	s := openTestStore(t, class)
	if s.grpc == nil {
		t.Fatal("the test store has no gRPC address")
	}
	ctx := context.Background()
	t.Cleanup(func() { s.DropClass(context.Background()) })
	if err := s.EnsureClass(ctx, ariadne.Embedding{Name: "lexical-ngram-v1/4", Dim: 4}); err != nil {
		t.Fatal(err)
	}
	chunks := []ariadne.IndexedChunk{
		{Chunk: ariadne.Chunk{ID: "a#0000-1", DocID: "a", Title: "Leave", Text: "28 days.", ACL: []string{"all"}}, Vector: []float32{1, 0, 0, 0}},
		{Chunk: ariadne.Chunk{ID: "b#0000-2", DocID: "b", Title: "Bikes", Text: "Allowance.", ACL: []string{"all"}}, Vector: []float32{0.6, 0.8, 0, 0}},
		{Chunk: ariadne.Chunk{ID: "c#0000-3", DocID: "c", Title: "Pay", Text: "Bands.", ACL: []string{"management"}}, Vector: []float32{0.8, 0.6, 0, 0}},
		{Chunk: ariadne.Chunk{ID: "d#0000-4", DocID: "d", Title: "Trips", Text: "Per diem.", ACL: []string{"all"}}, Vector: []float32{0.3, 0.1, 0.9, 0.2}},
	}
	if _, err := s.Upsert(ctx, chunks); err != nil {
		t.Fatal(err)
	}
	overGraphQL := *s
	overGraphQL.grpc = nil
	q := ariadne.SearchQuery{Vector: []float32{0.9, 0.2, 0.1, 0}, Groups: []string{"all"}, Limit: 10,
		ChunkIDs: []string{"a#0000-1", "c#0000-3", "d#0000-4"}, ScoresOnly: true}
	show := func(hits []ariadne.ScoredChunk) string {
		out := ""
		for _, h := range hits {
			out += fmt.Sprintf("%s/%s %v; ", h.ID, h.DocID, h.Score)
		}
		return out
	}
	viaGRPC, err := s.Search(ctx, ariadne.SearchVector, q)
	if err != nil {
		t.Fatal(err)
	}
	viaGraphQL, err := overGraphQL.Search(ctx, ariadne.SearchVector, q)
	if err != nil {
		t.Fatal(err)
	}
	if show(viaGRPC) != show(viaGraphQL) || len(viaGRPC) != 2 || viaGRPC[0].ID != "a#0000-1" || viaGRPC[1].ID != "d#0000-4" {
		t.Errorf("gRPC:    %s\nGraphQL: %s\nwant a then d (b is not asked for, c is management-only), same scores", show(viaGRPC), show(viaGraphQL))
	}
	q.Groups = []string{"management"}
	if got, err := s.Search(ctx, ariadne.SearchVector, q); err != nil || len(got) != 1 || got[0].ID != "c#0000-3" {
		t.Errorf("management: %s %v, want c only", show(got), err)
	}
	absent := *s
	absent.class = class + "Absent"
	if got, err := absent.Search(ctx, ariadne.SearchVector, q); err != nil || len(got) != 0 {
		t.Errorf("absent class: %s %v, want no hits and no error", show(got), err)
	}
}
