package agent_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// TestIntegrationE5CrossLanguage runs retrieval with the real multilingual-e5-small model:
// questions in one language find documents written in the other, which the lexical embedder
// cannot do; and the class records the embedder, so another embedder's vectors are refused.
func TestIntegrationE5CrossLanguage(t *testing.T) {
	emb := testrig.E5(t)
	rig := testrig.NewWithEmbedder(t, testrig.KB, emb)
	ctx := context.Background()
	r := newRetriever(rig, agent.RetrievalConfig{})
	// Asked in English, answered by pages written in Russian (testrig.KB); the lexical embedder's
	// top 3 holds neither page on the same corpus, which the test checks too.
	lexical := newRetriever(testrig.New(t, testrig.KB), agent.RetrievalConfig{})
	tests := []struct {
		question string
		doc      string
	}{
		{"How do I apply for vacation and who approves it?", "policies/leave"},
		{"How many construction sites does the equipment tracking project cover?", "projects/olkha-sites"},
		{"Which delays happened to the bakery orders in March and what was the root cause?", "incidents/inc-7042"},
	}
	for _, tc := range tests {
		res, err := r.Run(ctx, agent.StrategyVector, agent.Request{Question: tc.question, Groups: []string{"all"}, TopK: 3})
		if err != nil {
			t.Fatal(err)
		}
		if got := docsOf(res.Chunks); !slices.Contains(got, tc.doc) {
			t.Errorf("e5 vector search for %q: %v, want %s in the top 3", tc.question, got, tc.doc)
		}
		lex, err := lexical.Run(ctx, agent.StrategyVector, agent.Request{Question: tc.question, Groups: []string{"all"}, TopK: 3})
		if err != nil {
			t.Fatal(err)
		}
		if got := docsOf(lex.Chunks); slices.Contains(got, tc.doc) {
			t.Errorf("the lexical embedder also finds %s for %q (%v): the question does not test cross-language retrieval", tc.doc, tc.question, got)
		}
	}
	e, ok, err := rig.Vector.ClassEmbedding(ctx)
	if err != nil || !ok || e != (ariadne.Embedding{Name: emb.Name(), Dim: 384}) {
		t.Fatalf("class embedding = %+v %v %v, want %s/384", e, ok, err, emb.Name())
	}
	if err := rig.Vector.EnsureClass(ctx, ariadne.Embedding{Name: "lexical-ngram-v1/768", Dim: 768}); err == nil {
		t.Fatal("a class built with e5 accepted the lexical embedder")
	}
}
