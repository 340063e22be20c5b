package ingest_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/synth"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// BenchmarkUpsertIntoCorpus measures what one POST /v1/documents costs the pipeline on a stored
// corpus: a generated corpus (internal/synth, seed 1) of about ARIADNE_UPSERT_BENCH_CHUNKS chunks
// (comma-separated sizes; default 1000) is synced with the lexical embedder and the dictionary
// extractor, then each iteration upserts a new version of one typed page (one sentence added)
// and of one note, neither of which brings a new name, and a new person's page (a new name). Reported per operation: wall time, where
// it went (plan: reading the stores' states and the stored documents, chunking, resolution;
// extract; graph writes), and how many stored documents were extracted again.
func BenchmarkUpsertIntoCorpus(b *testing.B) {
	sizes := strings.Split(cmp.Or(os.Getenv("ARIADNE_UPSERT_BENCH_CHUNKS"), "1000"), ",")
	chunker, err := chunking.NewDefault()
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range sizes {
		n, err := strconv.Atoi(strings.TrimSpace(size))
		if err != nil {
			b.Fatal(err)
		}
		gen := synth.New(1, max(20, n/8))
		var docs []ariadne.Document
		for chunks := 0; chunks < n; {
			d := gen.Next()
			doc, err := corpus.Parse(d.Path, d.Content)
			if err != nil {
				b.Fatal(err)
			}
			chunks += len(chunker.Split(doc))
			docs = append(docs, doc)
		}
		rig := testrig.New(b, "")
		ctx := context.Background()
		if _, err := rig.Pipe.Sync(ctx, docs, ingest.Options{}); err != nil {
			b.Fatal(err)
		}
		for _, kind := range []string{"page", "note", "new-page"} {
			target := docs[0] // the first entity's typed page
			if kind == "note" {
				target = docs[len(docs)-1]
			}
			b.Run(fmt.Sprintf("chunks=%d/%s", n, kind), func(b *testing.B) {
				var plan, extract, graph float64
				restored := 0
				i := 0
				for b.Loop() {
					i++
					d := target
					d.Body += fmt.Sprintf("\n\nRevision %d of this page.\n", i)
					if kind == "new-page" {
						// A person no document named before: every stored document is extracted again.
						name := fmt.Sprintf("Zenobia Benchmark%c%c", 'A'+rune(i/26%26), 'a'+rune(i%26))
						d = ariadne.Document{ID: fmt.Sprintf("people/bench-%d", i), Title: name, Type: "person", Lang: "en",
							ACL: []string{ariadne.PublicGroup}, Body: "# " + name + "\n\n" + name + " is a colleague based in Omsk.\n"}
					}
					sum, err := rig.Pipe.Upsert(ctx, []ariadne.Document{d}, ingest.Options{})
					if err != nil {
						b.Fatal(err)
					}
					plan += sum.Phases.Plan.Seconds()
					extract += sum.Phases.Extract.Seconds()
					graph += sum.Phases.Graph.Seconds()
					restored += sum.Restored.Extracted
				}
				k := float64(b.N)
				b.ReportMetric(plan*1000/k, "plan-ms/op")
				b.ReportMetric(extract*1000/k, "extract-ms/op")
				b.ReportMetric(graph*1000/k, "graph-ms/op")
				b.ReportMetric(float64(restored)/k, "stored-docs-extracted/op")
				b.ReportMetric(float64(len(docs)), "docs")
			})
		}
	}
}
