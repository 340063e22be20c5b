package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/embedding"
	"github.com/ariadne-graphrag/ariadne/evaluation"
	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/setup"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// extractionCmd compares extractors on a corpus with an entity variant table: entity resolution
// of their mentions against the table, mentions and relations per chunk, and chunks/s. Nothing
// is written to the stores.
type extractionCmd struct {
	Corpus     string   `name:"corpus" required:"" help:"Corpus folder."`
	Variants   string   `name:"variants" required:"" help:"Markdown file with the corpus's entity variant table (a table whose header starts with \"| Canonical entity\")."`
	Extractors []string `name:"extractors" default:"dictionary" help:"Extractors compared side by side: dictionary, llm (needs a chat model)."`
	Sample     string   `name:"sample" default:"variants" enum:"variants,all" help:"Chunks extracted: variants (those holding a table spelling in a document the table lists for it), all (every chunk)."`
	Every      int      `name:"every" default:"1" help:"Keep every Nth chunk of the sample, in document id and position order (a spread-out subsample for a slow extractor)."`
	Limit      int      `name:"limit" default:"0" help:"At most this many chunks of the sample, after --every (0: all)."`
	Workers    int      `name:"workers" default:"2" help:"Documents extracted at a time (the LLM extractor sends up to 2 chunks of each at once)."`
	JSONOut    string   `name:"json" help:"Also write the reports as JSON to this file."`
	LogLevel   string   `name:"log-level" env:"ARIADNE_LOG_LEVEL" default:"warn" enum:"debug,info,warn,error" help:"Log level."`

	setup.Stores   `embed:""`
	setup.Chat     `embed:""`
	setup.Indexing `embed:""`
	setup.Lexicon  `embed:""`
}

func (x extractionCmd) run(ctx context.Context, stdout, stderr io.Writer) error {
	log := setup.NewLogger(stderr, x.LogLevel, false)
	vs, err := evaluation.LoadVariantTable(x.Variants)
	if err != nil {
		return err
	}
	docs, problems, err := corpus.Load(os.DirFS(x.Corpus))
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "skipped malformed document %s: %s\n", p.Path, p.Reason)
	}
	onto, chunker, err := x.Indexing.Build()
	if err != nil {
		return err
	}
	var lex *lexicon.Lexicon // entity recognition's only (about 1 s to load)
	if x.Indexing.RecognitionAsked() {
		if lex, err = x.Lexicon.Load(log); err != nil {
			return err
		}
	}
	rec, _, err := x.Indexing.BuildRecognizer(ctx, onto, lex, log)
	if err != nil {
		return err
	}
	model, err := x.Chat.BuildChat(log)
	if err != nil {
		return err
	}
	// The pipeline needs its stores to be built; ExtractOnly reads and writes neither.
	if x.Stores.Neo4jNamespace == "" {
		x.Stores.Neo4jNamespace = EvalNamespace
	}
	gs, err := x.Stores.OpenGraph(ctx)
	if err != nil {
		return err
	}
	defer gs.Close(context.WithoutCancel(ctx))
	vstore, err := x.Stores.OpenVector(ctx)
	if err != nil {
		return err
	}
	var reports []evaluation.ExtractionReport
	for _, name := range x.Extractors {
		name = strings.TrimSpace(name)
		ix := x.Indexing
		ix.Extractor = name
		ext, err := ix.BuildExtractor(onto, model)
		if err != nil {
			return usageError{err}
		}
		pipe, err := ingest.New(ingest.Config{Chunker: chunker, Embedder: embedding.NewLexical(8),
			Extractor: ext, Recognizer: rec, Ontology: onto, Graph: gs, Vectors: vstore, Logger: log, Workers: x.Workers})
		if err != nil {
			return err
		}
		res, err := pipe.ExtractOnly(ctx, docs, x.keep(vs))
		if err != nil {
			return err
		}
		label := ext.Name()
		rep := evaluation.ScoreExtraction(label, vs, res.Chunks, res.Facts)
		rep.Seconds = res.Extract.Seconds()
		rep.ChunksPerSecond = float64(rep.Chunks) / max(rep.Seconds, 1e-9)
		if l, ok := ext.(*extraction.LLM); ok {
			rep.Fallbacks = len(l.Fallbacks())
		}
		reports = append(reports, rep)
		fmt.Fprintf(stderr, "extraction: %s done, %d chunks in %.1f s\n", label, rep.Chunks, rep.Seconds)
	}
	fmt.Fprintf(stdout, "## Extraction on %s — %d variant spellings, sample %s, every %d, limit %d\n\n", x.Corpus, len(vs), x.Sample, max(x.Every, 1), x.Limit)
	evaluation.ExtractionMarkdown(stdout, reports)
	for _, r := range reports {
		fmt.Fprintf(stdout, "\n### %s: spellings of documented entities not linked to their document's entity, and spellings without a mention\n\n", r.Extractor)
		for _, o := range r.Occurrences {
			want, documented := strings.CutPrefix(o.Canonical, "doc:")
			if o.Entity == want || (!documented && o.Entity != "") {
				continue
			}
			got := o.Entity
			if got == "" {
				got = "(no mention)"
			}
			fmt.Fprintf(stdout, "- %q in %s: %s (want %s)\n", o.Form, o.ChunkID, got, want)
		}
	}
	return writeJSON(x.JSONOut, reports)
}

// keep returns the chunk filter of --sample, --every and --limit; call it once per run (it counts).
func (x extractionCmd) keep(vs []evaluation.VariantSpelling) func(ariadne.Chunk) bool {
	forms := map[string][]string{} // document id → table spellings listed for it
	for _, v := range vs {
		for _, d := range v.Docs {
			forms[d] = append(forms[d], v.Form)
		}
	}
	every := max(x.Every, 1)
	seen, kept := 0, 0
	return func(c ariadne.Chunk) bool {
		if x.Limit > 0 && kept >= x.Limit {
			return false
		}
		ok := x.Sample == "all"
		for _, f := range forms[c.DocID] {
			if _, _, found := textnorm.Index(c.Text, f); found {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
		seen++
		if (seen-1)%every != 0 {
			return false
		}
		kept++
		return true
	}
}
