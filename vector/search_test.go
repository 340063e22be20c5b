package vector

import (
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// TestKeywordQuery: the keyword side of a search is its terms joined; a hybrid search with no term
// left falls back to the question's text, a BM25 search with none has nothing to match.
func TestKeywordQuery(t *testing.T) {
	for _, c := range []struct {
		mode  ariadne.SearchMode
		q     ariadne.SearchQuery
		terms string
		ok    bool
	}{
		{ariadne.SearchBM25, ariadne.SearchQuery{Text: "who leads Lumen?", Terms: []string{"lead", "lumen"}}, "lead lumen", true},
		{ariadne.SearchBM25, ariadne.SearchQuery{Text: "who is it?"}, "", false},
		{ariadne.SearchHybrid, ariadne.SearchQuery{Text: "who leads Lumen?", Terms: []string{"lead", "lumen"}}, "lead lumen", true},
		{ariadne.SearchHybrid, ariadne.SearchQuery{Text: "who is it?"}, "who is it?", true},
		{ariadne.SearchVector, ariadne.SearchQuery{Text: "who is it?"}, "", true},
	} {
		terms, ok := keywordQuery(c.mode, c.q)
		if terms != c.terms || ok != c.ok {
			t.Errorf("%s %+v: %q %v, want %q %v", c.mode, c.q, terms, ok, c.terms, c.ok)
		}
	}
}
