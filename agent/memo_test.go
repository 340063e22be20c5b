package agent

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
)

// countingSearch counts searches per mode and closes hybridStarted when the first hybrid search
// begins. Its hits are fixed (none unless set).
type countingSearch struct {
	mu            sync.Mutex
	calls         map[ariadne.SearchMode]int
	hybridStarted chan struct{}
	chunks        []ariadne.ScoredChunk
}

func newCountingSearch(chunks ...ariadne.ScoredChunk) *countingSearch {
	return &countingSearch{calls: map[ariadne.SearchMode]int{}, hybridStarted: make(chan struct{}), chunks: chunks}
}

func (s *countingSearch) Search(_ context.Context, mode ariadne.SearchMode, _ ariadne.SearchQuery) ([]ariadne.ScoredChunk, error) {
	s.mu.Lock()
	s.calls[mode]++
	if mode == ariadne.SearchHybrid && s.calls[mode] == 1 {
		close(s.hybridStarted)
	}
	s.mu.Unlock()
	return append([]ariadne.ScoredChunk(nil), s.chunks...), nil
}

func (s *countingSearch) count(mode ariadne.SearchMode) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[mode]
}

// linkAfterSearch is a graph whose entity linking returns only once a hybrid search has begun:
// a retriever that searches only after linking waits out its 2 s and fails.
type linkAfterSearch struct {
	emptyGraph
	started <-chan struct{}
}

func (g linkAfterSearch) EntityCandidates(ctx context.Context, _ string, _ []string, _ int) ([]ariadne.EntityCandidate, error) {
	select {
	case <-g.started:
		return nil, nil
	case <-time.After(2 * time.Second):
		return nil, errors.New("linking ended before any hybrid search began")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func TestRetrieveSearchesWhileLinking(t *testing.T) {
	for _, mode := range []string{"hybrid", "multi_hop", "auto"} {
		t.Run(mode, func(t *testing.T) {
			s := newCountingSearch(vacation)
			r := NewRetriever(s, linkAfterSearch{started: s.hybridStarted}, fixedEmbedder{}, nil, RetrievalConfig{}, nil)
			res, err := r.Retrieve(context.Background(), Request{Question: "Сколько дней длится ежегодный отпуск?", Groups: []string{"all"}, Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Chunks) == 0 || res.Chunks[0].ID != vacation.ID {
				t.Fatalf("chunks %v, want %s first", res.Chunks, vacation.ID)
			}
			if n := s.count(ariadne.SearchHybrid); n != 1 {
				t.Errorf("%d hybrid searches, want 1 (the prefetched one, reused by the route)", n)
			}
			if _, ok := res.Trace.Timings["prefetch_hybrid"]; !ok {
				t.Errorf("timings %v lack prefetch_hybrid", res.Trace.Timings)
			}
		})
	}
}

// With no hits, the simple route (vector search: no entity, no code in the question) escalates to
// hybrid and then to multi_hop, whose first pass is a hybrid and a vector search: each of the two
// searches reaches the store once.
func TestEscalationReusesSearches(t *testing.T) {
	s := newCountingSearch()
	r := NewRetriever(s, emptyGraph{}, fixedEmbedder{}, nil, RetrievalConfig{}, nil)
	res, err := r.Retrieve(context.Background(), Request{Question: "how long is the annual leave", Groups: []string{"all"}, Mode: "simple"})
	if err != nil {
		t.Fatal(err)
	}
	var got []Strategy
	for _, st := range res.Trace.Steps {
		got = append(got, st.Strategy)
	}
	want := []Strategy{StrategyVector, StrategyHybrid, StrategyGraph}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("steps %v, want %v", got, want)
	}
	if res.Route != ariadne.RouteMultiHop {
		t.Errorf("route %s, want multi_hop", res.Route)
	}
	for mode, want := range map[ariadne.SearchMode]int{ariadne.SearchVector: 1, ariadne.SearchHybrid: 1, ariadne.SearchBM25: 0} {
		if n := s.count(mode); n != want {
			t.Errorf("%s searches: %d, want %d", mode, n, want)
		}
	}
}

// Run (one strategy, used by evaluation) has no memo: each call searches.
func TestRunSearchesEachTime(t *testing.T) {
	s := newCountingSearch(vacation)
	r := NewRetriever(s, emptyGraph{}, fixedEmbedder{}, nil, RetrievalConfig{}, nil)
	for i := 0; i < 2; i++ {
		if _, err := r.Run(context.Background(), StrategyHybrid, Request{Question: "отпуск", Groups: []string{"all"}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.count(ariadne.SearchHybrid); n != 2 {
		t.Errorf("%d hybrid searches, want 2", n)
	}
}
