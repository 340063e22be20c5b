package agent_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/lexicon"
)

// An English question meets the Russian leave policy through BM25 only when the question's words are
// also searched in Russian (RetrievalConfig.Translations with a lexicon).
func TestIntegrationKeywordTranslations(t *testing.T) {
	rig := testrig.New(t, testrig.KB)
	entries := []struct{ head, body string }{
		{"annual", "annual\n   [ˈænjʊəl] _a. ежегодный, годовой"},
		{"leave", "leave\n   [li:v] _n. отпуск"},
		{"paid", "paid\n   _a. оплачиваемый"},
	}
	var index, dict strings.Builder
	for _, e := range entries {
		index.WriteString(e.head + "\t" + b64(dict.Len()) + "\t" + b64(len(e.body)) + "\n")
		dict.WriteString(e.body + "\n")
	}
	lex, err := lexicon.ReadDictd("test", strings.NewReader(index.String()), strings.NewReader(dict.String()))
	if err != nil {
		t.Fatal(err)
	}
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

// b64 writes n in dictd's base64 digits.
func b64(n int) string {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	out := []byte{digits[n%64]}
	for n /= 64; n > 0; n /= 64 {
		out = append([]byte{digits[n%64]}, out...)
	}
	return string(out)
}
