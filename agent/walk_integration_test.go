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

// TestIntegrationEntityMentionsACL: the walk's step from an entity to the chunks that mention it
// lists and counts only chunks the caller may read (Orbita Booking is also named by a
// management-only contract and a delivery-only runbook).
func TestIntegrationEntityMentionsACL(t *testing.T) {
	rig := testrig.New(t, testrig.KB)
	ctx := context.Background()
	cands, err := rig.Graph.EntityCandidates(ctx, "Orbita Booking", []string{"all"}, 10)
	if err != nil || len(cands) == 0 {
		t.Fatalf("candidates %v, err %v", cands, err)
	}
	key := cands[0].Key
	public, err := rig.Graph.EntityMentions(ctx, []string{key}, []string{"all"}, 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	all, err := rig.Graph.EntityMentions(ctx, []string{key}, []string{"all", "management", "delivery"}, 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	pm, am := public[key], all[key]
	if pm.Mentions == 0 || am.Mentions <= pm.Mentions || len(pm.ChunkIDs) != pm.Mentions {
		t.Fatalf("mentions: public %d %v, all %d %v", pm.Mentions, pm.ChunkIDs, am.Mentions, am.ChunkIDs)
	}
	for _, id := range pm.ChunkIDs {
		if strings.HasPrefix(id, "contracts/") || strings.HasPrefix(id, "runbooks/orbita-release") {
			t.Errorf("public caller sees restricted chunk %s", id)
		}
	}
	if pm.Node.Name == "" || pm.Node.Key != key {
		t.Errorf("node %+v", pm.Node)
	}
	// Past the expand bound an entity is a hub to the walk: counted, its chunks not listed.
	hub, err := rig.Graph.EntityMentions(ctx, []string{key}, []string{"all"}, 50, pm.Mentions-1)
	if err != nil {
		t.Fatal(err)
	}
	if h := hub[key]; h.Mentions != pm.Mentions || len(h.ChunkIDs) != 0 {
		t.Errorf("expand %d: mentions %d, chunk ids %v; want %d and none", pm.Mentions-1, h.Mentions, h.ChunkIDs, pm.Mentions)
	}
	// Counting stops one past the bound: past it every entity is a hub alike.
	if pm.Mentions >= 3 {
		capped, err := rig.Graph.EntityMentions(ctx, []string{key}, []string{"all"}, 50, pm.Mentions-2)
		if err != nil {
			t.Fatal(err)
		}
		if c := capped[key]; c.Mentions != pm.Mentions-1 || len(c.ChunkIDs) != 0 {
			t.Errorf("expand %d: mentions %d, chunk ids %v; want %d and none", pm.Mentions-2, c.Mentions, c.ChunkIDs, pm.Mentions-1)
		}
	} else {
		t.Errorf("public mentions %d; the test needs 3 or more", pm.Mentions)
	}
	within, err := rig.Graph.EntityMentions(ctx, []string{key}, []string{"all"}, 50, pm.Mentions)
	if err != nil {
		t.Fatal(err)
	}
	if w := within[key]; !slices.Equal(w.ChunkIDs, pm.ChunkIDs) {
		t.Errorf("expand %d: chunk ids %v, want %v", pm.Mentions, w.ChunkIDs, pm.ChunkIDs)
	}
}
