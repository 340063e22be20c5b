// Command eval measures Ariadne on a golden question set: retrieval per strategy and question
// type, router accuracy, and (subcommand answers) the full question-answering pipeline.
//
//	eval retrieval --golden FILE [--corpus DIR --index]
//
// With --index the corpus is first synced into the stores (this replaces Ariadne's graph in Neo4j:
// one corpus per database) and into the Weaviate class --weaviate-class.
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
	"strings"

	"github.com/alecthomas/kong"

	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/evaluation"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/setup"
)

type common struct {
	Golden   string  `name:"golden" required:"" help:"Golden set (JSONL: id, question, type, gold_docs, answer, evidence, user_groups)."`
	Corpus   string  `name:"corpus" help:"Corpus folder the golden set is asked against (for --index and document languages)."`
	Index    bool    `name:"index" help:"Sync --corpus into the stores first (replaces Ariadne's graph in Neo4j)."`
	K        int     `name:"k" default:"10" help:"Chunks retrieved per question."`
	Alpha    float64 `name:"alpha" default:"0" help:"Hybrid alpha (0: the embedder's default)."`
	PerDoc   int     `name:"per-doc" default:"0" help:"Multi-hop: chunks of one document ahead of other documents (0: default)."`
	JSONOut  string  `name:"json" help:"Also write the report as JSON to this file."`
	LogLevel string  `name:"log-level" env:"ARIADNE_LOG_LEVEL" default:"warn" enum:"debug,info,warn,error" help:"Log level."`

	setup.Stores   `embed:""`
	setup.Embedder `embed:""`
	setup.Chat     `embed:""`
	setup.Indexing `embed:""`
}

type retrievalCmd struct {
	common
	Strategies []string `name:"strategies" default:"bm25,vector,hybrid,graph+hybrid" help:"Strategies to compare next to the router."`
}

type cli struct {
	Retrieval retrievalCmd `cmd:"" help:"Retrieval metrics per strategy and question type, and router accuracy."`
}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

type usageError struct{ error }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c cli
	exited := -1
	parser, err := kong.New(&c, kong.Name("eval"), kong.Writers(stdout, stderr),
		kong.Description("Evaluate Ariadne on a golden question set."), kong.Exit(func(code int) { exited = code }))
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
	case "retrieval":
		return c.Retrieval.run(ctx, stdout, stderr)
	}
	return usageError{fmt.Errorf("unknown command %q", kctx.Command())}
}

// env is what every subcommand needs: the question set, the retriever, the pipeline.
type env struct {
	questions []evaluation.Question
	docLang   map[string]string
	retriever *agent.Retriever
	log       *slog.Logger
}

func (c common) open(ctx context.Context, stderr io.Writer) (*env, func(), error) {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(c.LogLevel))
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lv}))
	qs, err := evaluation.LoadGolden(c.Golden)
	if err != nil {
		return nil, nil, err
	}
	gs, err := c.Stores.OpenGraph(ctx)
	if err != nil {
		return nil, nil, err
	}
	closeAll := func() { gs.Close(context.WithoutCancel(ctx)) }
	vs, err := c.Stores.OpenVector(ctx)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	emb, _, err := c.Embedder.BuildEmbedder(ctx, log)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	e := &env{questions: qs, log: log, docLang: map[string]string{}}
	if c.Corpus != "" {
		docs, problems, err := corpus.Load(os.DirFS(c.Corpus))
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		for _, p := range problems {
			log.Warn("skipped malformed document", "path", p.Path, "reason", p.Reason)
		}
		for _, d := range docs {
			e.docLang[d.ID] = d.Lang
		}
		if c.Index {
			onto, chunker, err := c.Indexing.Build()
			if err != nil {
				closeAll()
				return nil, nil, err
			}
			model, err := c.Chat.BuildChat(log)
			if err != nil {
				closeAll()
				return nil, nil, err
			}
			ext, err := c.Indexing.BuildExtractor(onto, model)
			if err != nil {
				closeAll()
				return nil, nil, err
			}
			pipe, err := ingest.New(ingest.Config{Chunker: chunker, Embedder: emb, Extractor: ext, Ontology: onto, Graph: gs, Vectors: vs, Logger: log})
			if err != nil {
				closeAll()
				return nil, nil, err
			}
			sum, err := pipe.Sync(ctx, docs, ingest.Options{})
			if err != nil {
				closeAll()
				return nil, nil, err
			}
			fmt.Fprintf(stderr, "indexed %s: %d documents written, %d unchanged, %d chunks, %d entities (embedder %s)\n",
				c.Corpus, sum.DocsWritten, sum.DocsUnchanged, sum.Chunks, sum.Entities, emb.Name())
		}
	}
	model, err := c.Chat.BuildChat(log)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	var router agent.Router = agent.RuleRouter{}
	if model != nil {
		router = agent.LLMRouter{Model: model}
	}
	alpha := c.Alpha
	if alpha == 0 {
		alpha = agent.DefaultAlpha(emb.Name())
	}
	e.retriever = agent.NewRetriever(vs, gs, emb, router, agent.RetrievalConfig{Alpha: alpha, PerDoc: c.PerDoc,
		MinVectorScore: agent.DefaultMinVectorScore(emb.Name())}, log)
	return e, closeAll, nil
}

func (c retrievalCmd) run(ctx context.Context, stdout, stderr io.Writer) error {
	e, done, err := c.open(ctx, stderr)
	if err != nil {
		return err
	}
	defer done()
	var strategies []agent.Strategy
	for _, s := range c.Strategies {
		strategies = append(strategies, agent.Strategy(strings.TrimSpace(s)))
	}
	rep, err := evaluation.RunRetrieval(ctx, e.retriever, e.questions, strategies, c.K, e.docLang)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "## Retrieval on %s (%d questions, top %d chunks, embedder %s)\n\n", c.Golden, len(e.questions), c.K, c.Embedder.Kind)
	rep.Markdown(stdout)
	return writeJSON(c.JSONOut, rep)
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
