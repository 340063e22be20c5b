package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// downGraph is a graph store whose every read fails with err (Neo4j down: ErrUnavailable).
type downGraph struct {
	err   error
	reads *atomic.Int32
}

func (g downGraph) fail() error { g.reads.Add(1); return g.err }
func (g downGraph) EntityCandidates(context.Context, string, []string, int) ([]ariadne.EntityCandidate, error) {
	return nil, g.fail()
}
func (g downGraph) Edges(context.Context, []string, []string, []string, int) ([]ariadne.Edge, error) {
	return nil, g.fail()
}
func (g downGraph) EntitiesOfChunks(context.Context, []string, []string) (map[string][]string, error) {
	return nil, g.fail()
}
func (g downGraph) DocumentChunkIDs(context.Context, []string, []string) ([]string, error) {
	return nil, g.fail()
}

type downSearch struct{}

func (downSearch) Search(context.Context, ariadne.SearchMode, ariadne.SearchQuery) ([]ariadne.ScoredChunk, error) {
	return nil, fmt.Errorf("vector: weaviate: %w", ariadne.ErrUnavailable)
}

// TestDegradedWithoutGraph: with Neo4j down, a question is answered from the chunk index alone —
// marked degraded, multi_hop run as hybrid, nothing a caller may not read — and only when the
// chunk index is down too, or the graph's error is not unavailability, does the question fail.
func TestDegradedWithoutGraph(t *testing.T) {
	secret := ariadne.ScoredChunk{Score: 0.95, Chunk: ariadne.Chunk{ID: "hr/salaries#0000-cccccccc", DocID: "hr/salaries", Title: "Оклады",
		ACL: []string{"management"}, Text: "Ежегодный оплачиваемый отпуск руководителей продолжительностью 35 календарных дней."}}
	down := fmt.Errorf("graph: entity candidates: %w", ariadne.ErrUnavailable)
	tests := []struct {
		name      string
		search    ChunkSearcher
		graphErr  error
		mode      string
		wantErr   error
		wantRoute ariadne.Route
	}{
		{"routed", fakeSearch{[]ariadne.ScoredChunk{vacation, secret}}, down, "auto", nil, ariadne.RouteSimple},
		{"multi_hop forced runs as hybrid", fakeSearch{[]ariadne.ScoredChunk{vacation, secret}}, down, "multi_hop", nil, ariadne.RouteHybrid},
		{"chunk index down too", downSearch{}, down, "auto", ariadne.ErrUnavailable, ""},
		{"a graph error that is not unavailability", fakeSearch{[]ariadne.ScoredChunk{vacation}}, fmt.Errorf("graph: %w", ariadne.ErrInvalid), "auto", ariadne.ErrInvalid, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reads := &atomic.Int32{}
			r := NewRetriever(tc.search, downGraph{err: tc.graphErr, reads: reads}, fixedEmbedder{}, nil,
				RetrievalConfig{MinCoverage: 0.01, Retry: retry.Policy{Initial: time.Millisecond, MaxAttempts: 2}}, nil)
			a := NewAnswerer(r, TermExtractive{}, fixedCount(2), AnswerConfig{}, Hooks{}, nil)
			ans, err := a.Answer(context.Background(), Request{Question: "Сколько дней ежегодного оплачиваемого отпуска?", Groups: []string{"all"}, Mode: tc.mode}, nil)
			if tc.wantErr != nil {
				if errors.Is(tc.wantErr, ariadne.ErrInvalid) {
					if !errors.Is(err, ariadne.ErrInvalid) {
						t.Fatalf("err %v, want ErrInvalid", err)
					}
					return
				}
				if err != nil || ans.Status != ariadne.StatusUnavailable {
					t.Fatalf("status %s, err %v; want unavailable", ans.Status, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ans.Status != ariadne.StatusAnswered || ans.Route != tc.wantRoute || !slices.Equal(ans.Degraded, []string{DegradedGraph}) {
				t.Fatalf("status %s route %s degraded %v (%s); want answered, %s, [graph]", ans.Status, ans.Route, ans.Degraded, ans.Reason, tc.wantRoute)
			}
			for _, c := range ans.Citations {
				if c.ChunkID != vacation.ID {
					t.Errorf("cites %s, want only %s (the other chunk is management's)", c.ChunkID, vacation.ID)
				}
			}
			if len(ans.Citations) == 0 || !strings.Contains(ans.Answer, "28 календарных дней") {
				t.Errorf("answer %q, citations %v", ans.Answer, ans.Citations)
			}
			if n := reads.Load(); n != 1 {
				t.Errorf("%d graph reads, want 1 (the linking that found it down)", n)
			}
			if tc.mode == "multi_hop" && !slices.ContainsFunc(ans.Trace.Router.Reasons, func(s string) bool { return strings.Contains(s, "multi_hop runs as hybrid") }) {
				t.Errorf("router reasons %v do not say why multi_hop ran as hybrid", ans.Trace.Router.Reasons)
			}
		})
	}
}

// laterDownGraph answers entity linking (finding nothing) but fails every later read as
// unavailable: Neo4j went away between linking and the walk.
type laterDownGraph struct{ downGraph }

func (laterDownGraph) EntityCandidates(context.Context, string, []string, int) ([]ariadne.EntityCandidate, error) {
	return nil, nil
}

// TestDegradedWhenGraphGoesAwayMidQuestion: a graph read that fails after linking degrades the
// question (answered from the chunk index, marked, multi_hop as hybrid) instead of failing it;
// with the chunk index down as well, it fails as unavailable.
func TestDegradedWhenGraphGoesAwayMidQuestion(t *testing.T) {
	down := fmt.Errorf("graph: edges: %w", ariadne.ErrUnavailable)
	for _, tc := range []struct {
		name   string
		search ChunkSearcher
		want   ariadne.Status
	}{
		{"chunk index up", fakeSearch{[]ariadne.ScoredChunk{vacation}}, ariadne.StatusAnswered},
		{"chunk index down too", downSearch{}, ariadne.StatusUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRetriever(tc.search, laterDownGraph{downGraph{err: down, reads: &atomic.Int32{}}}, fixedEmbedder{}, nil,
				RetrievalConfig{MinCoverage: 0.01, Retry: retry.Policy{Initial: time.Millisecond, MaxAttempts: 2}}, nil)
			a := NewAnswerer(r, TermExtractive{}, fixedCount(1), AnswerConfig{}, Hooks{}, nil)
			ans, err := a.Answer(context.Background(), Request{Question: "Сколько дней ежегодного оплачиваемого отпуска?", Groups: []string{"all"}, Mode: "multi_hop"}, nil)
			if err != nil || ans.Status != tc.want {
				t.Fatalf("%s, err %v; want %s", ans.Status, err, tc.want)
			}
			if tc.want == ariadne.StatusAnswered && (ans.Route != ariadne.RouteHybrid || !slices.Contains(ans.Degraded, DegradedGraph)) {
				t.Errorf("route %s, degraded %v; want hybrid, degraded graph", ans.Route, ans.Degraded)
			}
		})
	}
}
