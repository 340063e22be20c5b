package agent_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// TestIntegrationWalkE5 runs the query-aware walk against real Neo4j and the real e5 model over
// the repository's test corpus: a two-hop question (the team that owns a library → its lead's
// office) gets both documents in the top 5 (a known miss, "Who led the incident in which
// orders of the bakeries got stuck, and which team does he lead?", is in docs/multi-hop.md), and the trace shows the walk (graph size, seeds,
// confidence, weight) and its timings.
func TestIntegrationWalkE5(t *testing.T) {
	rig := testrig.NewWithEmbedder(t, testrig.KB, testrig.E5(t))
	ctx := context.Background()
	r := newRetriever(rig, agent.RetrievalConfig{})
	for _, tc := range []struct {
		question string
		gold     []string
	}{
		{"В каком городе офис руководителя команды, которая владеет библиотекой doughmill?", []string{"teams/foundation", "people/artem-berezin"}},
	} {
		res, err := r.Run(ctx, agent.StrategyGraph, agent.Request{Question: tc.question, Groups: []string{"all"}, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		got := docsOf(res.Chunks)
		for _, g := range tc.gold {
			if !slices.Contains(got, g) {
				t.Errorf("%q: top 5 %v, want %s", tc.question, got, g)
			}
		}
		note := res.Trace.Steps[0].Note
		if !strings.Contains(note, "walk over") || !strings.Contains(note, "graph weight") {
			t.Errorf("trace note %q does not describe the walk", note)
		}
		if _, ok := res.Trace.Timings["walk_ppr"]; !ok {
			t.Errorf("timings %v lack walk_ppr", res.Trace.Timings)
		}
		t.Logf("%s → %v; %s", tc.question, got, note)
	}
}
