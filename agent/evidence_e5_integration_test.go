package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// TestIntegrationEvidenceE5 ranks the units of the repo corpus (testrig.KB) with the real e5
// server and the fitted semantic weight set. What it pins down is the measured state, weakness
// included (docs/evaluation.md, "Evidence by meaning"): an English question over Russian evidence
// puts the sentence that holds the fact first, but below the answerability threshold chosen for
// 0.80 precision, so it is refused; a question whose fact no document states is refused too.
func TestIntegrationEvidenceE5(t *testing.T) {
	emb := testrig.E5(t)
	docs, _, err := corpus.Load(os.DirFS(testrig.KB))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]ariadne.Document{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	frag := func(n int, id string) agent.Fragment {
		d, ok := byID[id]
		if !ok {
			t.Fatalf("no document %s in %s", id, filepath.Base(testrig.KB))
		}
		return agent.Fragment{N: n, Chunk: ariadne.Chunk{ID: id + "#0000-00000000", DocID: id, Title: d.Title, Text: d.Body, ACL: []string{"all"}}}
	}
	frags := []agent.Fragment{frag(1, "policies/leave"), frag(2, "people/vera-kolesnik"), frag(3, "incidents/inc-7042"), frag(4, "policies/leave-2022")}
	ranker := agent.EvidenceRanker{Embedder: agent.NewCachingEmbedder(emb, 0, nil)}
	set, err := ranker.WeightSet()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		question, want string // want: a substring of the top unit; "" when not checked
	}{
		{"How many calendar days of paid annual leave does an employee get since 2024?", "31 календарный день"},
		{"Кто руководит командой бэкенда?", ""},
		{"Сколько стоит парковка у офиса в Казани?", ""},
	} {
		units, err := ranker.RankUnits(ctx, tc.question, nil, frags, nil)
		if err != nil {
			t.Fatal(err)
		}
		top := units[0]
		t.Logf("%q → %.3f %q (threshold %.3f)", tc.question, top.Score, top.Text, set.Threshold)
		if top.Score >= set.Threshold {
			t.Errorf("%q: %q scores %.3f ≥ threshold %.3f: the cross-language case now clears the bar — update the test and docs", tc.question, top.Text, top.Score, set.Threshold)
		}
		if tc.want != "" && !strings.Contains(top.Text, tc.want) {
			t.Errorf("%q: top unit %q (%.3f), want one with %q", tc.question, top.Text, top.Score, tc.want)
		}
	}
}
