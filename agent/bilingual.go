package agent

import (
	"slices"

	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// keywordTerms returns the BM25 terms of a question (textnorm.SearchTerms, the analysis the
// chunks' search_text was indexed with) followed, with a lexicon, by the question's words in the
// other language: for an English word, the match keys of at most n of its most usual Russian
// translations (lexicon.Translate; a Russian key is the word's own search term); for a Russian
// word, the search terms of its most usual English translation as written (lexicon.Gloss). A
// question in one language then meets BM25 evidence in the other, which the 4-bit e5's vectors
// rank low on short cross-language pairs; in a corpus of one language the other language's terms
// match nothing and change no score. n <= 0 or no lexicon: the question's own terms only.
func keywordTerms(question string, lex *lexicon.Lexicon, n int) []string {
	terms := textnorm.SearchTerms(question)
	if lex == nil || n <= 0 {
		return terms
	}
	out := slices.Clone(terms)
	add := func(t string) {
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	for _, w := range textnorm.Words(question) {
		if _, ru := lexicon.Key(w.Text); ru {
			for _, t := range textnorm.SearchTerms(lex.Gloss(w.Text)) {
				add(t)
			}
			continue
		}
		tr := lex.Translate(w.Text)
		for _, k := range tr[:min(len(tr), n)] {
			add(k)
		}
	}
	return out
}
