package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sony/gobreaker/v2"
	"golang.org/x/sync/errgroup"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/breaker"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// Retriever routes questions and retrieves evidence.
type Retriever struct {
	chunks ChunkSearcher
	graph  GraphReader
	embed  QueryEmbedder
	router Router
	cfg    RetrievalConfig
	log    *slog.Logger
	names  *nameCache // entity-name embeddings for the walk
	// searches is the chunk index's circuit breaker (newSearchBreaker): once a search found
	// Weaviate unavailable after its retries, the searches of the next SearchOpen fail at once.
	searches *gobreaker.CircuitBreaker[[]ariadne.ScoredChunk]
}

// NewRetriever assembles a retriever; router nil means RuleRouter.
func NewRetriever(chunks ChunkSearcher, g GraphReader, embed QueryEmbedder, router Router, cfg RetrievalConfig, log *slog.Logger) *Retriever {
	if router == nil {
		router = RuleRouter{}
	}
	if log == nil {
		log = slog.Default()
	}
	if cfg.WalkSynonym == 0 && embed != nil {
		cfg.WalkSynonym = DefaultSynonymMin(embed.Name())
	}
	cfg = cfg.withDefaults()
	return &Retriever{chunks: chunks, graph: g, embed: embed, router: router, cfg: cfg, log: log, names: newNameCache(200000),
		searches: newSearchBreaker(cfg.SearchOpen)}
}

// Request is one retrieval.
type Request struct {
	Question string
	Groups   []string // the caller's permission groups
	Mode     string   // "auto" (route) or a route to force
	TopK     int      // chunks returned (8)
	memo     *searchMemo
}

// Retrieve routes the question (unless Mode forces a route), runs the route's plan, and escalates
// simple → hybrid → multi_hop while the evidence is weak. Every step is in the trace. When entity
// linking finds the graph store unavailable, the question is degraded rather than failed: no
// linked entities, multi_hop runs as hybrid and is not escalated to, and the trace's Degraded
// says DegradedGraph. Errors wrap ariadne.ErrUnavailable when a store stayed down past the retry
// window (the chunk index, the embedder, or the graph after linking) and ariadne.ErrInvalid for
// bad input.
func (r *Retriever) Retrieve(ctx context.Context, req Request) (Result, error) {
	if strings.TrimSpace(req.Question) == "" {
		return Result{}, fmt.Errorf("agent: empty question: %w", ariadne.ErrInvalid)
	}
	if len(req.Groups) == 0 {
		return Result{}, fmt.Errorf("agent: no permission groups: %w", ariadne.ErrInvalid)
	}
	if req.TopK <= 0 {
		req.TopK = 8
	}
	if m := ariadne.Route(req.Mode); req.Mode != "" && req.Mode != "auto" && !m.Valid() {
		return Result{}, fmt.Errorf("agent: mode %q (want auto, simple, hybrid or multi_hop): %w", req.Mode, ariadne.ErrInvalid)
	}
	tr := newTrace()
	start := time.Now()
	mctx, cancel := context.WithCancel(ctx)
	defer cancel() // a prefetched search no route used
	req.memo = newSearchMemo(mctx)
	// Entity linking (Neo4j) and the question embedding do not depend on each other: they run at
	// once, and the question waits for the slower. The hybrid search starts once the vector
	// exists, while linking may still run (searchMemo).
	var linked []Linked
	var vec []float32
	g, gctx := errgroup.WithContext(ctx)
	var graphDown error
	g.Go(func() (err error) {
		linked, err = r.Link(gctx, req.Question, req.Groups)
		tr.time("link", start)
		if err != nil && errors.Is(err, ariadne.ErrUnavailable) && gctx.Err() == nil {
			// Degraded: the graph store is down, the chunk index may not be (the search runs
			// on and fails the request if it is down too).
			graphDown, linked, err = err, nil, nil
		}
		return err
	})
	g.Go(func() (err error) {
		if vec, err = r.embedQuery(gctx, req.Question, tr); err == nil {
			r.prefetch(req, vec, tr)
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return Result{Trace: tr}, err
	}
	tr.Linked = linked
	if graphDown != nil {
		tr.Degraded = append(tr.Degraded, DegradedGraph)
		r.log.Warn("the graph store is unavailable: answering from the chunk index alone", "err", graphDown)
	}
	switch req.Mode {
	case "", "auto":
		if fr, ok := r.router.(firstPassRouter); ok && graphDown == nil {
			t0 := time.Now()
			fp, err := r.firstPass(ctx, req, vec, tr)
			if err != nil {
				return Result{Trace: tr}, err
			}
			tr.time("first_pass", t0)
			tr.Router = fr.RouteFirstPass(ctx, req.Question, wholeLinks(linked), fp)
		} else {
			tr.Router = r.router.Route(ctx, req.Question, wholeLinks(linked))
		}
	default:
		tr.Router = Decision{Route: ariadne.Route(req.Mode), Classifier: "forced", Reasons: []string{"mode forced by the caller"}}
	}
	route := tr.Router.Route
	if graphDown != nil && route == ariadne.RouteMultiHop {
		// Without the graph there is no walk and no chain: the hybrid search is what is left.
		route = ariadne.RouteHybrid
		tr.Router.Reasons = append(tr.Router.Reasons, "the graph store is unavailable: multi_hop runs as hybrid")
	}
	for {
		res, err := r.runRoute(ctx, route, req, vec, linked, tr)
		if err != nil && graphDown == nil && (route == ariadne.RouteMultiHop || len(linked) > 0) &&
			errors.Is(err, ariadne.ErrUnavailable) && ctx.Err() == nil {
			// A store went away after linking (Neo4j killed mid-question: a walk read failed). If
			// it was the graph, the chunk index alone still answers, degraded; if it was the chunk
			// index, the hybrid search fails too and the question with it.
			graphDown, linked = err, nil
			tr.Linked = nil
			tr.Degraded = append(tr.Degraded, DegradedGraph)
			r.log.Warn("a graph read failed after linking: answering from the chunk index alone", "err", err)
			if route == ariadne.RouteMultiHop {
				route = ariadne.RouteHybrid
				tr.Router.Reasons = append(tr.Router.Reasons, "the graph store became unavailable: multi_hop runs as hybrid")
			}
			continue
		}
		if err != nil {
			return Result{Route: route, Trace: tr}, err
		}
		next, ok := escalation(route)
		if graphDown != nil && next == ariadne.RouteMultiHop {
			ok = false // the multi_hop route needs the graph
		}
		if !res.Evidence.Weak || !ok {
			res.Route, res.Trace, res.Linked = route, tr, linked
			if len(res.Chunks) > req.TopK {
				res.Chunks = res.Chunks[:req.TopK]
			}
			tr.time("total", start)
			return res, nil
		}
		tr.note("weak evidence: escalating to " + string(next))
		route = next
	}
}

func escalation(r ariadne.Route) (ariadne.Route, bool) {
	switch r {
	case ariadne.RouteSimple:
		return ariadne.RouteHybrid, true
	case ariadne.RouteHybrid:
		return ariadne.RouteMultiHop, true
	}
	return "", false
}

// Run runs one strategy without routing or escalation (evaluation compares strategies side by
// side with it). It embeds the question itself.
func (r *Retriever) Run(ctx context.Context, s Strategy, req Request) (Result, error) {
	if req.TopK <= 0 {
		req.TopK = 8
	}
	tr := newTrace()
	var linked []Linked
	var err error
	if s == StrategyGraph || s == StrategyWalk {
		if linked, err = r.Link(ctx, req.Question, req.Groups); err != nil {
			return Result{Trace: tr}, err
		}
		tr.Linked = linked
	}
	var vec []float32
	if s != StrategyBM25 {
		if vec, err = r.embedQuery(ctx, req.Question, tr); err != nil {
			return Result{Trace: tr}, err
		}
	}
	res, err := r.runStrategy(ctx, s, req, vec, linked, tr)
	if len(res.Chunks) > req.TopK {
		res.Chunks = res.Chunks[:req.TopK]
	}
	res.Trace = tr
	return res, err
}

func (r *Retriever) embedQuery(ctx context.Context, q string, tr *Trace) ([]float32, error) {
	start := time.Now()
	defer tr.time("embed", start)
	v, err := r.embed.EmbedQuery(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("agent: embed question with %s: %w", r.embed.Name(), err)
	}
	return v, nil
}

// search runs one Weaviate search, retrying transient faults (this is the only layer that retries
// Weaviate). Searches pass the retriever's circuit breaker: after one that found Weaviate
// unavailable past its retries (about 20 s), searches fail at once (ErrUnavailable) for
// SearchOpen, then one search tries Weaviate again while the others keep failing — so that with
// Weaviate down every question is answered 503 at once instead of after 20 s of retries apiece
// (README trial).
func (r *Retriever) search(ctx context.Context, mode ariadne.SearchMode, q ariadne.SearchQuery, tr *Trace) ([]ariadne.ScoredChunk, error) {
	out, err := r.searches.Execute(func() ([]ariadne.ScoredChunk, error) { return r.retrySearch(ctx, mode, q, tr) })
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return nil, fmt.Errorf("agent: %s search: vector: %w", mode, errors.Join(ariadne.ErrUnavailable, errSearchesOpen))
	}
	return out, err
}

var errSearchesOpen = errors.New("the chunk index (Weaviate) was unavailable a moment ago; searches fail at once until one reaches it")

// newSearchBreaker is the chunk index's breaker: one search that found Weaviate unavailable opens
// it for open (10 s when zero); half-open, one search tries while the others fail. A cancelled or
// timed-out request, and errors other than ErrUnavailable (bad input), count as successes.
func newSearchBreaker(open time.Duration) *gobreaker.CircuitBreaker[[]ariadne.ScoredChunk] {
	unavailable := func(err error) bool { return errors.Is(err, ariadne.ErrUnavailable) }
	return gobreaker.NewCircuitBreaker[[]ariadne.ScoredChunk](breaker.Settings("weaviate-searches", open, unavailable, nil))
}

// retrySearch is search without the breaker.
func (r *Retriever) retrySearch(ctx context.Context, mode ariadne.SearchMode, q ariadne.SearchQuery, tr *Trace) ([]ariadne.ScoredChunk, error) {
	var out []ariadne.ScoredChunk
	err := retry.Do(ctx, r.cfg.Retry, func(ctx context.Context) error {
		var err error
		out, err = r.chunks.Search(ctx, mode, q)
		return err
	}, func(a retry.Attempt) {
		tr.addRetry("weaviate "+string(mode), a)
		r.log.Warn("Weaviate search failed; retrying", "mode", mode, "attempt", a.Number, "wait", a.Wait, "err", a.Err)
	})
	if err != nil && retry.Transient(err) && !errors.Is(err, ariadne.ErrUnavailable) {
		err = fmt.Errorf("agent: %s search: %w", mode, errors.Join(ariadne.ErrUnavailable, err))
	}
	return out, err
}
