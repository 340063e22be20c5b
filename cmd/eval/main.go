// Command eval measures Ariadne on a golden question set (JSONL: id, question, type, gold_docs,
// answer, evidence, user_groups) and on public multi-hop data.
//
//	eval golden    --golden FILE --corpus DIR [--index]   retrieval and answer metrics
//	eval retrieval --golden FILE --corpus DIR [--index]   retrieval metrics only
//	eval musique   --dataset musique_100.json             MuSiQue: retrieval recall
//	eval xquad     --dataset xquad_ru.json                XQuAD: hit@1/5 and citation validity
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

	"github.com/alecthomas/kong"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/evaluation"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/loopback"
	"github.com/ariadne-graphrag/ariadne/internal/setup"
	"github.com/ariadne-graphrag/ariadne/vector"
)

type common struct {
	K          int      `name:"k" default:"10" help:"Chunks retrieved per question."`
	Alpha      float64  `name:"alpha" default:"0" help:"Hybrid alpha (0: the embedder's default)."`
	PerDoc     int      `name:"per-doc" default:"0" help:"Multi-hop: chunks of one document ahead of other documents (0: default)."`
	GraphW     float64  `name:"graph-weight" default:"0" help:"Multi-hop: RRF weight of each graph list (0: default)."`
	Strategies []string `name:"strategies" default:"bm25,vector,hybrid,graph+hybrid" help:"Strategies compared next to the router."`
	Limit      int      `name:"limit" default:"0" help:"Evaluate only the first N questions (0: all)."`
	JSONOut    string   `name:"json" help:"Also write the report as JSON to this file."`
	LogLevel   string   `name:"log-level" env:"ARIADNE_LOG_LEVEL" default:"warn" enum:"debug,info,warn,error" help:"Log level."`

	setup.Stores   `embed:""`
	setup.Embedder `embed:""`
	setup.Chat     `embed:""`
	setup.Indexing `embed:""`
}

type goldenArgs struct {
	Golden string `name:"golden" required:"" help:"Golden set (JSONL)."`
	Corpus string `name:"corpus" required:"" help:"Corpus folder the golden set is asked against."`
	Index  bool   `name:"index" help:"Sync --corpus into the stores first (replaces Ariadne's graph in Neo4j)."`
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
	Dataset string `name:"dataset" required:"" help:"Dataset file."`
	NoIndex bool   `name:"no-index" help:"Do not (re)index the dataset's corpus (it is already in the stores)."`
}

type cli struct {
	Golden    goldenCmd    `cmd:"" help:"Retrieval and answer metrics on a golden set."`
	Retrieval retrievalCmd `cmd:"" help:"Retrieval metrics per strategy and question type, and router accuracy."`
	Musique   datasetCmd   `cmd:"" help:"MuSiQue (JSON): retrieval recall per strategy."`
	Xquad     datasetCmd   `cmd:"" help:"XQuAD (SQuAD JSON): retrieval hit@k and answer citation validity."`
}

type usageError struct{ error }

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
		return usageError{errors.New("usage")}
	case perr != nil:
		parser.Errorf("%s", perr)
		return usageError{perr}
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
	}
	return usageError{fmt.Errorf("unknown command %q", kctx.Command())}
}

// env is what every subcommand needs.
type env struct {
	c         common
	log       *slog.Logger
	graph     *graph.Store
	retriever *agent.Retriever
	answerer  *agent.Answerer
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
	e := &env{c: c, log: log, graph: gs, closeAll: func() { gs.Close(context.WithoutCancel(ctx)) }}
	fail := func(err error) (*env, error) { e.closeAll(); return nil, err }
	vs, err := c.Stores.OpenVector(ctx)
	if err != nil {
		return fail(err)
	}
	emb, _, err := c.Embedder.BuildEmbedder(ctx, log)
	if err != nil {
		return fail(err)
	}
	e.embedder = emb.Name()
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
		pipe, err := ingest.New(ingest.Config{Chunker: chunker, Embedder: emb, Extractor: ext, Ontology: onto, Graph: gs, Vectors: vs, Logger: log})
		if err != nil {
			return fail(err)
		}
		sum, err := pipe.Sync(ctx, docs, ingest.Options{})
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stderr, "indexed: %d documents written, %d unchanged, %d chunks, %d vectors in %s, %d entities (embedder %s, %.1f s, %.0f chunks/s)\n",
			sum.DocsWritten, sum.DocsUnchanged, sum.Chunks, sum.Vectors, vs.Class(), sum.Entities, emb.Name(), sum.Elapsed.Seconds(),
			float64(sum.Chunks)/max(sum.Elapsed.Seconds(), 1e-9))
	}
	var router agent.Router = agent.RuleRouter{}
	var gen agent.Generator = agent.Extractive{}
	if model != nil {
		router, gen = agent.LLMRouter{Model: model}, agent.LLMGenerator{Model: model}
	}
	alpha := c.Alpha
	if alpha == 0 {
		alpha = agent.DefaultAlpha(emb.Name())
	}
	e.retriever = agent.NewRetriever(vs, gs, emb, router, agent.RetrievalConfig{Alpha: alpha, PerDoc: c.PerDoc, GraphWeight: c.GraphW,
		MinVectorScore: agent.DefaultMinVectorScore(emb.Name())}, log)
	e.answerer = agent.NewAnswerer(e.retriever, gen, vs, agent.AnswerConfig{}, agent.Hooks{}, log)
	return e, nil
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
	if c.Limit > 0 && c.Limit < len(qs) {
		return qs[:c.Limit]
	}
	return qs
}

// report is the JSON written with --json.
type report struct {
	Set       string                      `json:"set"`
	Embedder  string                      `json:"embedder"`
	Questions int                         `json:"questions"`
	Retrieval *evaluation.RetrievalReport `json:"retrieval,omitempty"`
	Answers   *evaluation.AnswerReport    `json:"answers,omitempty"`
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
	for _, d := range docs {
		docLang[d.ID] = d.Lang
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
		if rep.Answers, err = e.answers(ctx, qs, stdout, docLang); err != nil {
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
	if kind == "xquad" {
		if rep.Answers, err = e.answers(ctx, qs, stdout, nil); err != nil {
			return err
		}
	}
	return writeJSON(d.JSONOut, rep)
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
