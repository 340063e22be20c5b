// Package lexicon is a bilingual English–Russian term lexicon for dictionary-based
// cross-language matching (query translation in the sense of Ballesteros & Croft 1997 and
// Pirkola 1998: each question word stands for all of its translations, and a sentence in the other
// language covers the word when it has any of them).
//
// The lexicon is read from a dictionary in the dictd format (an .index file and a .dict or
// gzip-compressed .dict.dz file); deploy/local.sh installs V. K. Mueller's English–Russian
// dictionary (7th edition, GPL-2) from Debian's package mueller7-dict, pinned by version and
// SHA-256, and ARIADNE_LEXICON points at it. Only the data is used: no code of the package runs.
//
// Words are compared by match key (Key): a Russian word is folded, Snowball-stemmed and written in
// Latin — the same term textnorm.SearchTerms gives it — and an English word is folded,
// Snowball-stemmed (Porter2) and written in Latin. So «отпуска» and «отпуск» share a key, as do
// "founded" and "found"; loanwords written in either script often share one too ("клиент",
// "client").
package lexicon

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"

	"github.com/ariadne-graphrag/ariadne/internal/wordcache"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Lexicon maps the match keys of words in one language to the match keys of their translations
// in the other. The zero value and nil translate nothing. A Lexicon is read-only after loading
// and safe for concurrent use.
type Lexicon struct {
	name   string
	enRu   map[string][]string // English headword (lower case) → Russian keys, in dictionary order
	enStem map[string][]string // English key → Russian keys of the headwords with that key
	ruEn   map[string][]string // Russian key → English keys, the entries that give it as a word of its own and earliest first
	enGl   map[string]string   // English headword (lower case) → its first translation, as written
	enStGl map[string]string   // English key → the first translation of the first headword with that key
	ruGl   map[string]string   // Russian key → the English headword ruEn lists first, as written
	syn    *Thesaurus          // Russian synonyms (WithThesaurus); nil: none
	places *Gazetteer          // place names (WithGazetteer); nil: none
	// base: an English inflected form the dictionary refers to its headword ("led" → "lead":
	// "_p. и _p-p. от lead") → that headword's key; its translations are the headword's.
	base map[string]string
}

// Name says which dictionary the lexicon was read from ("" for nil).
func (l *Lexicon) Name() string {
	if l == nil {
		return ""
	}
	return l.name
}

// Size returns the number of English headwords and of Russian keys with translations.
func (l *Lexicon) Size() (english, russian int) {
	if l == nil {
		return 0, 0
	}
	return len(l.enRu), len(l.ruEn)
}

// Key returns one word's match key and whether the word is Russian (Cyrillic); "" for a function
// word (textnorm.IsStopword), an empty word, or a word of digits only.
func Key(word string) (key string, russian bool) {
	k := keyCache.Get(word, analyzeKey)
	return k.key, k.russian
}

// keyCache keeps Key's result for the first 50 000 distinct words: stemming is the cost of
// matching a text's words against translations, and answers match the same sentences many times.
var keyCache = wordcache.New[wordKey](50_000)

type wordKey struct {
	key     string
	russian bool
}

// analyzeKey is Key without the cache.
func analyzeKey(word string) wordKey {
	key, russian := analyzeKeyParts(word)
	return wordKey{key, russian}
}

func analyzeKeyParts(word string) (key string, russian bool) {
	if textnorm.IsStopword(textnorm.FoldString(word)) {
		return "", false
	}
	return headKey(word)
}

// headKey is Key for a dictionary headword, without the stopword check: a headword is a content
// word, even one the stopword list holds for its function-word use ("own" in "its own"; the verb
// is «владеть», and "owns", "owned" in a text state it).
func headKey(word string) (key string, russian bool) {
	f := textnorm.FoldString(word)
	if f == "" || strings.IndexFunc(f, unicode.IsLetter) < 0 {
		return "", false
	}
	if strings.IndexFunc(f, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) >= 0 {
		ts := textnorm.SearchTerms(word)
		if len(ts) == 0 {
			return "", true
		}
		return ts[len(ts)-1], true
	}
	return textnorm.Latin(english.Stem(f, false)), false
}

// Keys returns the match keys of every word of text.
func Keys(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range textnorm.Words(text) {
		if k, _ := Key(w.Text); k != "" {
			out[k] = true
		}
	}
	return out
}

// TextKeys returns Keys of text plus, for each English word the dictionary gives as an
// inflected form of another ("led", "built", "held"), that headword's key: a translation of
// «руководить» is "lead", and "has led the team" states it; and for each Russian word the
// dictionary knows only without its fleeting vowel (ruHeadKey: «коек»), that form's key: a
// translation of "beds" is «койка», and «1 100 коек» states it.
func (l *Lexicon) TextKeys(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range textnorm.Words(text) {
		k, ru := Key(w.Text)
		if k == "" {
			continue
		}
		out[k] = true
		if l == nil {
			continue
		}
		if ru {
			out[l.ruHeadKey(k)] = true
		} else if b, ok := l.base[strings.ToLower(textnorm.FoldString(w.Text))]; ok {
			out[b] = true
		}
	}
	return out
}

// Translate returns the match keys of a word's translations into the other language (English
// for a Russian word, Russian for an English one), most usual first; nil when the lexicon does
// not know the word.
func (l *Lexicon) Translate(word string) []string {
	if l == nil {
		return nil
	}
	k, ru := Key(word)
	if k == "" {
		return nil
	}
	if ru {
		return l.ruEn[l.ruHeadKey(k)]
	}
	if tr, ok := l.enRu[strings.ToLower(textnorm.FoldString(word))]; ok {
		return tr
	}
	return l.enStem[k]
}

// ruHeadKey returns the Russian key the dictionary knows for k: k itself, or, when the dictionary
// gives no word of that key, the key of the form without the fleeting vowel of a genitive plural
// (fleetingKey: «ошибок» → «ошибк-», «коек» → «койк-»), when the dictionary knows that one. A
// count is written in the genitive plural («12 ошибок», «1 100 коек»), and the dictionary's
// translations name the nominative.
func (l *Lexicon) ruHeadKey(k string) string {
	if _, ok := l.ruEn[k]; ok {
		return k
	}
	if f := fleetingKey(k); f != "" {
		if _, ok := l.ruEn[f]; ok {
			return f
		}
	}
	return k
}

// fleetingKey returns the key of a Russian stem (Latin letters) without the fleeting vowel of its
// last syllable: an o or e between a consonant and a final consonant is dropped ("oshibok" →
// "oshibk", «ошибок» / «ошибка»), and an e after a vowel stands for «й» ("koek" → "koik", «коек» /
// «койка»); "" when k has no such vowel or fewer than four letters would remain. (The agent's
// term matching has its own form of the rule, agent.fleeting, for pairs of text words: it drops
// the vowel before one or two consonants and keeps five letters; this one finds a dictionary key.)
func fleetingKey(k string) string {
	vowel := func(c byte) bool { return strings.IndexByte("aeiouy", c) >= 0 }
	n := len(k)
	if n < 4 || vowel(k[n-1]) || k[n-1] < 'a' || k[n-1] > 'z' {
		return ""
	}
	i := n - 2 // the vowel
	switch {
	case k[i] == 'e' && vowel(k[i-1]):
		return k[:i] + "i" + k[n-1:]
	case (k[i] == 'o' || k[i] == 'e') && !vowel(k[i-1]) && n-1 >= 4:
		return k[:i] + k[n-1:]
	}
	return ""
}

// Gloss returns a word's most usual translation into the other language as written (a Russian
// word, phrase or English headword), or "" when the lexicon does not know the word.
func (l *Lexicon) Gloss(word string) string {
	if l == nil {
		return ""
	}
	k, ru := Key(word)
	if k == "" {
		return ""
	}
	if ru {
		return l.ruGl[l.ruHeadKey(k)]
	}
	if g, ok := l.enGl[strings.ToLower(textnorm.FoldString(word))]; ok {
		return g
	}
	return l.enStGl[k]
}

// GlossText writes text word by word in the other language: each word the lexicon knows is
// replaced by its gloss, function words are left out, other words (names, numbers, codes) are
// kept as they are. It is a bag of translated words for an embedder to compare across languages, not a
// translation.
func (l *Lexicon) GlossText(text string) string {
	var out []string
	for _, w := range textnorm.Words(text) {
		if g := l.Gloss(w.Text); g != "" {
			out = append(out, g)
		} else if !textnorm.IsStopword(textnorm.FoldString(w.Text)) {
			out = append(out, w.Text)
		}
	}
	return strings.Join(out, " ")
}
