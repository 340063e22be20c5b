package agent_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/internal/lexicontest"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// An English question meets the Russian leave policy through BM25 only when the question's words are
// also searched in Russian (RetrievalConfig.Translations with a lexicon).
func TestIntegrationKeywordTranslations(t *testing.T) {
	rig := testrig.New(t, testrig.KB)
	lex := lexicontest.New(t,
		lexicontest.Entry{Head: "annual", Body: "annual\n   [ˈænjʊəl] _a. ежегодный, годовой"},
		lexicontest.Entry{Head: "leave", Body: "leave\n   [li:v] _n. отпуск"},
		lexicontest.Entry{Head: "paid", Body: "paid\n   _a. оплачиваемый"},
	)
	q := agent.Request{Question: "How long is the annual paid leave?", Groups: []string{ariadne.PublicGroup}, TopK: 5}
	for _, tc := range []struct {
		translations int
		want         bool
	}{{-1, false}, {1, true}} {
		r := newRetriever(rig, agent.RetrievalConfig{Lexicon: lex, Translations: tc.translations})
		res, err := r.Run(context.Background(), agent.StrategyBM25, q)
		if err != nil {
			t.Fatal(err)
		}
		docs := docsOf(res.Chunks)
		if slices.Contains(docs, "policies/leave") != tc.want {
			t.Errorf("translations %d: BM25 documents %v; want policies/leave among them: %v", tc.translations, docs, tc.want)
		}
	}
}
