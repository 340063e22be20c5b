package agent

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/ariadne-graphrag/ariadne"
)

// searchMemo runs each of a question's unrestricted searches — hybrid or vector over all the
// caller's chunks, RetrievalConfig.Candidates hits — at most once per Retrieve call. Retrieve
// starts the hybrid search (which the simple route with a lexical cue or a linked entity, the
// hybrid route and multi_hop's first pass all run) as soon as the question's vector exists, so it
// runs in Weaviate while entity linking runs in Neo4j instead of after it; and a route that
// escalates (simple → hybrid → multi_hop) reuses the searches of the route before it instead of
// sending them again.
//
// The searches run under the memo's own context (Retrieve's, cancelled when Retrieve returns), not
// the first caller's: a caller's errgroup context ends when its group does, and a search it
// started must still serve the next route. A caller waits for a search or for its own ctx.
type searchMemo struct {
	ctx   context.Context
	mu    sync.Mutex
	calls map[ariadne.SearchMode]*memoCall
}

type memoCall struct {
	done   chan struct{}
	chunks []ariadne.ScoredChunk
	err    error
}

func newSearchMemo(ctx context.Context) *searchMemo {
	return &searchMemo{ctx: ctx, calls: map[ariadne.SearchMode]*memoCall{}}
}

// start runs search for mode in the background unless it has already started.
func (m *searchMemo) start(mode ariadne.SearchMode, search func(context.Context) ([]ariadne.ScoredChunk, error)) *memoCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.calls[mode]; ok {
		return c
	}
	c := &memoCall{done: make(chan struct{})}
	m.calls[mode] = c
	go func() {
		defer close(c.done)
		c.chunks, c.err = search(m.ctx)
	}()
	return c
}

// do returns mode's search result, starting the search if no one has. Each caller gets its own
// copy of the hits (routes set their Sources).
func (m *searchMemo) do(ctx context.Context, mode ariadne.SearchMode, search func(context.Context) ([]ariadne.ScoredChunk, error)) ([]ariadne.ScoredChunk, error) {
	c := m.start(mode, search)
	select {
	case <-c.done:
		return slices.Clone(c.chunks), c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// questionSearch runs an unrestricted search of the question (mode SearchHybrid or SearchVector,
// Candidates hits), through the request's memo when it has one (Retrieve; Run has none).
func (r *Retriever) questionSearch(ctx context.Context, mode ariadne.SearchMode, req Request, vec []float32, tr *Trace) ([]ariadne.ScoredChunk, error) {
	if req.memo == nil {
		return r.unrestricted(mode, req, vec, tr)(ctx)
	}
	return req.memo.do(ctx, mode, r.unrestricted(mode, req, vec, tr))
}

// unrestricted is the search questionSearch runs for mode.
func (r *Retriever) unrestricted(mode ariadne.SearchMode, req Request, vec []float32, tr *Trace) func(context.Context) ([]ariadne.ScoredChunk, error) {
	return func(ctx context.Context) ([]ariadne.ScoredChunk, error) {
		if mode == ariadne.SearchHybrid {
			return r.hybrid(ctx, req, vec, nil, tr)
		}
		return r.search(ctx, mode, ariadne.SearchQuery{Vector: vec, Groups: req.Groups, Limit: r.cfg.Candidates}, tr)
	}
}

// prefetch starts the hybrid search (the usual first search of every route) and, when the caller
// forced multi_hop, its vector search too; the trace times each as "prefetch_<mode>".
func (r *Retriever) prefetch(req Request, vec []float32, tr *Trace) {
	modes := []ariadne.SearchMode{ariadne.SearchHybrid}
	if req.Mode == string(ariadne.RouteMultiHop) {
		modes = append(modes, ariadne.SearchVector)
	}
	for _, mode := range modes {
		search := r.unrestricted(mode, req, vec, tr)
		req.memo.start(mode, func(ctx context.Context) ([]ariadne.ScoredChunk, error) {
			defer tr.time("prefetch_"+string(mode), time.Now())
			return search(ctx)
		})
	}
}
