package vector

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// TestIntegrationScoresOverGRPC: searches go over Weaviate's gRPC API when the store has its
// address, and give what GraphQL gives — the same chunks in the same order, the same scores to
// the last bit, every property, stored vectors — for vector, BM25 and hybrid search (both
// fusions, alpha at both ends), whole chunks and scores only, with the caller's groups and the
// chunk-id restriction applied; an absent class gives no hits.
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
		{Chunk: ariadne.Chunk{ID: "a#0000-1", DocID: "a", DocVersion: 3, DocType: "policy", Position: 2, Title: "Leave",
			Heading: []string{"Leave", "Annual days"}, Text: "28 days of annual leave.", Lang: "en", ACL: []string{"all", "hr"},
			Updated: "2026-03-01"}, Vector: []float32{1, 0, 0, 0}},
		{Chunk: ariadne.Chunk{ID: "b#0000-2", DocID: "b", Title: "Bikes", Text: "Отпуск и велосипед: allowance.", Lang: "ru", ACL: []string{"all"}}, Vector: []float32{0.6, 0.8, 0, 0}},
		{Chunk: ariadne.Chunk{ID: "c#0000-3", DocID: "c", Title: "Pay", Text: "Bands.", ACL: []string{"management"}}, Vector: []float32{0.8, 0.6, 0, 0}},
		{Chunk: ariadne.Chunk{ID: "d#0000-4", DocID: "d", Title: "Trips", Text: "Per diem.", ACL: []string{"all"}}, Vector: []float32{0.3, 0.1, 0.9, 0.2}},
	}
	for i, c := range chunks {
		chunks[i].SearchText = strings.Join(textnorm.SearchTerms(c.Title+" "+c.Text), " ")
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
			out += fmt.Sprintf("%s/%s %v; ", h.ID, h.DocID, h.Score) // DocID: empty when scores only
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
	full := []struct {
		mode ariadne.SearchMode
		q    ariadne.SearchQuery
	}{
		{ariadne.SearchVector, ariadne.SearchQuery{Vector: []float32{0.9, 0.2, 0.1, 0}}},
		{ariadne.SearchVector, ariadne.SearchQuery{Vector: []float32{0.9, 0.2, 0.1, 0}, WithVectors: true}},
		{ariadne.SearchBM25, ariadne.SearchQuery{Text: "annual leave", Terms: textnorm.SearchTerms("annual leave")}},
		{ariadne.SearchHybrid, ariadne.SearchQuery{Text: "leave allowance", Terms: textnorm.SearchTerms("leave allowance"),
			Vector: []float32{0.3, 0.1, 0.9, 0.2}, Alpha: 0.5, Fusion: ariadne.FusionRelativeScore}},
		{ariadne.SearchHybrid, ariadne.SearchQuery{Text: "leave allowance", Terms: textnorm.SearchTerms("leave allowance"),
			Vector: []float32{0.3, 0.1, 0.9, 0.2}, Alpha: 0.25, Fusion: ariadne.FusionRanked, WithVectors: true}},
		{ariadne.SearchHybrid, ariadne.SearchQuery{Text: "leave", Terms: textnorm.SearchTerms("leave"), Vector: []float32{0.3, 0.1, 0.9, 0.2}, Alpha: 0, Fusion: ariadne.FusionRelativeScore}},
		{ariadne.SearchHybrid, ariadne.SearchQuery{Text: "leave", Terms: textnorm.SearchTerms("leave"), Vector: []float32{0.3, 0.1, 0.9, 0.2}, Alpha: 1, Fusion: ariadne.FusionRelativeScore}},
		{ariadne.SearchHybrid, ariadne.SearchQuery{Text: "leave", Terms: textnorm.SearchTerms("leave"), Vector: []float32{0.3, 0.1, 0.9, 0.2},
			Alpha: 0.5, Fusion: ariadne.FusionRelativeScore, ChunkIDs: []string{"a#0000-1", "b#0000-2"}, ScoresOnly: true}},
		{ariadne.SearchVector, ariadne.SearchQuery{Vector: []float32{0.9, 0.2, 0.1, 0}, ScoresOnly: true}},
		{ariadne.SearchVector, ariadne.SearchQuery{Vector: []float32{0.9, 0.2, 0.1, 0}, ChunkIDs: []string{"b#0000-2", "d#0000-4"},
			ScoresOnly: true, WithVectors: true}},
	}
	for i, c := range full {
		c.q.Groups, c.q.Limit = []string{"all"}, 10
		viaGRPC, err := s.Search(ctx, c.mode, c.q)
		if err != nil {
			t.Fatalf("%d %s over gRPC: %v", i, c.mode, err)
		}
		viaGraphQL, err := overGraphQL.Search(ctx, c.mode, c.q)
		if err != nil {
			t.Fatalf("%d %s over GraphQL: %v", i, c.mode, err)
		}
		if len(viaGRPC) == 0 || !reflect.DeepEqual(viaGRPC, viaGraphQL) {
			t.Errorf("%d %s:\ngRPC:    %+v\nGraphQL: %+v", i, c.mode, viaGRPC, viaGraphQL)
		}
	}
	if got, _ := s.Search(ctx, ariadne.SearchVector, ariadne.SearchQuery{Vector: []float32{1, 0, 0, 0}, Groups: []string{"all"}, Limit: 1}); len(got) != 1 ||
		!reflect.DeepEqual(got[0].Chunk, chunks[0].Chunk) || got[0].Score != 1 {
		t.Errorf("nearest chunk over gRPC: %+v, want %+v with score 1", got, chunks[0].Chunk)
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
