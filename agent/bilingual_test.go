package agent

import (
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// BM25 also searches the question's words in the other language: an English word's first n
// Russian translations, a Russian word's English gloss; without a lexicon or with n <= 0, the
// question's own terms only.
func TestKeywordTerms(t *testing.T) {
	lex := testLexicon(t)
	key := func(w string) string { ts := textnorm.SearchTerms(w); return ts[len(ts)-1] }
	en := "Who is the lighthouse keeper?"
	ru := "Кто смотритель маяка?"
	tests := []struct {
		name     string
		question string
		n        int
		noLex    bool
		want     []string
	}{
		{"English, two translations per word", en, 2, false,
			append(textnorm.SearchTerms(en), key("маяк"), key("хранитель"), key("смотритель"))},
		{"English, one translation per word", en, 1, false,
			append(textnorm.SearchTerms(en), key("маяк"), key("хранитель"))},
		{"Russian: the English glosses", ru, 1, false,
			append(textnorm.SearchTerms(ru), key("keeper"), key("lighthouse"))},
		{"n = 0: own terms only", en, 0, false, textnorm.SearchTerms(en)},
		{"no lexicon: own terms only", en, 2, true, textnorm.SearchTerms(en)},
	}
	for _, tc := range tests {
		l := lex
		if tc.noLex {
			l = nil
		}
		if got := keywordTerms(tc.question, l, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("%s: keywordTerms(%q, %d) = %q, want %q", tc.name, tc.question, tc.n, got, tc.want)
		}
	}
}
