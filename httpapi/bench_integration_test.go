package httpapi_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne/evaluation"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// BenchmarkQueryLatency measures POST /v1/query end to end (HTTP, routing, retrieval, extractive
// generation, verification) over the real stores on ../shared/corpus/kb, with the questions of
// ../shared/corpus/golden-dev.jsonl, and reports p50/p95 milliseconds per route. Skipped with its
// reason when ../shared is not here.
func BenchmarkQueryLatency(b *testing.B) {
	kb := testrig.SharedOrSkip(b, "corpus/kb")
	golden := testrig.SharedOrSkip(b, "corpus/golden-dev.jsonl")
	rig := testrig.New(b, kb)
	a := newAPIForBench(b, rig)
	qs, err := evaluation.LoadGolden(golden)
	if err != nil {
		b.Fatal(err)
	}
	lat := map[string][]float64{}
	for b.Loop() {
		for _, q := range qs {
			start := time.Now()
			code, qr := a.benchQuery(b, q.Question, q.UserGroups)
			if code >= 500 {
				b.Fatalf("%s: HTTP %d", q.ID, code)
			}
			route := string(qr.Route)
			lat[route] = append(lat[route], float64(time.Since(start).Microseconds())/1000)
		}
	}
	routes := make([]string, 0, len(lat))
	for r := range lat {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	for _, r := range routes {
		b.ReportMetric(evaluation.Percentile(lat[r], 50), fmt.Sprintf("p50-ms/%s", r))
		b.ReportMetric(evaluation.Percentile(lat[r], 95), fmt.Sprintf("p95-ms/%s", r))
	}
}
