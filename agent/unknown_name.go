package agent

import (
	"strings"
	"unicode"

	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// unknownName returns a name the question gives that nothing the caller may read knows: a run
// of capitalized words (not the question's first word) that entity linking did not link (linked,
// whose surfaces cover linked names) and whose own words — those the lexicon does not translate,
// so "Clinic" or «Банк» do not count, and of at least 3 letters — match no word of any fragment
// (its text, title and headings), up to inflection and script (textnorm.TokenMatch of the
// phonetic Latin forms, so «Орбиты» matches "Orbita"). "" when every name is known or the
// question gives none.
//
// An answer to a question about a client, port or person the readable documents never name is
// about something else: asked for "the account manager for Orbita Clinic", a knowledge base
// without that client answered with another client's account manager.
func unknownName(question string, linked []Linked, frags []Fragment, lex *lexicon.Lexicon) string {
	var spans [][]textnorm.Token
	words := textnorm.Words(question)
	for i, w := range words {
		name := w.Upper && !textnorm.IsStopword(textnorm.FoldString(w.Text)) && !sentenceStart(question, words, i)
		if !name {
			continue
		}
		if n := len(spans); n > 0 && spans[n-1][len(spans[n-1])-1].End == lastWordEnd(words, i) && adjacent(question, spans[n-1][len(spans[n-1])-1].End, w.Start) {
			spans[n-1] = append(spans[n-1], w)
		} else {
			spans = append(spans, []textnorm.Token{w})
		}
	}
	if len(spans) == 0 {
		return ""
	}
	var fragWords []string
	seen := map[string]bool{}
	for _, f := range frags {
		for _, w := range textnorm.Words(f.Chunk.ContextText()) {
			if l := textnorm.Latin(w.Text); len(l) >= 3 && !seen[l] {
				seen[l] = true
				fragWords = append(fragWords, l)
			}
		}
	}
	for _, span := range spans {
		surface := question[span[0].Start:span[len(span)-1].End]
		if linkedSurface(surface, linked) {
			continue
		}
		var own []string
		for _, w := range span {
			if w.AllUpper || len([]rune(w.Text)) < 3 || strings.IndexFunc(w.Text, unicode.IsDigit) >= 0 || lex.Translate(w.Text) != nil {
				continue // acronyms, short words, codes (exactTerms) and dictionary words are not judged
			}
			own = append(own, textnorm.Latin(w.Text))
		}
		if len(own) == 0 {
			continue
		}
		found := false
		for _, o := range own {
			for _, fw := range fragWords {
				if textnorm.TokenMatch(o, fw) || len(o) < 4 && o == fw {
					found = true
					break
				}
			}
			if found {
				break
			}
		}
		if !found {
			return surface
		}
	}
	return ""
}

// sentenceStart reports whether words[i] begins a sentence of text: the first word, or one
// after . ! ? or a line break.
func sentenceStart(text string, words []textnorm.Token, i int) bool {
	return i == 0 || strings.ContainsAny(text[words[i-1].End:words[i].Start], ".!?\n")
}

// lastWordEnd is the end of the word before words[i] (-1 for the first).
func lastWordEnd(words []textnorm.Token, i int) int {
	if i == 0 {
		return -1
	}
	return words[i-1].End
}

// adjacent reports whether only spaces or a hyphen lie between byte offsets end and start.
func adjacent(text string, end, start int) bool {
	return strings.Trim(text[end:start], " -") == ""
}

// linkedSurface reports whether a linked entity's surface overlaps surface (by a shared word).
func linkedSurface(surface string, linked []Linked) bool {
	words := textnorm.Words(surface)
	for _, l := range linked {
		for _, lw := range textnorm.Words(l.Surface) {
			for _, w := range words {
				if textnorm.TokenMatch(textnorm.Latin(lw.Text), textnorm.Latin(w.Text)) {
					return true
				}
			}
		}
	}
	return false
}
