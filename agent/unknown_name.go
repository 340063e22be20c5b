package agent

import (
	"slices"
	"strings"
	"unicode"

	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// unknownName returns a name the question gives that nothing the caller may read knows: a run
// of capitalized words (not a sentence's first word) that entity linking did not link (linked,
// whose surfaces cover linked names), with at least one word the lexicon does not translate (so
// "Annual Leave Policy" or «Тундра» alone are not judged), whose words (of 3 letters or more, not
// acronyms or codes) no single fragment holds all of (its text, title and headings), up to
// inflection and script (textnorm.TokenMatch and ShortNameInflected of the phonetic Latin
// forms, so «Орбиты» matches "Orbita" and «Ольги Смирновой» "Olga Smirnova"). "" when every name is known or the question gives none.
//
// An answer to a question about a client, port or person the readable documents never name is
// about something else: asked for "the account manager for Orbita Clinic", a knowledge base
// without that client answered with another client's account manager, and asked about "Nordwind
// Pharma", with Helio Pharma's.
func unknownName(question string, linked []Linked, frags []Fragment, lex *lexicon.Lexicon) string {
	var spans [][]textnorm.Token
	words := textnorm.Words(question)
	prev := -2 // index of the last word of the last span
	for i, w := range words {
		if !w.Upper || textnorm.IsStopword(textnorm.FoldString(w.Text)) || sentenceStart(question, words, i) {
			continue
		}
		if prev == i-1 && adjacent(question, words[prev].End, w.Start) {
			spans[len(spans)-1] = append(spans[len(spans)-1], w)
		} else {
			spans = append(spans, []textnorm.Token{w})
		}
		prev = i
	}
	// Each fragment's words in their phonetic Latin forms (3 letters or more), read once and only
	// when a name is to be judged.
	var fragWords [][]string
	readFragments := func() {
		for _, f := range frags {
			var ws []string
			seen := map[string]bool{}
			for _, w := range textnorm.Words(f.Chunk.ContextText()) {
				if l := textnorm.Latin(w.Text); len(l) >= 3 && !seen[l] {
					seen[l] = true
					ws = append(ws, l)
				}
			}
			fragWords = append(fragWords, ws)
		}
	}
	has := func(ws []string, o string) bool {
		return slices.ContainsFunc(ws, func(fw string) bool {
			return textnorm.TokenMatch(o, fw) || textnorm.ShortNameInflected(o, fw) || len(o) < 4 && o == fw
		})
	}
	for _, span := range spans {
		surface := question[span[0].Start:span[len(span)-1].End]
		if linkedSurface(surface, linked) {
			continue
		}
		var all []string
		own := 0
		for _, w := range span {
			if w.AllUpper || len([]rune(w.Text)) < 3 || strings.IndexFunc(w.Text, unicode.IsDigit) >= 0 {
				continue // acronyms, short words and codes (exactTerms) are not judged
			}
			all = append(all, textnorm.Latin(w.Text))
			if lex.Translate(w.Text) == nil {
				own++ // not a dictionary word: a name's own word
			}
		}
		if own == 0 {
			continue // "Annual Leave Policy", «Тундра»: capitalized common words are not judged
		}
		if fragWords == nil {
			readFragments()
		}
		// Given when one fragment holds every word of the name: "Nordwind Pharma" is not given by
		// a page about Helio Pharma, nor "Marina Petrova" by one naming Marina Lebedeva.
		if !slices.ContainsFunc(fragWords, func(ws []string) bool {
			return !slices.ContainsFunc(all, func(o string) bool { return !has(ws, o) })
		}) {
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
