package agent

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// unknownName returns a name the question gives that nothing the caller may read knows: a run
// of capitalized words (not a sentence's first word) that entity linking did not link (linked,
// whose surfaces cover linked names), with at least one word the lexicon does not translate (so
// "Annual Leave Policy" or «Тундра» alone are not judged), whose words (of 3 letters or more, not
// acronyms or codes) no single fragment holds all of (its text, title and headings), up to
// inflection and script (textnorm.TokenMatch and ShortNameInflected of the phonetic Latin
// forms, so «Орбиты» matches "Orbita" and «Ольги Смирновой» "Olga Smirnova"). A name the
// question puts in quotes («Тундра Газ», "Polar Star") is judged even when every word of it is
// a dictionary word — the quotes say it is a name — and a fragment then gives such a word by
// itself or by one of its translations («Белая сова» by "White Owl"). "" when every name is
// known or the question gives none.
//
// An answer to a question about a client, port or person the readable documents never name is
// about something else: asked for "the account manager for Orbita Clinic", a knowledge base
// without that client answered with another client's account manager, and asked about "Nordwind
// Pharma", with Helio Pharma's.
func unknownName(question string, linked []Linked, frags []Fragment, lex *lexicon.Lexicon) string {
	var spans []nameSpan
	words := textnorm.Words(question)
	prev := -2 // index of the last word of the last span
	for i, w := range words {
		if !w.Upper || textnorm.IsStopword(textnorm.FoldString(w.Text)) || sentenceStart(question, words, i) {
			continue
		}
		if prev == i-1 && adjacent(question, words[prev].End, w.Start) {
			spans[len(spans)-1].words = append(spans[len(spans)-1].words, w)
		} else {
			spans = append(spans, nameSpan{words: []textnorm.Token{w}})
		}
		prev = i
	}
	// In Russian only names are capitalized inside a sentence, so a run of two or more capitalized
	// Cyrillic words is a name even when each is a dictionary word («Тундра Газ», «Белый
	// Медведь»): judged as a quoted name is. English capitalizes titles' common words ("Annual
	// Leave Policy"), so there only quotes mark such a name.
	for i := range spans {
		spans[i].quoted = len(spans[i].words) >= 2 && !slices.ContainsFunc(spans[i].words, func(w textnorm.Token) bool {
			return strings.IndexFunc(w.Text, func(r rune) bool { return !unicode.Is(unicode.Cyrillic, r) && r != '-' }) >= 0
		})
	}
	spans = append(spans, quotedNames(question, words)...)
	// Each fragment's words in their phonetic Latin forms (3 letters or more) and its search terms
	// (Snowball stems of Russian words: an adjective's feminine ending leaves 4 Latin letters,
	// «Тысячелетняя» ~ «Тысячелетней», past what TokenMatch allows), read once and only when a
	// name is to be judged.
	var fragWords [][]string
	var fragStems []map[string]bool
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
			fragStems = append(fragStems, toSet(textnorm.SearchTerms(f.Chunk.ContextText())))
		}
	}
	has := func(ws []string, o string) bool {
		return slices.ContainsFunc(ws, func(fw string) bool {
			return textnorm.TokenMatch(o, fw) || textnorm.ShortNameInflected(o, fw) || len(o) < 4 && o == fw
		})
	}
	for _, span := range spans {
		surface := question[span.words[0].Start:span.words[len(span.words)-1].End]
		if linkedSurface(surface, linked) {
			continue
		}
		var all []nameWord
		own := 0
		for _, w := range span.words {
			if w.AllUpper || len([]rune(w.Text)) < 3 || strings.IndexFunc(w.Text, unicode.IsDigit) >= 0 ||
				textnorm.IsStopword(textnorm.FoldString(w.Text)) {
				continue // acronyms, short words, codes (exactTerms) and stopwords are not judged
			}
			nw := nameWord{latin: textnorm.Latin(w.Text)}
			if st := textnorm.SearchTerms(w.Text); len(st) == 1 && len(st[0]) >= 4 {
				nw.stem = st[0]
			}
			if tr := lex.Translate(w.Text); tr == nil {
				own++ // not a dictionary word: a name's own word
			} else if span.quoted {
				for _, t := range tr {
					var forms []string
					for _, tw := range textnorm.Words(t) {
						if l := textnorm.Latin(tw.Text); len(l) >= 3 {
							forms = append(forms, l)
						}
					}
					if len(forms) > 0 {
						nw.translations = append(nw.translations, forms)
					}
				}
			}
			all = append(all, nw)
		}
		if len(all) == 0 || own == 0 && !span.quoted {
			continue // "Annual Leave Policy", «Тундра»: capitalized common words are not judged
		}
		if fragWords == nil {
			readFragments()
		}
		// Given when one fragment holds every word of the name: "Nordwind Pharma" is not given by
		// a page about Helio Pharma, nor "Marina Petrova" by one naming Marina Lebedeva.
		given := func(i int) bool {
			ws := fragWords[i]
			return !slices.ContainsFunc(all, func(o nameWord) bool {
				return !has(ws, o.latin) && (o.stem == "" || !fragStems[i][o.stem]) &&
					!slices.ContainsFunc(o.translations, func(forms []string) bool {
						return !slices.ContainsFunc(forms, func(f string) bool { return !has(ws, f) })
					})
			})
		}
		found := false
		for i := range fragWords {
			if found = given(i); found {
				break
			}
		}
		if !found {
			return surface
		}
	}
	return ""
}

// nameSpan is a run of question words unknownName judges as one name; quoted when the question
// put it in quotes or it is two or more capitalized Cyrillic words (a name, whatever its words).
type nameSpan struct {
	words  []textnorm.Token
	quoted bool
}

// nameWord is a word of a name in its phonetic Latin form and its search term, with the Latin
// forms of the words of each of its translations (a quoted name's dictionary words only).
type nameWord struct {
	latin        string
	stem         string // its search term (textnorm.SearchTerms), when it has one of 4 letters or more
	translations [][]string
}

// maxQuotedName bounds the words of a quoted name: longer quotes are text, not names.
const maxQuotedName = 5

// quotedNames returns the names the question puts in quotes («…», “…”, „…“ or "…"): the
// words inside a pair of quotes, when the first is capitalized and there are at most
// maxQuotedName.
func quotedNames(question string, words []textnorm.Token) []nameSpan {
	var out []nameSpan
	for _, m := range quotedRE.FindAllStringIndex(question, -1) {
		var span []textnorm.Token
		for _, w := range words {
			if w.Start >= m[0] && w.End <= m[1] {
				span = append(span, w)
			}
		}
		if len(span) > 0 && len(span) <= maxQuotedName && span[0].Upper {
			out = append(out, nameSpan{words: span, quoted: true})
		}
	}
	return out
}

var quotedRE = regexp.MustCompile(`«[^»\n]+»|“[^”\n]+”|„[^“\n]+“|"[^"\n]+"`)

// Name lookups: at most maxNameSearches names of a question are searched for in the chunk index,
// nameSearchHits chunks each.
const (
	maxNameSearches = 3
	nameSearchHits  = 10
)

// nameFragments returns readable chunks outside frags that give the names of the question frags
// do not (unknownName; res.Linked the question's linked entities): for each such name in turn, a
// BM25 search of the chunk index for its words as the caller (req.Groups), the hits kept as
// fragments (numbered after frags). A name the hits do not give either stays unknown and the
// lookups stop there: the generator refuses for it.
// The rule is for subjects no readable document gives ("the account manager of Orbita Clinic"
// over a knowledge base without that client), and retrieval's top chunks are not all the
// documents: a conference "in Moscow" in a question about a training budget was refused because
// the budget's passages do not name the city, though other readable pages do. Nil when the
// fragments give every name; the error is the search's.
func (a *Answerer) nameFragments(ctx context.Context, req Request, res Result, frags []Fragment) ([]Fragment, error) {
	var extra []Fragment
	tried := map[string]bool{}
	for range maxNameSearches {
		name := unknownName(req.Question, res.Linked, append(slices.Clip(frags), extra...), a.cfg.Lexicon)
		if name == "" || tried[name] {
			break
		}
		tried[name] = true
		// The retriever's search: its retries and its breaker, the retries in the trace.
		hits, err := a.retriever.search(ctx, ariadne.SearchBM25, ariadne.SearchQuery{Terms: textnorm.SearchTerms(name), Text: name,
			Groups: req.Groups, Limit: nameSearchHits}, res.Trace)
		if err != nil {
			return extra, fmt.Errorf("agent: look up a name of the question: %w", err)
		}
		for _, h := range hits {
			if ariadne.CanRead(h.ACL, req.Groups) { // defence in depth: the search filters already
				extra = append(extra, Fragment{N: len(frags) + len(extra) + 1, Chunk: h.Chunk})
			}
		}
	}
	return extra, nil
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
