// Command scalebench measures how Ariadne grows with the corpus: for each size it generates a
// synthetic knowledge base (internal/synth, fixed seed) into a temporary folder, indexes it with
// the lexical embedder and the dictionary extractor into its own Neo4j namespace and Weaviate
// class, embeds a sample with e5 (extrapolated, and said so), reads store sizes, then times
// retrieval per route (simple, hybrid, multi_hop) with and without the answer step (extractive
// generator and verification), with the Neo4j and Weaviate share of each query. It writes
// scale.json and scale.png into --out, prints a Markdown table, and drops what it created
// unless --keep. `make scale SIZES=1k,10k,100k` runs it.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/embedding"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/loopback"
	"github.com/ariadne-graphrag/ariadne/internal/setup"
	"github.com/ariadne-graphrag/ariadne/internal/synth"
	"github.com/ariadne-graphrag/ariadne/ontology"
	"github.com/ariadne-graphrag/ariadne/vector"
)

type root struct {
	Corpus corpusCmd `cmd:"" default:"withargs" help:"Generate corpora of the given sizes, index them and time ingestion and retrieval (the default)."`
	Load   loadCmd   `cmd:"" help:"Closed-loop load on a running cmd/api: concurrent clients, throughput and latency percentiles."`
	Drop   dropCmd   `cmd:"" help:"Drop Neo4j namespaces and Weaviate classes that --keep left (NAMESPACE:CLASS pairs)."`
}

type corpusCmd struct {
	Sizes    string `name:"sizes" env:"SIZES" default:"1k,10k,100k" help:"Corpus sizes in chunks (k = 1000), comma-separated."`
	Seed     uint64 `name:"seed" default:"42" help:"Generator seed."`
	Prefix   string `name:"prefix" default:"Scale" help:"Neo4j namespace and Weaviate class prefix (letters and digits)."`
	Queries  int    `name:"queries" default:"40" help:"Timed questions per route and size (after 5 warm-up questions)."`
	E5Sample int    `name:"e5-sample" default:"64" help:"Chunks embedded with e5 to extrapolate its ingestion rate (0: skip)."`
	Out      string `name:"out" default:"docs/performance" help:"Folder for scale.json and scale.png."`
	Keep     bool   `name:"keep" help:"Keep the namespaces and classes (default: drop them at the end)."`
	Replot   string `name:"replot" help:"Only redraw scale.png in --out from this scale.json; measure nothing."`
	Reuse    bool   `name:"reuse" help:"Skip ingestion when the class and the graph already hold the size's chunks (for re-timing queries after a fix; needs --keep before). Implies --keep."`
	Workers  int    `name:"workers" default:"2" help:"Concurrent embedding/extraction calls while indexing."`
	Batch    int    `name:"batch" default:"64" help:"Documents per write batch."`

	setup.Stores   `embed:""`
	setup.Embedder `embed:""`
	setup.Indexing `embed:""`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	vars, err := loopback.Vars()
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(2)
	}
	var c root
	kctx := kong.Parse(&c, kong.Vars(vars), kong.Name("scalebench"), kong.Description("Scale benchmark: ingestion, store sizes and retrieval latency versus corpus size; load on a running API."))
	switch kctx.Command() {
	case "load":
		err = c.Load.Run(os.Stdout)
	case "drop <pairs>":
		err = c.Drop.Run(ctx, os.Stdout)
	default:
		err = run(ctx, c.Corpus, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(1)
	}
}

// parseSize reads "1k", "10k", "2500".
func parseSize(s string) (int, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	mul := 1
	if strings.HasSuffix(s, "k") {
		mul, s = 1000, strings.TrimSuffix(s, "k")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("size %q: want a positive number of chunks, e.g. 10k", s)
	}
	return n * mul, nil
}

// Result is one corpus size's measurements (scale.json).
type Result struct {
	Label            string                 `json:"label"`
	TargetChunks     int                    `json:"target_chunks"`
	Docs             int                    `json:"docs"`
	Chunks           int                    `json:"chunks"`
	Entities         int                    `json:"entities"`
	EntityNodes      int                    `json:"entity_nodes"`
	Relations        int                    `json:"relations"`
	Mentions         int                    `json:"mentions"`
	MaxDegree        int                    `json:"max_entity_degree"`
	CorpusMB         float64                `json:"corpus_mb"`
	IngestSeconds    float64                `json:"ingest_seconds"`
	IngestPhases     map[string]float64     `json:"ingest_phases_seconds,omitempty"`
	ChunksPerSecond  float64                `json:"ingest_chunks_per_second"`
	IngestLoad       [2]float64             `json:"ingest_load_avg"` // 1-min load average before, after
	E5Sample         int                    `json:"e5_sample_chunks"`
	E5ChunksPerSec   float64                `json:"e5_chunks_per_second"`
	E5Extrapolated   float64                `json:"e5_extrapolated_seconds"`
	WeaviateDiskMB   float64                `json:"weaviate_disk_mb"`
	Neo4jDiskDeltaMB float64                `json:"neo4j_disk_delta_mb"`
	WeaviateRSSMB    [2]float64             `json:"weaviate_rss_mb"` // before, after ingestion
	Neo4jRSSMB       [2]float64             `json:"neo4j_rss_mb"`
	Routes           map[string]RouteResult `json:"routes"`
	QueryLoad        [2]float64             `json:"query_load_avg"`
}

// RouteResult is one route's latencies in milliseconds.
type RouteResult struct {
	N            int     `json:"n"`
	RetrievalP50 float64 `json:"retrieval_p50_ms"`
	RetrievalP95 float64 `json:"retrieval_p95_ms"`
	WeaviateP50  float64 `json:"weaviate_p50_ms"`
	WeaviateP95  float64 `json:"weaviate_p95_ms"`
	Neo4jP50     float64 `json:"neo4j_p50_ms"`
	Neo4jP95     float64 `json:"neo4j_p95_ms"`
	AnswerP50    float64 `json:"answer_p50_ms"`
	AnswerP95    float64 `json:"answer_p95_ms"`
	Answered     int     `json:"answered"`
	HitSubject   int     `json:"chunks_naming_the_entity"` // questions whose top chunks name the asked entity
	// StagesP50 is the median time of each retrieval stage the trace times (link, embed, the
	// strategies, the walk's reads), ms; stages that run at once overlap.
	StagesP50 map[string]float64 `json:"stages_p50_ms,omitempty"`
}

func run(ctx context.Context, c corpusCmd, out io.Writer) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var sizes []int
	for _, s := range strings.Split(c.Sizes, ",") {
		n, err := parseSize(s)
		if err != nil {
			return err
		}
		sizes = append(sizes, n)
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return err
	}
	if c.Replot != "" {
		b, err := os.ReadFile(c.Replot)
		if err != nil {
			return err
		}
		var rs []Result
		if err := json.Unmarshal(b, &rs); err != nil {
			return fmt.Errorf("%s: %w", c.Replot, err)
		}
		printTable(out, rs)
		return plotResults(filepath.Join(c.Out, "scale.png"), rs)
	}
	var results []Result
	for _, n := range sizes {
		r, err := c.measure(ctx, n, log, out)
		if err != nil {
			return fmt.Errorf("%d chunks: %w", n, err)
		}
		results = append(results, r)
		if err := writeJSON(filepath.Join(c.Out, "scale.json"), results); err != nil {
			return err
		}
	}
	if err := plotResults(filepath.Join(c.Out, "scale.png"), results); err != nil {
		return err
	}
	printTable(out, results)
	return nil
}

func label(n int) string {
	if n%1000 == 0 {
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

func (c corpusCmd) measure(ctx context.Context, n int, log *slog.Logger, out io.Writer) (Result, error) {
	r := Result{Label: label(n), TargetChunks: n, Routes: map[string]RouteResult{}}
	stores := c.Stores
	stores.Neo4jNamespace = c.Prefix + label(n)
	stores.WeaviateClass = c.Prefix + "Bench" + label(n)
	gs, err := stores.OpenGraph(ctx)
	if err != nil {
		return r, err
	}
	defer gs.Close(context.WithoutCancel(ctx))
	vs, err := stores.OpenVector(ctx)
	if err != nil {
		return r, err
	}
	if !c.Keep && !c.Reuse { // a re-timing run must not drop the index it came to re-time
		defer func() {
			dctx := context.WithoutCancel(ctx)
			if err := vs.DropClass(dctx); err != nil {
				log.Warn("drop class", "class", vs.Class(), "err", err)
			}
			if err := gs.DropNamespace(dctx); err != nil {
				log.Warn("drop namespace", "namespace", gs.Namespace(), "err", err)
			}
		}()
	}
	onto, chunker, err := c.Indexing.Build()
	if err != nil {
		return r, err
	}
	ext, err := c.Indexing.BuildExtractor(onto, nil)
	if err != nil {
		return r, err
	}
	lex := embedding.NewLexical(c.LexicalDim)

	// The corpus: one typed page per entity, then notes, until the chunker has made n chunks.
	dir, err := os.MkdirTemp("", "ariadne-scale-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	gen := synth.New(c.Seed, max(20, n/8))
	r.Entities = len(gen.Entities())
	var bytes int64
	for r.Chunks < n {
		d := gen.Next()
		doc, err := corpus.Parse(d.Path, d.Content)
		if err != nil {
			return r, fmt.Errorf("generated %s: %w", d.Path, err)
		}
		r.Chunks += len(chunker.Split(doc))
		r.Docs++
		bytes += int64(len(d.Content))
		p := filepath.Join(dir, d.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return r, err
		}
		if err := os.WriteFile(p, d.Content, 0o644); err != nil {
			return r, err
		}
	}
	r.CorpusMB = float64(bytes) / 1e6
	fmt.Fprintf(out, "[%s] generated %d documents, %d chunks, %d entities (%.1f MB) in %s\n", r.Label, r.Docs, r.Chunks, r.Entities, r.CorpusMB, dir)

	have, _ := vs.Count(ctx)
	graphHas, _ := gs.Count(ctx)
	if c.Reuse && have == r.Chunks && graphHas.Chunks == r.Chunks {
		fmt.Fprintf(out, "[%s] --reuse: class %s already holds %d chunks; ingestion not re-timed\n", r.Label, vs.Class(), have)
		// A kept index can have lost HNSW entries since (a crash of Weaviate): a random sample is
		// checked and a failed one repairs the class before anything is timed on it.
		if _, err := vs.CheckIndex(ctx, false, false, log); err != nil {
			return r, err
		}
		r.WeaviateDiskMB = duMB(filepath.Join(home(), "weaviate", "data", strings.ToLower(vs.Class())))
		r.WeaviateRSSMB[1], r.Neo4jRSSMB[1] = rssMB("weaviate"), rssMB("neo4j")
	} else {
		if err := c.ingest(ctx, &r, dir, gs, vs, chunker, lex, ext, onto, log, out); err != nil {
			return r, err
		}
	}
	if err := graphShape(ctx, gs, &r); err != nil {
		return r, err
	}
	if c.E5Sample > 0 {
		c.e5Sample(ctx, &r, dir, chunker, log, out)
	}

	qs := questions(gen, c.Seed, c.Queries+5)
	r.QueryLoad[0] = loadAvg()
	tv := &timedVectors{inner: vs}
	tg := &timedGraph{inner: gs}
	retriever := agent.NewRetriever(tv, tg, lex, agent.RuleRouter{}, agent.RetrievalConfig{Alpha: agent.DefaultAlpha(lex.Name()),
		MinVectorScore: agent.DefaultMinVectorScore(lex.Name())}, log)
	answerer := agent.NewAnswerer(retriever, agent.TermExtractive{}, vs, agent.AnswerConfig{}, agent.Hooks{}, log)
	for _, route := range []string{"simple", "hybrid", "multi_hop"} {
		rr, err := timeRoute(ctx, retriever, answerer, tv, tg, route, qs[route])
		if err != nil {
			return r, fmt.Errorf("route %s: %w", route, err)
		}
		r.Routes[route] = rr
		fmt.Fprintf(out, "[%s] %-9s retrieval p50 %6.1f p95 %6.1f ms (weaviate p95 %5.1f, neo4j p95 %5.1f); with answer p50 %6.1f p95 %6.1f ms; %d/%d answered\n",
			r.Label, route, rr.RetrievalP50, rr.RetrievalP95, rr.WeaviateP95, rr.Neo4jP95, rr.AnswerP50, rr.AnswerP95, rr.Answered, rr.N)
		fmt.Fprintf(out, "[%s] %-9s stage p50 ms: %s\n", r.Label, route, stageLine(rr.StagesP50))
	}
	r.QueryLoad[1] = loadAvg()
	return r, nil
}

func (c corpusCmd) ingest(ctx context.Context, r *Result, dir string, gs *graph.Store, vs *vector.Store, chunker *chunking.Chunker,
	emb ingest.Embedder, ext ingest.Extractor, onto *ontology.Ontology, log *slog.Logger, out io.Writer) error {
	if err := vs.DropClass(ctx); err != nil {
		return err
	}
	if err := gs.Reset(ctx); err != nil {
		return err
	}
	pipe, err := ingest.New(ingest.Config{Chunker: chunker, Embedder: emb, Extractor: ext, Ontology: onto,
		Graph: gs, Vectors: vs, Logger: log, BatchDocs: c.Batch, Workers: c.Workers})
	if err != nil {
		return err
	}
	neoDir := filepath.Join(home(), "neo4j", "data", "databases")
	neoBefore := duMB(neoDir)
	r.WeaviateRSSMB[0], r.Neo4jRSSMB[0] = rssMB("weaviate"), rssMB("neo4j")
	r.IngestLoad[0] = loadAvg()
	start := time.Now()
	docs, problems, err := corpus.Load(os.DirFS(dir))
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d generated documents malformed, first: %s: %s", len(problems), problems[0].Path, problems[0].Reason)
	}
	sum, err := pipe.Sync(ctx, docs, ingest.Options{})
	if err != nil {
		return err
	}
	if sum.DocsFailed > 0 || len(sum.VectorErrors) > 0 {
		return fmt.Errorf("ingestion: %d documents failed, %d chunks refused", sum.DocsFailed, len(sum.VectorErrors))
	}
	r.IngestSeconds = time.Since(start).Seconds()
	r.IngestLoad[1] = loadAvg()
	r.Chunks = sum.Chunks
	r.ChunksPerSecond = float64(sum.Chunks) / r.IngestSeconds
	r.WeaviateRSSMB[1], r.Neo4jRSSMB[1] = rssMB("weaviate"), rssMB("neo4j")
	r.Neo4jDiskDeltaMB = duMB(neoDir) - neoBefore
	r.WeaviateDiskMB = duMB(filepath.Join(home(), "weaviate", "data", strings.ToLower(vs.Class())))
	fmt.Fprintf(out, "[%s] ingested %d chunks in %.1f s: %.0f chunks/s (lexical + dictionary; load avg %.1f→%.1f); Weaviate class %.0f MB on disk, Neo4j +%.0f MB\n",
		r.Label, sum.Chunks, r.IngestSeconds, r.ChunksPerSecond, r.IngestLoad[0], r.IngestLoad[1], r.WeaviateDiskMB, r.Neo4jDiskDeltaMB)
	ph := sum.Phases
	r.IngestPhases = map[string]float64{"plan": ph.Plan.Seconds(), "extract": ph.Extract.Seconds(), "embed": ph.Embed.Seconds(),
		"vectors": ph.Vectors.Seconds(), "graph": ph.Graph.Seconds()}
	fmt.Fprintf(out, "[%s] ingestion phases: plan and resolution %.1f s, extraction %.1f s, embedding %.1f s, Weaviate %.1f s, Neo4j %.1f s\n",
		r.Label, ph.Plan.Seconds(), ph.Extract.Seconds(), ph.Embed.Seconds(), ph.Vectors.Seconds(), ph.Graph.Seconds())
	return nil
}

func graphShape(ctx context.Context, gs *graph.Store, r *Result) error {
	shape, err := gs.Shape(ctx)
	if err != nil {
		return err
	}
	r.EntityNodes, r.Relations, r.Mentions, r.MaxDegree = shape.Entities, shape.Relations, shape.Mentions, shape.MaxDegree
	return nil
}

// e5Sample embeds the first c.E5Sample chunks of the corpus with the e5 server as passages and
// extrapolates the rate to the whole corpus (an extrapolation, not a measurement of it).
func (c corpusCmd) e5Sample(ctx context.Context, r *Result, dir string, chunker *chunking.Chunker, log *slog.Logger, out io.Writer) {
	e5 := setup.Embedder{Kind: "e5", E5URL: c.E5URL}
	emb, _, err := e5.BuildEmbedder(ctx, log)
	if err == nil {
		err = setup.ProbeE5(ctx, c.E5URL)
	}
	if err != nil {
		fmt.Fprintf(out, "[%s] e5 sample skipped: %v\n", r.Label, err)
		return
	}
	docs, _, err := corpus.Load(os.DirFS(dir))
	if err != nil {
		return
	}
	var texts []string
	for _, d := range docs {
		for _, ch := range chunker.Split(d) {
			texts = append(texts, ingest.SearchText(ch))
		}
		if len(texts) >= c.E5Sample {
			break
		}
	}
	texts = texts[:min(len(texts), c.E5Sample)]
	start := time.Now()
	if _, err := emb.EmbedPassages(ctx, texts); err != nil {
		fmt.Fprintf(out, "[%s] e5 sample failed: %v\n", r.Label, err)
		return
	}
	secs := time.Since(start).Seconds()
	r.E5Sample = len(texts)
	r.E5ChunksPerSec = float64(len(texts)) / secs
	r.E5Extrapolated = float64(r.Chunks) / r.E5ChunksPerSec
	fmt.Fprintf(out, "[%s] e5: %d sample chunks at %.1f chunks/s (load avg %.1f) → about %.0f s for all %d chunks (extrapolated)\n",
		r.Label, len(texts), r.E5ChunksPerSec, loadAvg(), r.E5Extrapolated, r.Chunks)
}

// question is one timed question and the entity name it asks about.
type question struct{ text, entity string }

// questions builds, per route, questions about generated entities: half drawn by popularity
// (Zipf, as users ask about what the corpus talks about), half uniformly (the long tail).
func questions(g *synth.Generator, seed uint64, n int) map[string][]question {
	rng := rand.New(rand.NewPCG(seed+1, seed+2))
	pick := func(k synth.Kind, i int) synth.Entity {
		if i%2 == 0 {
			return g.Pick(k)
		}
		var of []synth.Entity
		for _, e := range g.Entities() {
			if e.Kind == k {
				of = append(of, e)
			}
		}
		return of[rng.IntN(len(of))]
	}
	out := map[string][]question{}
	for i := 0; i < n; i++ {
		ru := i%2 == 1
		p, pr := pick(synth.Person, i/2), pick(synth.Project, i/2)
		if ru {
			out["simple"] = append(out["simple"], question{"Чем занимается " + p.Cyr + "?", p.Cyr})
			out["hybrid"] = append(out["hybrid"], question{"Какую библиотеку использует проект «" + pr.Cyr + "»?", pr.Cyr})
			out["multi_hop"] = append(out["multi_hop"], question{"Для какого клиента делается проект, над которым работает " + p.Cyr + "?", p.Cyr})
		} else {
			out["simple"] = append(out["simple"], question{"What does " + p.Latin + " work on?", p.Latin})
			out["hybrid"] = append(out["hybrid"], question{"Which library does the " + pr.Latin + " project run on?", pr.Latin})
			out["multi_hop"] = append(out["multi_hop"], question{"Which client is the project that " + p.Latin + " works on built for?", p.Latin})
		}
	}
	return out
}

func timeRoute(ctx context.Context, retriever *agent.Retriever, answerer *agent.Answerer, tv *timedVectors, tg *timedGraph,
	route string, qs []question) (RouteResult, error) {
	var ret, ans, wv, neo []float64
	stages := map[string][]float64{}
	rr := RouteResult{}
	for i, q := range qs {
		req := agent.Request{Question: q.text, Groups: []string{"all"}, Mode: route}
		tv.ns.Store(0)
		tg.ns.Store(0)
		start := time.Now()
		res, err := retriever.Retrieve(ctx, req)
		if err != nil {
			return rr, err
		}
		d := ms(time.Since(start))
		w, g := float64(tv.ns.Load())/1e6, float64(tg.ns.Load())/1e6
		start = time.Now()
		a, err := answerer.Answer(ctx, req, nil)
		if err != nil {
			return rr, err
		}
		da := ms(time.Since(start))
		if i < 5 { // warm-up
			continue
		}
		ret, ans, wv, neo = append(ret, d), append(ans, da), append(wv, w), append(neo, g)
		for k, v := range res.Trace.Timings {
			stages[k] = append(stages[k], v)
		}
		rr.N++
		if a.Status == ariadne.StatusAnswered {
			rr.Answered++
		}
		for _, ch := range res.Chunks {
			if strings.Contains(ch.Chunk.Text, q.entity) {
				rr.HitSubject++
				break
			}
		}
	}
	rr.RetrievalP50, rr.RetrievalP95 = pct(ret, 50), pct(ret, 95)
	rr.AnswerP50, rr.AnswerP95 = pct(ans, 50), pct(ans, 95)
	rr.WeaviateP50, rr.WeaviateP95 = pct(wv, 50), pct(wv, 95)
	rr.Neo4jP50, rr.Neo4jP95 = pct(neo, 50), pct(neo, 95)
	rr.StagesP50 = map[string]float64{}
	for k, v := range stages {
		rr.StagesP50[k] = pct(v, 50)
	}
	return rr, nil
}

// stageLine prints stage medians slowest first ("walk_chunk_cosines 180.2, link 31.0, …").
func stageLine(st map[string]float64) string {
	keys := slices.Collect(maps.Keys(st))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(st[b], st[a]) })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %.1f", k, st[k]))
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// pct is the p-th percentile (nearest rank) of xs.
func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// timedVectors adds up the wall time spent in Weaviate searches.
type timedVectors struct {
	inner *vector.Store
	ns    atomic.Int64
}

func (t *timedVectors) Search(ctx context.Context, mode ariadne.SearchMode, q ariadne.SearchQuery) ([]ariadne.ScoredChunk, error) {
	defer t.since(time.Now())
	return t.inner.Search(ctx, mode, q)
}

func (t *timedVectors) since(start time.Time) { t.ns.Add(int64(time.Since(start))) }

// timedGraph adds up the wall time spent in Neo4j reads.
type timedGraph struct {
	inner *graph.Store
	ns    atomic.Int64
}

// The retriever reads mentions only from a graph that has them (agent.MentionReader): without
// this method the benchmark's multi_hop would skip the walk's mention reads that the API pays.
var _ agent.MentionReader = (*timedGraph)(nil)

func (t *timedGraph) since(start time.Time) { t.ns.Add(int64(time.Since(start))) }

func (t *timedGraph) EntityMentions(ctx context.Context, keys, groups []string, per, expand int) (map[string]ariadne.EntityMentions, error) {
	defer t.since(time.Now())
	return t.inner.EntityMentions(ctx, keys, groups, per, expand)
}

func (t *timedGraph) EntityCandidates(ctx context.Context, text string, groups []string, limit int) ([]ariadne.EntityCandidate, error) {
	defer t.since(time.Now())
	return t.inner.EntityCandidates(ctx, text, groups, limit)
}

func (t *timedGraph) Edges(ctx context.Context, keys, groups, relTypes []string, limit int) ([]ariadne.Edge, error) {
	defer t.since(time.Now())
	return t.inner.Edges(ctx, keys, groups, relTypes, limit)
}

func (t *timedGraph) EntitiesOfChunks(ctx context.Context, ids, groups []string) (map[string][]string, error) {
	defer t.since(time.Now())
	return t.inner.EntitiesOfChunks(ctx, ids, groups)
}

func (t *timedGraph) DocumentChunkIDs(ctx context.Context, docIDs, groups []string) ([]string, error) {
	defer t.since(time.Now())
	return t.inner.DocumentChunkIDs(ctx, docIDs, groups)
}

func home() string {
	return cmp.Or(loopback.Home(), ".ariadne")
}

// loadAvg is the 1-minute load average (the machine is shared; every latency is stated with it).
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	return f
}

// rssMB is the resident memory of the server deploy/local.sh started as svc (its pid file).
func rssMB(svc string) float64 {
	b, err := os.ReadFile(filepath.Join(home(), "run", svc+".pid"))
	if err != nil {
		return -1
	}
	st, err := os.ReadFile(filepath.Join("/proc", strings.TrimSpace(string(b)), "status"))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(st), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	return -1
}

// duMB is the size of the files under dir in MB (-1 when it cannot be read).
func duMB(dir string) float64 {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			return nil // files come and go under a live server
		}
		if info, err := d.Info(); err == nil && !d.IsDir() {
			total += info.Size()
		}
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return -1
	}
	return float64(total) / 1e6
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func printTable(w io.Writer, rs []Result) {
	fmt.Fprintln(w, "\n| chunks | docs | entities (nodes) | relations | max degree | ingest chunks/s (load) | e5 chunks/s (sample) | Weaviate disk MB | Neo4j disk +MB | Weaviate RSS MB before→after |")
	fmt.Fprintln(w, "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range rs {
		fmt.Fprintf(w, "| %d | %d | %d | %d | %d | %.0f (%.1f→%.1f) | %.1f (%d) | %.0f | %.0f | %.0f→%.0f |\n",
			r.Chunks, r.Docs, r.EntityNodes, r.Relations, r.MaxDegree, r.ChunksPerSecond, r.IngestLoad[0], r.IngestLoad[1],
			r.E5ChunksPerSec, r.E5Sample, r.WeaviateDiskMB, r.Neo4jDiskDeltaMB, r.WeaviateRSSMB[0], r.WeaviateRSSMB[1])
	}
	fmt.Fprintln(w, "\n| chunks | route | retrieval p50 / p95 ms | Weaviate p95 ms | Neo4j p95 ms | with answer p50 / p95 ms | answered | top-8 names the entity | load avg |")
	fmt.Fprintln(w, "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range rs {
		for _, route := range []string{"simple", "hybrid", "multi_hop"} {
			rr := r.Routes[route]
			fmt.Fprintf(w, "| %d | %s | %.1f / %.1f | %.1f | %.1f | %.1f / %.1f | %d/%d | %d/%d | %.1f→%.1f |\n",
				r.Chunks, route, rr.RetrievalP50, rr.RetrievalP95, rr.WeaviateP95, rr.Neo4jP95, rr.AnswerP50, rr.AnswerP95,
				rr.Answered, rr.N, rr.HitSubject, rr.N, r.QueryLoad[0], r.QueryLoad[1])
		}
	}
	fmt.Fprintln(w, "\nWeaviate and Neo4j p95: a question's time in each store, summed over its calls; multi_hop runs some "+
		"of them at once, so a sum can exceed the question's retrieval time.")
}
