package agent

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// flakyIndex fails every search as unavailable while down is set, and counts the calls.
type flakyIndex struct {
	fakeSearch
	down  atomic.Bool
	calls atomic.Int32
}

func (d *flakyIndex) Search(ctx context.Context, mode ariadne.SearchMode, q ariadne.SearchQuery) ([]ariadne.ScoredChunk, error) {
	d.calls.Add(1)
	if d.down.Load() {
		return nil, errors.Join(ariadne.ErrUnavailable, errors.New("vector: dial tcp 127.0.0.1:8080: connection refused"))
	}
	return d.fakeSearch.Search(ctx, mode, q)
}

// TestSearchBreaker: with Weaviate down, the first retrieval fails after its retries and opens
// the breaker; the next fails at once without calling Weaviate, as unavailable; once the open
// interval has passed and Weaviate is back, retrieval works again.
func TestSearchBreaker(t *testing.T) {
	chunk := ariadne.ScoredChunk{Score: 0.9, Chunk: ariadne.Chunk{ID: "policies/vacation#0000-aaaaaaaa", DocID: "policies/vacation", ACL: []string{"all"},
		Text: "Employees get 28 calendar days of annual leave."}}
	s := &flakyIndex{fakeSearch: fakeSearch{[]ariadne.ScoredChunk{chunk}}}
	r := NewRetriever(s, emptyGraph{}, fixedEmbedder{}, nil, RetrievalConfig{MinCoverage: 0.01, SearchOpen: 300 * time.Millisecond,
		Retry: retry.Policy{Initial: time.Millisecond, Max: 5 * time.Millisecond, MaxAttempts: 3, MaxElapsed: time.Second}}, nil)
	req := Request{Question: "How many days of annual leave?", Groups: []string{"all"}, Mode: "hybrid"}
	s.down.Store(true)
	if _, err := r.Retrieve(context.Background(), req); !errors.Is(err, ariadne.ErrUnavailable) || errors.Is(err, errSearchesOpen) {
		t.Fatalf("first retrieval with Weaviate down: %v, want unavailable after the retries", err)
	}
	before := s.calls.Load()
	start := time.Now()
	_, err := r.Retrieve(context.Background(), req)
	if !errors.Is(err, ariadne.ErrUnavailable) || !errors.Is(err, errSearchesOpen) || s.calls.Load() != before || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("second retrieval: %v after %s, %d more calls; want the breaker's refusal at once, no call", err, time.Since(start), s.calls.Load()-before)
	}
	s.down.Store(false)
	time.Sleep(350 * time.Millisecond)
	res, err := r.Retrieve(context.Background(), req)
	if err != nil || len(res.Chunks) != 1 || res.Chunks[0].ID != chunk.ID {
		t.Fatalf("after Weaviate is back: %v %v", err, res.Chunks)
	}
}
