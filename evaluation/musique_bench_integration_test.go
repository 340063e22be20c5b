package evaluation_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/evaluation"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// BenchmarkMuSiQue measures, on the MuSiQue-100 corpus of ../shared/datasets (1 890 distinct
// paragraphs, one document each; skipped with the reason when ../shared is not here), ingestion
// throughput with the lexical embedder and dictionary extractor (chunks/s, Weaviate and
// Neo4j writes included), then retrieval latency per strategy over the 100 questions, top 10
// (p50/p95 ms; vector serves the simple route, hybrid the hybrid route, graph+hybrid multi_hop),
// and routed recall@5 so that speed reads next to quality.
func BenchmarkMuSiQue(b *testing.B) { benchMuSiQue(b, nil) }

// BenchmarkMuSiQueE5 is BenchmarkMuSiQue with multilingual-e5-small (skipped where it is not
// installed); ingestion is bound by embedding on the CPU, about 5 minutes on 2 cores.
func BenchmarkMuSiQueE5(b *testing.B) { benchMuSiQue(b, testrig.E5(b)) }

func benchMuSiQue(b *testing.B, emb testrig.Embedder) {
	docs, qs, err := evaluation.LoadMuSiQue(testrig.SharedOrSkip(b, "datasets/musique_100.json"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		var rig *testrig.Rig
		if emb == nil {
			rig = testrig.New(b, "")
		} else {
			rig = testrig.NewWithEmbedder(b, "", emb)
		}
		b.StartTimer()
		sum, err := rig.Pipe.Sync(ctx, docs, ingest.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		b.ReportMetric(float64(sum.Chunks)/sum.Elapsed.Seconds(), "chunks/s")
		b.ReportMetric(float64(sum.Chunks), "chunks")

		name := rig.Embedder.Name()
		r := agent.NewRetriever(rig.Vector, rig.Graph, rig.Embedder, agent.RuleRouter{}, agent.RetrievalConfig{
			Alpha: agent.DefaultAlpha(name), MinVectorScore: agent.DefaultMinVectorScore(name)}, nil)
		strategies := []agent.Strategy{agent.StrategyBM25, agent.StrategyVector, agent.StrategyHybrid, agent.StrategyGraph}
		rep, err := evaluation.RunRetrieval(ctx, r, qs, strategies, 10, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, row := range rep.Rows {
			if row.Group != "all" {
				continue
			}
			b.ReportMetric(row.Latency["p50"], fmt.Sprintf("p50-ms/%s", row.Retriever))
			b.ReportMetric(row.Latency["p95"], fmt.Sprintf("p95-ms/%s", row.Retriever))
			if row.Retriever == evaluation.Routed {
				b.ReportMetric(row.Recall[5], "recall@5/routed")
			}
		}
		b.StartTimer()
	}
}
