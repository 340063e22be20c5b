// Command eval measures Ariadne on a golden question set (JSONL: id, question, type, gold_docs,
// answer, evidence, user_groups) and on public multi-hop data.
//
//	eval golden    --golden FILE --corpus DIR [--index]   retrieval and answer metrics
//	eval retrieval --golden FILE --corpus DIR [--index]   retrieval metrics only
//	eval musique   --dataset musique_100.json             MuSiQue: retrieval recall
//	eval xquad     --dataset xquad_ru.json                XQuAD: hit@1/5 and citation validity
//	eval fit-walk  --dataset musique_100.json --limit 50  the multi_hop fusion weights, fitted
//	eval fit-walk-mix a.json b.json …                 the fusion weights over several fit-walk grids
//
// Tables go to stdout (Markdown), --json writes the report. Indexing (--index, and always for the
// datasets) replaces the graph of the Neo4j label namespace "Eval" (--neo4j-namespace; never the
// user's graph) and writes the chunks to --weaviate-class.
//
// Exit codes: 0 done, 1 failed, 2 bad flags.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/evaluation"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/loopback"
	"github.com/ariadne-graphrag/ariadne/internal/setup"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/vector"
)

type common struct {
	K            int           `name:"k" default:"10" help:"Chunks retrieved per question."`
	Alpha        float64       `name:"alpha" default:"0" help:"Hybrid alpha (0: the embedder's default)."`
	PerDoc       int           `name:"per-doc" default:"0" help:"Multi-hop: chunks of one document ahead of other documents (0: default)."`
	GraphW       float64       `name:"graph-weight" default:"0" help:"Multi-hop: RRF weight of each graph list (0: default)."`
	Strategies   []string      `name:"strategies" default:"bm25,vector,hybrid,graph+hybrid" help:"Strategies compared next to the router."`
	GraphWMin    float64       `name:"graph-weight-min" default:"0" help:"Multi-hop: RRF weight of the walk's list at zero confidence (0: default)."`
	Translations int           `name:"keyword-translations" default:"0" help:"With the lexicon, BM25 also searches this many of each English question word's Russian translations (a Russian word: its English gloss); 0 or negative: off, the default."`
	WalkPass     float64       `name:"walk-passage-seed" default:"0" help:"Multi-hop walk: restart mass of passage seeds per unit of entity seeds (0: default)."`
	WalkFloor    float64       `name:"walk-edge-floor" default:"0" help:"Multi-hop walk: weight of an edge whose chunk matches the question least (0: default)."`
	WalkSyn      float64       `name:"walk-synonym" default:"0" help:"Multi-hop walk: entity-name cosine for a synonym edge (0: the embedder's default)."`
	BridgeHops   int           `name:"bridge-hops" default:"0" help:"Multi-hop: bridge entities searched together with the question, whose best new documents follow the route's first chunk (0: the default, 1; negative: none; docs/multi-hop.md)."`
	BridgeKept   int           `name:"bridge-kept" default:"0" help:"Multi-hop: the route's first chunks kept ahead of the bridge hop's finds (0: the default, 1)."`
	BridgeDocs   int           `name:"bridge-docs" default:"0" help:"Multi-hop: the bridge hop's new documents put after them (0: the default, 2)."`
	Limit        int           `name:"limit" default:"0" help:"Evaluate only the first N questions (0: all)."`
	From         int           `name:"from" default:"0" help:"Skip the first N questions (with --limit: a split; docs/multi-hop.md names the fitting split)."`
	JSONOut      string        `name:"json" help:"Also write the report as JSON to this file."`
	UnitVecs     string        `name:"unit-vectors" help:"JSON file that keeps evidence unit vectors between runs (empty: memory only)."`
	Warm         bool          `name:"warm-unit-vectors" help:"Embed every indexed chunk's evidence units before the questions (as a deployment precomputes them)."`
	LogLevel     string        `name:"log-level" env:"ARIADNE_LOG_LEVEL" default:"warn" enum:"debug,info,warn,error" help:"Log level."`
	Generators   []string      `name:"generators" help:"Answer generators compared side by side (extractive, llm, llm-units, llm-quotes; an llm one with -nojudge skips the support judge); empty: llm when a chat model is configured, else extractive."`
	Deadline     time.Duration `name:"answer-deadline" default:"0s" help:"Budget per question for generation and verification (0: the answerer's default, 60s)."`
	Router       string        `name:"router" default:"auto" enum:"auto,rules,learned,llm" help:"Router of the routed row: rules, learned (the versioned model, rules as fallback), llm (needs a chat model; falls back to rules); auto: llm with a chat model that is not small, else rules (agent.AutoRouter)."`

	setup.Stores   `embed:""`
	setup.Embedder `embed:""`
	setup.Chat     `embed:""`
	setup.Indexing `embed:""`
	setup.Lexicon  `embed:""`
}

type goldenArgs struct {
	Golden string `name:"golden" required:"" help:"Golden set (JSONL)."`
	Corpus string `name:"corpus" required:"" help:"Corpus folder the golden set is asked against."`
	Index  bool   `name:"index" help:"Sync --corpus into the stores first: into the evaluation's own graph and chunk class (Neo4j namespace Eval and Weaviate class EvalChunk unless --neo4j-namespace or a --weaviate-class other than Chunk says otherwise), never the API's."`
}

type goldenCmd struct {
	common
	goldenArgs
}

type retrievalCmd struct {
	common
	goldenArgs
}

type datasetCmd struct {
	common
	Dataset   string `name:"dataset" required:"" help:"Dataset file."`
	NoIndex   bool   `name:"no-index" help:"Do not (re)index the dataset's corpus (it is already in the stores)."`
	NoAnswers bool   `name:"no-answers" help:"xquad: retrieval and router figures only (the answer step runs retrieval, and so the router, a second time)."`
}

type cli struct {
	Golden     goldenCmd      `cmd:"" help:"Retrieval and answer metrics on a golden set."`
	Retrieval  retrievalCmd   `cmd:"" help:"Retrieval metrics per strategy and question type, and router accuracy."`
	Musique    datasetCmd     `cmd:"" help:"MuSiQue (JSON): retrieval recall per strategy."`
	Xquad      datasetCmd     `cmd:"" help:"XQuAD (SQuAD JSON): retrieval hit@k and answer citation validity."`
	RouteData  routeDataCmd   `cmd:"" name:"route-data" help:"Record the learned router's features and each route's recall per question (training data)."`
	Train      trainRouterCmd `cmd:"" name:"train-router" help:"Fit the learned router on route-data files; report cross-validated accuracy."`
	Extract    extractionCmd  `cmd:"" name:"extraction" help:"Extractors side by side on a corpus with an entity variant table: resolution, mentions and relations per chunk, chunks/s."`
	FitWalk    fitWalkCmd     `cmd:"" name:"fit-walk" help:"Fit the multi_hop route's fusion weights (walk vs hybrid) on a split of MuSiQue, XQuAD-ru or a golden-format set; the walk runs once per question."`
	FitWalkMix fitWalkMixCmd  `cmd:"" name:"fit-walk-mix" help:"Rank the fusion weight pairs of several fit-walk --json grids by their mean over the sets."`
	FitBars    fitBarsCmd     `cmd:"" name:"fit-bars" help:"Fit the term-coverage generator's thresholds on a question set of our own (never the golden dev set)."`
}

type usageError struct{ error }

// shown is an error the parser printed already, with the usage.
type shown struct{ error }

// fullIndexCheck is the largest class (chunks) every evaluation checks in full before it
// measures (one search per chunk: about half a minute on 2 cores); the evaluation sets have at
// most a few thousand chunks.
const fullIndexCheck = 20000

// EvalNamespace is the Neo4j label namespace evaluations index into unless
// --neo4j-namespace says otherwise, so that they never replace the user's graph.
const EvalNamespace = "Eval"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			if _, ok := ue.error.(shown); !ok {
				fmt.Fprintln(os.Stderr, "eval:", err)
			}
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	vars, err := loopback.Vars()
	if err != nil {
		return err
	}
	var c cli
	exited := -1
	parser, err := kong.New(&c, kong.Vars(vars), kong.Name("eval"), kong.Writers(stdout, stderr),
		kong.Description("Evaluate Ariadne on golden question sets and public multi-hop data."), kong.Exit(func(code int) { exited = code }))
	if err != nil {
		return err
	}
	kctx, perr := parser.Parse(args)
	switch {
	case exited == 0:
		return nil
	case exited > 0:
		return usageError{shown{errors.New("usage")}}
	case perr != nil:
		parser.Errorf("%s", perr)
		return usageError{shown{perr}}
	}
	switch kctx.Command() {
	case "golden":
		return c.Golden.run(ctx, stdout, stderr, true)
	case "retrieval":
		g := goldenCmd{common: c.Retrieval.common, goldenArgs: c.Retrieval.goldenArgs}
		return g.run(ctx, stdout, stderr, false)
	case "musique":
		return c.Musique.run(ctx, stdout, stderr, "musique")
	case "xquad":
		return c.Xquad.run(ctx, stdout, stderr, "xquad")
	case "route-data":
		return c.RouteData.run(ctx, stderr)
	case "train-router":
		return c.Train.run(stdout)
	case "extraction":
		return c.Extract.run(ctx, stdout, stderr)
	case "fit-bars":
		return c.FitBars.run(ctx, stdout, stderr)
	case "fit-walk":
		return c.FitWalk.run(ctx, stdout, stderr)
	case "fit-walk-mix <run>":
		return c.FitWalkMix.run(stdout)
	}
	return usageError{fmt.Errorf("unknown command %q", kctx.Command())}
}

// env is what every subcommand needs.
type env struct {
	cached    *agent.CachingEmbedder // question and evidence-unit vectors (extractive-v2)
	lexicon   *lexicon.Lexicon       // cross-language term matching (nil: off)
	c         common
	log       *slog.Logger
	graph     *graph.Store
	retriever *agent.Retriever
	answerer  *agent.Answerer
	model     setup.ChatModel
	index     agent.IndexCounter
	tokens    *tokenCount
	stderr    io.Writer
	embedder  string
	closeAll  func()
}

func (c common) open(ctx context.Context, stderr io.Writer, docs []ariadne.Document, index bool) (*env, error) {
	log := setup.NewLogger(stderr, c.LogLevel, false)
	if c.Stores.Neo4jNamespace == "" {
		// Evaluations index their own corpora: keep them apart from the user's graph.
		c.Stores.Neo4jNamespace = EvalNamespace
	}
	if c.Stores.WeaviateClass == vector.DefaultClass {
		c.Stores.WeaviateClass = EvalNamespace + vector.DefaultClass // likewise the user's chunk class
	}
	gs, err := c.Stores.OpenGraph(ctx)
	if err != nil {
		return nil, err
	}
	e := &env{c: c, log: log, graph: gs, tokens: &tokenCount{}, stderr: stderr, closeAll: func() { gs.Close(context.WithoutCancel(ctx)) }}
	fail := func(err error) (*env, error) { e.closeAll(); return nil, err }
	vs, err := c.Stores.OpenVector(ctx)
	if err != nil {
		return fail(err)
	}
	// Every chunk is searched for by its own vector first, and what the HNSW index lost (Weaviate
	// restarted after a crash) is written again: a sync leaves unchanged chunks alone, and figures
	// measured over part of the corpus would be wrong without any error to show it (XQuAD-ru,
	// 2026-12-03: 31 of 449 entries lost, hybrid hit@1 0.945 → 0.911, false refusals 151 → 170).
	// A class past fullIndexCheck chunks (one search each) gets the sampled check instead.
	n, err := vs.Count(ctx)
	if err != nil {
		return fail(err)
	}
	if _, err := vs.CheckIndex(ctx, n <= fullIndexCheck, false, log); err != nil {
		return fail(err)
	}
	if n == 0 && !index {
		// Every question would be answered index_empty, and the report would be zeros (a new
		// user's first run without --index).
		return fail(usageError{fmt.Errorf("nothing is indexed in Weaviate class %s (Neo4j namespace %q): add --index to index the corpus first", vs.Class(), c.Stores.Neo4jNamespace)})
	}
	emb, _, err := c.Embedder.BuildEmbedder(ctx, log)
	if err != nil {
		return fail(err)
	}
	e.embedder = emb.Name()
	if e.lexicon, err = c.Lexicon.Load(log); err != nil {
		return fail(err)
	}
	c.Chat.OnUsage = e.tokens.add
	model, err := c.Chat.BuildChat(log)
	if err != nil {
		return fail(err)
	}
	if index {
		onto, chunker, err := c.Indexing.Build()
		if err != nil {
			return fail(err)
		}
		ext, err := c.Indexing.BuildExtractor(onto, model)
		if err != nil {
			return fail(err)
		}
		rec, _, err := c.Indexing.BuildRecognizer(ctx, onto, e.lexicon, log)
		if err != nil {
			return fail(err)
		}
		pipe, err := ingest.New(ingest.Config{Chunker: chunker, Embedder: emb, Extractor: ext, Recognizer: rec, Places: setup.SubjectPlaces(rec, e.lexicon), Ontology: onto, Graph: gs, Vectors: vs, Logger: log})
		if err != nil {
			return fail(err)
		}
		sum, err := pipe.Sync(ctx, docs, ingest.Options{})
		if err != nil {
			return fail(err)
		}
		if len(sum.Conflicts) > 0 {
			// Another source (cmd/extract's, the API's) holds these ids in this graph: the figures
			// would be of its documents, not of --corpus.
			return fail(fmt.Errorf("--index: %d of the corpus's documents are held by another source in Neo4j namespace %q and class %s (e.g. %s, source %s): give the evaluation a namespace and class of its own (--neo4j-namespace, --weaviate-class) or unset ARIADNE_NEO4J_NAMESPACE and ARIADNE_WEAVIATE_CLASS: %w",
				len(sum.Conflicts), c.Stores.Neo4jNamespace, vs.Class(), sum.Conflicts[0].DocID, sum.Conflicts[0].Source, ariadne.ErrInvalid))
		}
		rate := "no chunk written" // a chunks/s of unchanged documents would time the comparison alone
		if sum.Chunks > 0 {
			rate = fmt.Sprintf("%.0f chunks/s", float64(sum.Chunks)/max(sum.Elapsed.Seconds(), 1e-9))
		}
		fmt.Fprintf(stderr, "indexed: %d documents written, %d relinked (same text, changed graph facts), %d unchanged, %d chunks, %d vectors in %s, %d chunks' BM25 terms re-analyzed, %d entities (embedder %s, %.1f s, %s)\n",
			sum.DocsWritten, sum.DocsRelinked, sum.DocsUnchanged, sum.Chunks, sum.Vectors, vs.Class(), sum.Reanalyzed, sum.Entities, emb.Name(), sum.Elapsed.Seconds(), rate)
		// As cmd/extract does after a sync: entities an earlier version wrote get the lists reads
		// now use (graph.Store.RefreshStale), so figures are those of a graph cmd/extract leaves.
		if n, err := gs.RefreshStale(ctx); err != nil {
			return fail(err)
		} else if n > 0 {
			fmt.Fprintf(stderr, "refreshed %d entities written by an earlier version (once)\n", n)
		}
	}
	// Question and unit vectors are cached: the evidence ranker reuses the retriever's question
	// vector, and unit vectors are computed before the questions (as a deployment precomputes
	// them, --warm-unit-vectors), so the answer path's latency is the query's, not the corpus's.
	var store agent.UnitVectorStore
	if c.UnitVecs != "" {
		fs, err := openFileUnitVectors(c.UnitVecs)
		if err != nil {
			return fail(err)
		}
		store = fs
	}
	cached := agent.NewCachingEmbedder(emb, 0, store)
	if c.Warm && !strings.HasPrefix(emb.Name(), "lexical") {
		n, err := warmUnitVectors(ctx, vs, gs, cached)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stderr, "evidence: %d unit vectors precomputed\n", n)
	}
	var router agent.Router = agent.RuleRouter{}
	var gen agent.Generator = agent.TermExtractive{Lexicon: e.lexicon}
	e.cached = cached
	if model != nil {
		gen = agent.LLMGenerator{Model: model, Mode: agent.CitationMode(c.Chat.CitationMode), Rank: agent.LexicalUnitRanker(e.lexicon),
			Budget: agent.UnitBudget{Tokens: c.Chat.UnitTokens}}
	}
	switch {
	case c.Router == "llm" && model != nil:
		router = agent.LLMRouter{Model: model}
	case c.Router == "auto":
		router = agent.AutoRouter(model)
	case c.Router == "learned":
		m, err := agent.DefaultRouterModel()
		if err != nil {
			return fail(err)
		}
		router = agent.LearnedRouter{Model: m}
	}
	if c.Router == "llm" && model == nil {
		return fail(usageError{errors.New("--router llm needs a chat model (--local-llm or --llm-*)")})
	}
	e.model, e.index = model, vs
	alpha := c.Alpha
	if alpha == 0 {
		alpha = agent.DefaultAlpha(emb.Name())
	}
	e.retriever = agent.NewRetriever(vs, gs, cached, router, agent.RetrievalConfig{Alpha: alpha, PerDoc: c.PerDoc, GraphWeight: c.GraphW,
		GraphWeightMin: c.GraphWMin, WalkPassage: c.WalkPass, WalkFloor: c.WalkFloor, WalkSynonym: c.WalkSyn, BridgeHops: c.BridgeHops, BridgeKept: c.BridgeKept, BridgeDocs: c.BridgeDocs,
		MinVectorScore: agent.DefaultMinVectorScore(emb.Name()), Lexicon: e.lexicon, Translations: c.Translations}, log)
	acfg := agent.AnswerConfig{Chunks: gs, Deadline: c.Deadline, Lexicon: e.lexicon}
	if _, ok := gen.(agent.LLMGenerator); ok {
		acfg.Gate = agent.AnswerabilityGate(c.Chat.Answerability, model, agent.TermExtractive{Lexicon: e.lexicon})
	}
	e.answerer = agent.NewAnswerer(e.retriever, gen, vs, acfg, agent.Hooks{}, log)
	return e, nil
}

// warmUnitVectors embeds the evidence units of every indexed chunk into the cache.
func warmUnitVectors(ctx context.Context, vs *vector.Store, gs *graph.Store, cached *agent.CachingEmbedder) (int, error) {
	ids, err := vs.ChunkIDs(ctx)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	chunks, err := gs.Chunks(ctx, ids, evaluation.AllGroups)
	if err != nil {
		return 0, err
	}
	return cached.PrecomputeUnitVectors(ctx, chunks, 64)
}

func (c common) strategies() []agent.Strategy {
	var out []agent.Strategy
	for _, s := range c.Strategies {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, agent.Strategy(s))
		}
	}
	return out
}

func (c common) limit(qs []evaluation.Question) []evaluation.Question {
	if c.From > 0 {
		qs = qs[min(c.From, len(qs)):]
	}
	if c.Limit > 0 && c.Limit < len(qs) {
		return qs[:c.Limit]
	}
	return qs
}

// report is the JSON written with --json.
type report struct {
	Set        string                      `json:"set"`
	Embedder   string                      `json:"embedder"`
	Questions  int                         `json:"questions"`
	Retrieval  *evaluation.RetrievalReport `json:"retrieval,omitempty"`
	Answers    *evaluation.AnswerReport    `json:"answers,omitempty"`
	Generators []generatorRun              `json:"generators,omitempty"`
}

func (g goldenCmd) run(ctx context.Context, stdout, stderr io.Writer, answers bool) error {
	qs, err := evaluation.LoadGolden(g.Golden)
	if err != nil {
		return err
	}
	qs = g.limit(qs)
	docs, problems, err := corpus.Load(os.DirFS(g.Corpus))
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "skipped malformed document %s: %s\n", p.Path, p.Reason)
	}
	docLang := map[string]string{}
	ids := map[string]bool{}
	for _, d := range docs {
		docLang[d.ID] = d.Lang
		ids[d.ID] = true
	}
	for _, n := range evaluation.MatchGoldDocs(qs, ids) {
		fmt.Fprintln(stderr, n)
	}
	e, err := g.open(ctx, stderr, docs, g.Index)
	if err != nil {
		return err
	}
	defer e.closeAll()
	rep := report{Set: g.Golden, Embedder: e.embedder, Questions: len(qs)}
	fmt.Fprintf(stdout, "## %s — %d questions, embedder %s, top %d chunks\n\n### Retrieval\n\n", g.Golden, len(qs), e.embedder, g.K)
	rr, err := evaluation.RunRetrieval(ctx, e.retriever, qs, g.strategies(), g.K, docLang)
	if err != nil {
		return err
	}
	rr.Markdown(stdout)
	rep.Retrieval = &rr
	if answers {
		if err := e.answerAll(ctx, qs, stdout, &rep, docLang); err != nil {
			return err
		}
	}
	return writeJSON(g.JSONOut, rep)
}

func (d datasetCmd) run(ctx context.Context, stdout, stderr io.Writer, kind string) error {
	var docs []ariadne.Document
	var qs []evaluation.Question
	var err error
	switch kind {
	case "musique":
		docs, qs, err = evaluation.LoadMuSiQue(d.Dataset)
	default:
		docs, qs, err = evaluation.LoadXQuAD(d.Dataset, "ru")
	}
	if err != nil {
		return err
	}
	qs = d.limit(qs)
	e, err := d.open(ctx, stderr, docs, !d.NoIndex)
	if err != nil {
		return err
	}
	defer e.closeAll()
	rep := report{Set: d.Dataset, Embedder: e.embedder, Questions: len(qs)}
	fmt.Fprintf(stdout, "## %s — %d questions over %d passages, embedder %s, top %d chunks\n\n", d.Dataset, len(qs), len(docs), e.embedder, d.K)
	rr, err := evaluation.RunRetrieval(ctx, e.retriever, qs, d.strategies(), d.K, nil)
	if err != nil {
		return err
	}
	rr.Markdown(stdout)
	rep.Retrieval = &rr
	if kind == "xquad" && !d.NoAnswers {
		if err := e.answerAll(ctx, qs, stdout, &rep, nil); err != nil {
			return err
		}
	}
	return writeJSON(d.JSONOut, rep)
}

// answerAll runs the answers: one generator (answers), or the --generators side by side;
// docLang (may be nil) marks the cross-language questions.
func (e *env) answerAll(ctx context.Context, qs []evaluation.Question, stdout io.Writer, rep *report, docLang map[string]string) error {
	var names []string
	for _, g := range e.c.Generators {
		if g = strings.TrimSpace(g); g != "" {
			names = append(names, g)
		}
	}
	if len(names) == 0 {
		var err error
		rep.Answers, err = e.answers(ctx, qs, stdout, docLang)
		return err
	}
	runs, err := e.compareGenerators(ctx, qs, names, stdout, docLang)
	rep.Generators = runs
	return err
}

// answers runs the questions through the answerer (8 fragments each) and prints the answer table;
// docLang (may be nil) marks the cross-language questions.
func (e *env) answers(ctx context.Context, qs []evaluation.Question, stdout io.Writer, docLang map[string]string) (*evaluation.AnswerReport, error) {
	ar, err := evaluation.RunAnswers(ctx, e.answerer, e.graph, qs, 8, docLang)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "\n### Answers (generator %s)\n\n", e.answerer.Generator())
	ar.Markdown(stdout)
	return &ar, nil
}

func writeJSON(path string, v any) error {
	if path == "" {
		return nil
	}
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o644)
}
