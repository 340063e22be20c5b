package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/resolution"
	"github.com/ariadne-graphrag/ariadne/retry"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// ChunkSearcher searches the chunk index (vector.Store).
type ChunkSearcher interface {
	Search(ctx context.Context, mode ariadne.SearchMode, q ariadne.SearchQuery) ([]ariadne.ScoredChunk, error)
}

// GraphReader reads the entity graph (graph.Store).
type GraphReader interface {
	EntityCandidates(ctx context.Context, text string, groups []string, limit int) ([]ariadne.EntityCandidate, error)
	Edges(ctx context.Context, keys, groups, relTypes []string, limit int) ([]ariadne.Edge, error)
	EntitiesOfChunks(ctx context.Context, ids, groups []string) (map[string][]string, error)
	DocumentChunkIDs(ctx context.Context, docIDs, groups []string) ([]string, error)
}

// QueryEmbedder embeds questions.
type QueryEmbedder interface {
	Name() string
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Router classifies questions (RuleRouter, LLMRouter).
type Router interface {
	Route(ctx context.Context, question string, linked []Linked) Decision
}

// Strategy is one retrieval strategy; the routed retriever picks among them.
type Strategy string

// Strategies, for routing and for evaluation side by side.
const (
	StrategyBM25   Strategy = "bm25"
	StrategyVector Strategy = "vector"
	StrategyHybrid Strategy = "hybrid"
	StrategyGraph  Strategy = "graph+hybrid"
)

// RetrievalConfig tunes retrieval. Zero values take the defaults in parentheses.
type RetrievalConfig struct {
	Alpha          float64        // hybrid weight of the vector side (0.5; see DefaultAlpha)
	Fusion         ariadne.Fusion // hybrid fusion (relative_score)
	Candidates     int            // hits fetched per list before fusion (30)
	MaxHops        int            // depth of the graph neighbourhood read around the seeds (2)
	MaxPaths       int            // paths kept for evidence (12)
	MaxGraphDocs   int            // documents whose chunks join the graph candidates (12)
	PerDoc         int            // multi_hop: chunks of one document ranked ahead of other documents (1)
	GraphWeight    float64        // multi_hop: RRF weight of each graph list next to hybrid's 1 (0.5)
	MinHits        int            // fewer hits than this is weak evidence (1)
	MinVectorScore float64        // top cosine below this is weak evidence (0: disabled)
	MinCoverage    float64        // share of question terms the top hits must contain (0.25)
	RelTypes       []string       // relationship types traversed (all)
	Retry          retry.Policy   // for Weaviate calls (10 attempts within 20s)
}

func (c RetrievalConfig) withDefaults() RetrievalConfig {
	if c.Alpha == 0 {
		c.Alpha = 0.5
	}
	if c.Fusion == "" {
		c.Fusion = ariadne.FusionRelativeScore
	}
	if c.Candidates <= 0 {
		c.Candidates = 30
	}
	if c.MaxHops <= 0 {
		c.MaxHops = 2
	}
	if c.MaxPaths <= 0 {
		c.MaxPaths = 12
	}
	if c.MaxGraphDocs <= 0 {
		c.MaxGraphDocs = 12
	}
	if c.PerDoc <= 0 {
		c.PerDoc = 1
	}
	if c.GraphWeight <= 0 {
		// Two graph lists at full weight outvote hybrid even when the graph is noise (MuSiQue's
		// title graph); at 0.5 they add evidence without drowning it (docs/evaluation.md).
		c.GraphWeight = 0.5
	}
	if c.MinHits <= 0 {
		c.MinHits = 1
	}
	if c.MinCoverage == 0 {
		c.MinCoverage = 0.25
	}
	if (c.Retry == retry.Policy{}) {
		c.Retry = retry.Policy{Initial: 250 * time.Millisecond, Max: 4 * time.Second, MaxAttempts: 10, MaxElapsed: 20 * time.Second}
	}
	return c
}

// DefaultAlpha returns the hybrid weight of the vector side for an embedder: 0.3 for the lexical
// embedder, whose vectors repeat what BM25 over analyzed terms already sees and add noise; 0.5 for
// semantic models. Measured on the golden dev set (docs/evaluation.md).
func DefaultAlpha(embedderName string) float64 {
	if strings.HasPrefix(embedderName, "lexical") {
		return 0.3
	}
	return 0.5
}

// DefaultMinVectorScore returns the weak-evidence floor for an embedder's cosine scores: they live
// on different scales (the lexical embedder's matches score 0.2–0.6, e5's 0.75–0.9).
func DefaultMinVectorScore(embedderName string) float64 {
	switch {
	case strings.HasPrefix(embedderName, "lexical"):
		return 0.12
	case strings.Contains(embedderName, "e5"):
		return 0.78
	}
	return 0
}

// Retriever routes questions and retrieves evidence.
type Retriever struct {
	chunks ChunkSearcher
	graph  GraphReader
	embed  QueryEmbedder
	router Router
	cfg    RetrievalConfig
	log    *slog.Logger
}

// NewRetriever assembles a retriever; router nil means RuleRouter.
func NewRetriever(chunks ChunkSearcher, g GraphReader, embed QueryEmbedder, router Router, cfg RetrievalConfig, log *slog.Logger) *Retriever {
	if router == nil {
		router = RuleRouter{}
	}
	if log == nil {
		log = slog.Default()
	}
	return &Retriever{chunks: chunks, graph: g, embed: embed, router: router, cfg: cfg.withDefaults(), log: log}
}

// Request is one retrieval.
type Request struct {
	Question string
	Groups   []string // the caller's permission groups
	Mode     string   // "auto" (route) or a route to force
	TopK     int      // chunks returned (8)
}

// Step records one retrieval attempt in the trace.
type Step struct {
	Strategy   Strategy `json:"strategy"`
	Hits       int      `json:"hits"`
	TopScore   float64  `json:"top_score"`
	Coverage   float64  `json:"coverage"`
	Weak       bool     `json:"weak"`
	Note       string   `json:"note,omitempty"`
	DurationMS float64  `json:"duration_ms"`
}

// RetryEvent records a retried call in the trace.
type RetryEvent struct {
	Operation string  `json:"operation"`
	Attempt   int     `json:"attempt"`
	WaitMS    float64 `json:"wait_ms"`
	Error     string  `json:"error"` // retry.Describe: the kind of fault, no addresses
}

// Trace explains a retrieval.
type Trace struct {
	Router  Decision           `json:"router"`
	Linked  []Linked           `json:"linked_entities"`
	Steps   []Step             `json:"steps"`
	Retries []RetryEvent       `json:"retries"`
	Timings map[string]float64 `json:"timings_ms"`
	mu      sync.Mutex
}

func (t *Trace) addRetry(op string, a retry.Attempt) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.Retries = append(t.Retries, RetryEvent{Operation: op, Attempt: a.Number, WaitMS: ms(a.Wait), Error: retry.Describe(a.Err)})
}

func (t *Trace) time(name string, start time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.Timings == nil {
		t.Timings = map[string]float64{}
	}
	t.Timings[name] += ms(time.Since(start))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Result is retrieved evidence.
type Result struct {
	Route  ariadne.Route
	Chunks []ariadne.ScoredChunk // best first
	Paths  []ariadne.Path        // multi_hop: graph paths whose edges support returned chunks
	Trace  *Trace
}

// Retrieve routes the question (unless Mode forces a route), runs the route's plan, and escalates
// simple → hybrid → multi_hop while the evidence is weak. Every step is in the trace. Errors wrap
// ariadne.ErrUnavailable when a store stayed down past the retry window and ariadne.ErrInvalid for
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
	tr := &Trace{}
	start := time.Now()
	linked, err := r.Link(ctx, req.Question, req.Groups)
	if err != nil {
		return Result{Trace: tr}, err
	}
	tr.Linked = linked
	tr.time("link", start)

	switch req.Mode {
	case "", "auto":
		tr.Router = r.router.Route(ctx, req.Question, linked)
	default:
		route := ariadne.Route(req.Mode)
		if !route.Valid() {
			return Result{Trace: tr}, fmt.Errorf("agent: mode %q (want auto, simple, hybrid or multi_hop): %w", req.Mode, ariadne.ErrInvalid)
		}
		tr.Router = Decision{Route: route, Classifier: "forced", Reasons: []string{"mode forced by the caller"}}
	}

	vec, err := r.embedQuery(ctx, req.Question, tr)
	if err != nil {
		return Result{Trace: tr}, err
	}
	route := tr.Router.Route
	for {
		res, err := r.runRoute(ctx, route, req, vec, linked, tr)
		if err != nil {
			return Result{Route: route, Trace: tr}, err
		}
		last := &tr.Steps[len(tr.Steps)-1]
		next, ok := escalation(route)
		if !last.Weak || !ok {
			res.Route, res.Trace = route, tr
			if len(res.Chunks) > req.TopK {
				res.Chunks = res.Chunks[:req.TopK]
			}
			tr.time("total", start)
			return res, nil
		}
		last.Note = strings.TrimSpace(last.Note + "; weak evidence: escalating to " + string(next))
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

// runRoute runs one route's plan and appends its step.
func (r *Retriever) runRoute(ctx context.Context, route ariadne.Route, req Request, vec []float32, linked []Linked, tr *Trace) (Result, error) {
	switch route {
	case ariadne.RouteSimple:
		strategy := StrategyVector
		if lexicalWeight(tr.Router.Features) > 0 || len(linked) > 0 {
			// A strong lexical signal — a code, or a name of a known entity — needs BM25.
			strategy = StrategyHybrid
		}
		return r.withLinkedDocuments(ctx, strategy, req, vec, linked, tr)
	case ariadne.RouteHybrid:
		return r.withLinkedDocuments(ctx, StrategyHybrid, req, vec, linked, tr)
	default:
		return r.runStrategy(ctx, StrategyGraph, req, vec, linked, tr)
	}
}

// withLinkedDocuments runs a single-lookup strategy and, when the question names documented
// entities, fuses (RRF) its hits with the most relevant chunks of those entities' own documents:
// a name in the question points at the page about it. At most two chunks per document lead the
// list.
func (r *Retriever) withLinkedDocuments(ctx context.Context, s Strategy, req Request, vec []float32, linked []Linked, tr *Trace) (Result, error) {
	res, err := r.runStrategy(ctx, s, req, vec, linked, tr)
	if err != nil {
		return res, err
	}
	var docs []string
	for _, l := range linked {
		if strings.Contains(l.Key, "/") && !slices.Contains(docs, l.Key) {
			docs = append(docs, l.Key) // documented entities are keyed by their document id
		}
	}
	if len(docs) > 0 {
		ids, err := r.graph.DocumentChunkIDs(ctx, docs, req.Groups)
		if err != nil {
			return res, err
		}
		if len(ids) > 0 {
			own, err := r.hybrid(ctx, req, vec, ids, tr)
			if err != nil {
				return res, err
			}
			for i := range own {
				own[i].Sources = []string{"linked"}
			}
			res.Chunks = FuseRRF(res.Chunks, diversify(own, 1))
			tr.Steps[len(tr.Steps)-1].Note = strings.TrimSpace(tr.Steps[len(tr.Steps)-1].Note + fmt.Sprintf("; fused with the pages of %d linked entities", len(docs)))
		}
	}
	res.Chunks = diversify(res.Chunks, 2)
	return res, nil
}

// Run runs one strategy without routing or escalation (evaluation compares strategies side by
// side with it). It embeds the question itself.
func (r *Retriever) Run(ctx context.Context, s Strategy, req Request) (Result, error) {
	if req.TopK <= 0 {
		req.TopK = 8
	}
	tr := &Trace{}
	var linked []Linked
	var err error
	if s == StrategyGraph {
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

func (r *Retriever) runStrategy(ctx context.Context, s Strategy, req Request, vec []float32, linked []Linked, tr *Trace) (Result, error) {
	start := time.Now()
	var res Result
	var err error
	note := ""
	switch s {
	case StrategyBM25:
		res.Chunks, err = r.search(ctx, ariadne.SearchBM25, ariadne.SearchQuery{Text: req.Question, Terms: textnorm.SearchTerms(req.Question), Groups: req.Groups, Limit: r.cfg.Candidates}, tr)
	case StrategyVector:
		res.Chunks, err = r.search(ctx, ariadne.SearchVector, ariadne.SearchQuery{Vector: vec, Groups: req.Groups, Limit: r.cfg.Candidates}, tr)
	case StrategyHybrid:
		res.Chunks, err = r.hybrid(ctx, req, vec, nil, tr)
	case StrategyGraph:
		res, note, err = r.graphHybrid(ctx, req, vec, linked, tr)
	default:
		err = fmt.Errorf("agent: unknown strategy %q: %w", s, ariadne.ErrInvalid)
	}
	tr.time(string(s), start)
	if err != nil {
		return res, err
	}
	step := Step{Strategy: s, Hits: len(res.Chunks), Note: note, DurationMS: ms(time.Since(start))}
	if len(res.Chunks) > 0 {
		step.TopScore = res.Chunks[0].Score
	}
	step.Coverage = coverage(req.Question, res.Chunks, 3)
	step.Weak = r.weak(s, step)
	tr.mu.Lock()
	tr.Steps = append(tr.Steps, step)
	tr.mu.Unlock()
	return res, nil
}

// weak decides whether a step's evidence is too weak to stop at: too few hits, or (for vector
// search) a top cosine below the embedder's floor while the top hits share few of the question's
// terms.
func (r *Retriever) weak(s Strategy, st Step) bool {
	if st.Hits < r.cfg.MinHits {
		return true
	}
	if s == StrategyVector && r.cfg.MinVectorScore > 0 && st.TopScore < r.cfg.MinVectorScore && st.Coverage < r.cfg.MinCoverage {
		return true
	}
	return st.Coverage < r.cfg.MinCoverage/2
}

// coverage is the share of the question's search terms found in the top n chunks' text.
func coverage(question string, chunks []ariadne.ScoredChunk, n int) float64 {
	q := dedupeStrings(textnorm.SearchTerms(question))
	if len(q) == 0 {
		return 1
	}
	have := map[string]bool{}
	for i, c := range chunks {
		if i == n {
			break
		}
		for _, t := range textnorm.SearchTerms(c.ContextText()) {
			have[t] = true
		}
	}
	hit := 0
	for _, t := range q {
		if have[t] {
			hit++
		}
	}
	return float64(hit) / float64(len(q))
}

func dedupeStrings(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
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
// Weaviate).
func (r *Retriever) search(ctx context.Context, mode ariadne.SearchMode, q ariadne.SearchQuery, tr *Trace) ([]ariadne.ScoredChunk, error) {
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

func (r *Retriever) hybrid(ctx context.Context, req Request, vec []float32, ids []string, tr *Trace) ([]ariadne.ScoredChunk, error) {
	return r.search(ctx, ariadne.SearchHybrid, ariadne.SearchQuery{Text: req.Question, Terms: textnorm.SearchTerms(req.Question), Vector: vec, Alpha: r.cfg.Alpha,
		Fusion: r.cfg.Fusion, Groups: req.Groups, Limit: r.cfg.Candidates, ChunkIDs: ids}, tr)
}

// Link finds the entities a question names among those the caller (groups) may see: the entity
// fulltext index proposes candidates, as the caller's views, and the resolver's matcher (the same
// normalization, transliteration and inflection rules used at ingestion) confirms them in the
// question text. A name only a restricted document gives is never matched for a caller who may
// not read it.
func (r *Retriever) Link(ctx context.Context, question string, groups []string) ([]Linked, error) {
	cands, err := r.graph.EntityCandidates(ctx, question, groups, 60)
	if err != nil {
		return nil, fmt.Errorf("agent: link entities: %w", err)
	}
	reg := resolution.NewRegistry(nil)
	byKey := map[string]ariadne.EntityCandidate{}
	for _, c := range cands {
		reg.Load(c.Entity, c.Context, c.QuotedAliases)
		byKey[c.Key] = c
	}
	var out []Linked
	seen := map[string]bool{}
	for _, m := range reg.Matcher().Find(question) {
		if len(m.Keys) > 3 {
			continue // too ambiguous to be evidence
		}
		for _, k := range m.Keys {
			if seen[k] {
				continue
			}
			seen[k] = true
			c := byKey[k]
			out = append(out, Linked{Key: k, Name: c.Name, Type: c.Type, Surface: m.Surface, LatinName: !hasCyrillic(c.Name)})
		}
	}
	return out, nil
}

// rrfK is the constant of reciprocal rank fusion.
const rrfK = 60

// FuseRRF merges ranked lists by reciprocal rank fusion: each chunk scores Σ 1/(k + rank) over the
// lists that contain it (rank from 1), k = 60 (Cormack, Clarke and Büttcher, "Reciprocal Rank
// Fusion outperforms Condorcet and individual rank learning methods", SIGIR 2009). Ties keep the
// order of first appearance. Sources are merged.
func FuseRRF(lists ...[]ariadne.ScoredChunk) []ariadne.ScoredChunk {
	weights := make([]float64, len(lists))
	for i := range weights {
		weights[i] = 1
	}
	return FuseRRFWeighted(lists, weights)
}

// FuseRRFWeighted is FuseRRF with a weight per list: a chunk scores Σ w_i/(k + rank_i).
func FuseRRFWeighted(lists [][]ariadne.ScoredChunk, weights []float64) []ariadne.ScoredChunk {
	type acc struct {
		c     ariadne.ScoredChunk
		score float64
		first int
	}
	byID := map[string]*acc{}
	order := 0
	for li, list := range lists {
		for rank, c := range list {
			a, ok := byID[c.ID]
			if !ok {
				a = &acc{c: c, first: order}
				a.c.Sources = nil
				byID[c.ID] = a
				order++
			}
			a.score += weights[li] / float64(rrfK+rank+1)
			for _, s := range c.Sources {
				if !slices.Contains(a.c.Sources, s) {
					a.c.Sources = append(a.c.Sources, s)
				}
			}
		}
	}
	out := make([]*acc, 0, len(byID))
	for _, a := range byID {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].first < out[j].first
	})
	res := make([]ariadne.ScoredChunk, len(out))
	for i, a := range out {
		res[i] = a.c
		res[i].Score = a.score
	}
	return res
}

// graphHybrid is the multi_hop plan. Seeds are the entities the question names (weight 1) and
// the entities mentioned by the top hybrid hits (weight 0.5/rank). Around them the graph is read
// two hops deep (readable edges only) and nodes are scored by Personalized PageRank. Candidate
// chunks are the provenance of those edges and the chunks of the documents that describe the
// best-scored entities; they are ranked twice — by hybrid relevance restricted to the candidates
// and by PageRank of their document — and fused with plain hybrid results by RRF. Without graph
// evidence it falls back to hybrid.
func (r *Retriever) graphHybrid(ctx context.Context, req Request, vec []float32, linked []Linked, tr *Trace) (Result, string, error) {
	var res Result
	hybrid, err := r.hybrid(ctx, req, vec, nil, tr)
	if err != nil {
		return res, "", err
	}
	for i := range hybrid {
		hybrid[i].Sources = []string{"hybrid"}
	}
	restart := map[string]float64{}
	var linkedKeys []string
	for _, l := range linked {
		restart[l.Key] = 1
		linkedKeys = append(linkedKeys, l.Key)
	}
	top := make([]string, 0, 5)
	for i := 0; i < len(hybrid) && i < 5; i++ {
		top = append(top, hybrid[i].ID)
	}
	byChunk, err := r.graph.EntitiesOfChunks(ctx, top, req.Groups)
	if err != nil {
		return res, "", err
	}
	for i, id := range top {
		for _, k := range byChunk[id] {
			restart[k] += 0.5 / float64(i+1)
		}
	}
	note := fmt.Sprintf("%d linked entities, %d seeds in all", len(linked), len(restart))
	if len(restart) == 0 {
		res.Chunks = hybrid
		return res, note + "; no seed entities: hybrid results only", nil
	}
	seeds := make([]string, 0, len(restart))
	for k := range restart {
		seeds = append(seeds, k)
	}
	sort.Strings(seeds)
	sg, err := neighbourhood(ctx, r.graph, seeds, r.cfg.MaxHops, hubDegree, 400, req.Groups, r.cfg.RelTypes)
	if err != nil {
		return res, "", err
	}
	if len(sg.edges) == 0 {
		res.Chunks = hybrid
		return res, note + "; the graph has no readable edges around them: hybrid results only", nil
	}
	scores := personalizedPageRank(sg, restart, 0.5, 30)

	// Documents by the best score of an entity they describe.
	docScore := map[string]float64{}
	for k, n := range sg.nodes {
		if n.DocID != "" && scores[k] > docScore[n.DocID] {
			docScore[n.DocID] = scores[k]
		}
	}
	docs := make([]string, 0, len(docScore))
	for d := range docScore {
		docs = append(docs, d)
	}
	sort.Slice(docs, func(i, j int) bool {
		if docScore[docs[i]] != docScore[docs[j]] {
			return docScore[docs[i]] > docScore[docs[j]]
		}
		return docs[i] < docs[j]
	})
	if len(docs) > r.cfg.MaxGraphDocs {
		docs = docs[:r.cfg.MaxGraphDocs]
	}
	// Chunk scores: provenance chunks by their edge's endpoints, document chunks by the document.
	chunkScore := map[string]float64{}
	for _, e := range sg.edges {
		s := (scores[e.From.Key] + scores[e.To.Key]) / 2
		for _, id := range e.ChunkIDs {
			chunkScore[id] = math.Max(chunkScore[id], s)
		}
	}
	docChunks, err := r.graph.DocumentChunkIDs(ctx, docs, req.Groups)
	if err != nil {
		return res, "", err
	}
	for _, id := range docChunks {
		chunkScore[id] = math.Max(chunkScore[id], docScore[ariadne.DocIDOfChunk(id)])
	}
	cands := make([]string, 0, len(chunkScore))
	for id := range chunkScore {
		cands = append(cands, id)
	}
	sort.Slice(cands, func(i, j int) bool {
		if chunkScore[cands[i]] != chunkScore[cands[j]] {
			return chunkScore[cands[i]] > chunkScore[cands[j]]
		}
		return cands[i] < cands[j]
	})
	if len(cands) > 400 {
		cands = cands[:400]
	}
	graphRanked, err := r.search(ctx, ariadne.SearchHybrid, ariadne.SearchQuery{Text: req.Question, Terms: textnorm.SearchTerms(req.Question), Vector: vec, Alpha: r.cfg.Alpha,
		Fusion: r.cfg.Fusion, Groups: req.Groups, Limit: 2 * r.cfg.Candidates, ChunkIDs: cands}, tr)
	if err != nil {
		return res, "", err
	}
	for i := range graphRanked {
		graphRanked[i].Sources = []string{"graph"}
	}
	// The PageRank list shows each document once, best-scored first, through its most relevant
	// candidate chunk (graphRanked is in relevance order), then the remaining chunks.
	byPPR := append([]ariadne.ScoredChunk(nil), graphRanked...)
	sort.SliceStable(byPPR, func(i, j int) bool { return chunkScore[byPPR[i].ID] > chunkScore[byPPR[j].ID] })
	byPPR = diversify(byPPR, 1)
	w := r.cfg.GraphWeight
	res.Chunks = diversify(FuseRRFWeighted([][]ariadne.ScoredChunk{hybrid, graphRanked, byPPR}, []float64{1, w, w}), r.cfg.PerDoc)
	res.Paths = evidencePaths(sg, linkedKeys, res.Chunks, r.cfg.MaxPaths)
	return res, fmt.Sprintf("%s; subgraph %d entities, %d edges; %d candidate chunks from %d documents",
		note, len(sg.nodes), len(sg.edges), len(cands), len(docs)), nil
}

// hubDegree: entities with more relationships are not expanded (see neighbourhood).
const hubDegree = 30

// diversify keeps at most perDoc chunks of one document ahead of the others' chunks, so that a
// multi-hop answer sees several documents; the rest follow in their order.
func diversify(chunks []ariadne.ScoredChunk, perDoc int) []ariadne.ScoredChunk {
	count := map[string]int{}
	var head, tail []ariadne.ScoredChunk
	for _, c := range chunks {
		if count[c.DocID] < perDoc {
			head = append(head, c)
		} else {
			tail = append(tail, c)
		}
		count[c.DocID]++
	}
	return append(head, tail...)
}

// evidencePaths explains the top chunks with paths: for each top chunk that supports an edge, the
// shortest path (in the subgraph) from a linked entity through that edge; shortest first.
func evidencePaths(sg subgraph, linked []string, top []ariadne.ScoredChunk, max int) []ariadne.Path {
	type arc struct {
		to   string
		edge int
	}
	adj := map[string][]arc{}
	for i, e := range sg.edges {
		adj[e.From.Key] = append(adj[e.From.Key], arc{e.To.Key, i})
		adj[e.To.Key] = append(adj[e.To.Key], arc{e.From.Key, i})
	}
	// BFS from all linked entities at once.
	prev := map[string]arc{}
	dist := map[string]int{}
	queue := []string{}
	for _, k := range linked {
		if _, ok := sg.nodes[k]; ok {
			dist[k] = 0
			queue = append(queue, k)
		}
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		for _, a := range adj[k] {
			if _, seen := dist[a.to]; !seen {
				dist[a.to] = dist[k] + 1
				prev[a.to] = arc{k, a.edge}
				queue = append(queue, a.to)
			}
		}
	}
	pathTo := func(end string) (ariadne.Path, bool) {
		if _, ok := dist[end]; !ok {
			return ariadne.Path{}, false
		}
		var nodes []ariadne.PathNode
		var edges []ariadne.PathEdge
		for k := end; ; {
			nodes = append([]ariadne.PathNode{sg.nodes[k]}, nodes...)
			p, ok := prev[k]
			if !ok {
				break
			}
			e := sg.edges[p.edge]
			edges = append([]ariadne.PathEdge{{From: e.From.Key, To: e.To.Key, Type: e.Type, ChunkIDs: e.ChunkIDs}}, edges...)
			k = p.to
		}
		return ariadne.Path{Nodes: nodes, Edges: edges}, len(edges) > 0
	}
	var out []ariadne.Path
	seen := map[string]bool{}
	for i, c := range top {
		if i == 10 || len(out) == max {
			break
		}
		for _, e := range sg.edges {
			if !containsString(e.ChunkIDs, c.ID) {
				continue
			}
			// the endpoint farther from the linked entities ends the path
			end := e.To.Key
			if dist[e.From.Key] > dist[e.To.Key] {
				end = e.From.Key
			}
			p, ok := pathTo(end)
			if !ok {
				continue
			}
			if sig := pathSignature(p); !seen[sig] {
				seen[sig] = true
				out = append(out, p)
			}
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Hops() < out[j].Hops() })
	return out
}

func containsString(xs []string, x string) bool { return slices.Contains(xs, x) }

func pathSignature(p ariadne.Path) string {
	var b strings.Builder
	for i, n := range p.Nodes {
		b.WriteString(n.Key)
		if i < len(p.Edges) {
			b.WriteString("|" + p.Edges[i].Type + "|")
		}
	}
	return b.String()
}
