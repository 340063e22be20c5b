package lexicon

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// MaxTranslations bounds the translations kept per key in either direction: a dictionary lists
// rare senses after the usual ones, and a long tail only adds chance matches. An English word also
// keeps the first sectionTranslations translations of each homonym or part of speech after its
// entry's first (TranslationSections), on top of the bound.
const MaxTranslations = 12

// sectionTranslations: how many translations of each later section an English word keeps.
const sectionTranslations = 2

// formOfRE finds the headword of an entry that only gives an English inflected form: Mueller's
// "led … _p. и _p-p. от lead II, 2", "went … _p. от go 1", "children … _pl. от child".
var formOfRE = regexp.MustCompile(`_(?:p|p-p|pl)\.(?:\s+и\s+_p-p\.)?\s+от\s+([A-Za-z]+)`)

// ErrNotFound is returned by Load when the dictionary's files are missing.
var ErrNotFound = errors.New("lexicon: data file not found")

// Load reads the dictd dictionary at prefix: prefix.index and prefix.dict.dz (gzip) or
// prefix.dict. The error wraps ErrNotFound when the index or the entries are missing.
func Load(prefix string) (*Lexicon, error) {
	index, err := os.Open(prefix + ".index")
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s.index (deploy/local.sh install lexicon)", ErrNotFound, prefix)
		}
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	defer index.Close()
	var dict io.Reader
	if f, err := os.Open(prefix + ".dict.dz"); err == nil {
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("lexicon: %s.dict.dz: %w", prefix, err)
		}
		dict = z
	} else if f, err := os.Open(prefix + ".dict"); err == nil {
		defer f.Close()
		dict = f
	} else {
		return nil, fmt.Errorf("%w: %s.dict.dz or %s.dict", ErrNotFound, prefix, prefix)
	}
	return ReadDictd(filepath.Base(prefix), index, dict)
}

// ReadDictd reads an English→Russian dictionary in the dictd format: index lines
// "headword<TAB>offset<TAB>length" (numbers in dictd's base64) into the entries' text. Entries
// whose headword is one English word give that word's translations: the Cyrillic pieces of the
// entry between numbering and semicolons or commas, with transcriptions, labels (_n., _уст.),
// parentheses and examples (pieces with Latin letters) left out — MaxTranslations of them, plus
// the first sectionTranslations of each later homonym or part of speech. An entry that only
// refers an inflected form to its headword ("led … от lead") gives the form the headword's
// translations. The reverse direction is the same pairs inverted. It fails on a malformed index
// line or an offset past the entries.
func ReadDictd(name string, index, dict io.Reader) (*Lexicon, error) {
	body, err := io.ReadAll(dict)
	if err != nil {
		return nil, fmt.Errorf("lexicon: read %s: %w", name, err)
	}
	l := &Lexicon{name: name, enRu: map[string][]string{}, enStem: map[string][]string{}, ruEn: map[string][]string{},
		enGl: map[string]string{}, enStGl: map[string]string{}, ruGl: map[string]string{}}
	type pos struct {
		en, head string
		rank     int
		size     int // bytes of the headword's entry
	}
	inv := map[string][]pos{}
	formOf := map[string]string{} // an entry that only refers an inflected form to its headword
	keys := map[string]string{}   // word → Russian key, memoized (the same words recur across entries)
	ruKey := func(w string) string {
		k, ok := keys[w]
		if !ok {
			var ru bool
			if k, ru = Key(w); !ru || len([]rune(k)) < 3 {
				k = "" // not Russian, or a clipped abbreviation («кого-л.», «т.п.»)
			}
			keys[w] = k
		}
		return k
	}
	sc := bufio.NewScanner(index)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 3 {
			return nil, fmt.Errorf("lexicon: %s.index line %d: want headword, offset and length separated by tabs", name, line)
		}
		off, err1 := b64(parts[1])
		n, err2 := b64(parts[2])
		if err1 != nil || err2 != nil || off+n > len(body) {
			return nil, fmt.Errorf("lexicon: %s.index line %d: bad offset %q or length %q", name, line, parts[1], parts[2])
		}
		head := parts[0]
		if !englishHeadword(head) {
			continue
		}
		stem, ru := headKey(head)
		if stem == "" || ru {
			continue
		}
		word := strings.ToLower(head)
		have := l.enRu[word]
		sections := TranslationSections(string(body[off : off+n]))
		trs := slices.Concat(sections...)
		if len(trs) > 0 {
			if _, ok := l.enGl[word]; !ok {
				l.enGl[word] = trs[0]
			}
			if _, ok := l.enStGl[stem]; !ok {
				l.enStGl[stem] = trs[0]
			}
		}
		add := func(tr string, max int) {
			ws := strings.FieldsFunc(tr, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })
			for _, w := range ws {
				k := ruKey(w)
				if k == "" || slices.Contains(have, k) || len(have) >= max {
					continue
				}
				r := len(have)
				if len(ws) > 1 {
					r += MaxTranslations / 2 // a word of a phrase translates the headword less directly
				}
				inv[k] = append(inv[k], pos{stem, word, r, n})
				have = append(have, k)
			}
		}
		for _, tr := range trs {
			add(tr, MaxTranslations)
		}
		// The cap fills with the first section's senses ("lead" the metal has eight); the usual
		// translations of each later homonym or part of speech («вести, руководить»; "head" as a
		// verb, «возглавлять») come on top of it, ranked after them.
		for _, sec := range sections[min(1, len(sections)):] {
			for _, tr := range sec[:min(sectionTranslations, len(sec))] {
				add(tr, len(have)+1) // one word of each
			}
		}
		if len(have) == 0 {
			if m := formOfRE.FindStringSubmatch(string(body[off : off+n])); m != nil && !strings.EqualFold(m[1], word) {
				formOf[word] = strings.ToLower(m[1])
			}
			continue
		}
		l.enRu[word] = have
		st := l.enStem[stem]
		for i, k := range have {
			if (len(st) < MaxTranslations || i >= MaxTranslations) && !slices.Contains(st, k) {
				st = append(st, k) // a later section's translations pass the cap here too
			}
		}
		l.enStem[stem] = st
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("lexicon: read %s.index: %w", name, err)
	}
	// An irregular form translates as its headword ("led": "lead"'s translations), and a text's
	// form states the headword's key (TextKeys).
	for form, head := range formOf {
		tr, ok := l.enRu[head]
		k, _ := Key(head)
		if !ok || k == "" {
			continue
		}
		l.enRu[form] = tr
		if l.base == nil {
			l.base = map[string]string{}
		}
		l.base[form] = k
	}
	for ru, ps := range inv {
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].rank < ps[j].rank })
		var ens []string
		// The gloss: the headword that gives the word early and has a long entry (a common word has
		// many senses, Zipf's meaning–frequency law): log(entry bytes) − 0.3 × its rank there.
		best, bestScore := -1, 0.0
		for i, p := range ps {
			sc := math.Log(float64(p.size)) - 0.3*float64(p.rank)
			if best < 0 || sc > bestScore {
				best, bestScore = i, sc
			}
		}
		if best >= 0 {
			l.ruGl[ru] = ps[best].head
		}
		for _, p := range ps {
			if len(ens) == MaxTranslations {
				break
			}
			if !slices.Contains(ens, p.en) {
				ens = append(ens, p.en)
			}
		}
		l.ruEn[ru] = ens
	}
	return l, nil
}

// englishHeadword reports whether a headword is one English word: Latin letters only (an
// apostrophe allowed), no spaces, hyphens or digits, not a dictd meta entry.
func englishHeadword(h string) bool {
	if h == "" || strings.HasPrefix(h, "00-database") {
		return false
	}
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '\'') {
			return false
		}
	}
	return true
}

// Translations returns the translations an entry's text gives, in order: the pieces between
// numbering, semicolons and commas that are Cyrillic, with the headword line, transcriptions,
// labels, parentheses and examples (pieces with Latin letters: "paid leave оплачиваемый отпуск",
// "= mail-cart") left out.
func Translations(entry string) []string {
	return slices.Concat(TranslationSections(entry)...)
}

// TranslationSections returns Translations grouped by the entry's sections: a homonym (_I, _II)
// or a part of speech ("1. _n.", "2. _v."), each in the dictionary's order — the usual sense of
// each first. Sections without a translation are left out.
func TranslationSections(entry string) [][]string {
	if i := strings.IndexByte(entry, '\n'); i >= 0 {
		entry = entry[i+1:] // the headword line
	} else {
		return nil
	}
	var b strings.Builder
	for _, tok := range strings.Fields(stripBrackets(entry)) {
		switch {
		case sectionMark(tok):
			b.WriteString(" ;\x00")
			continue
		case numbering(tok):
			b.WriteString(" ;")
			continue
		case tok[0] == '_': // a label: _n., _уст.
			if k := strings.IndexByte(tok, '.'); k >= 0 {
				tok = tok[k+1:]
			} else {
				tok = strings.TrimLeftFunc(tok[1:], func(r rune) bool { return r != ';' && r != ',' })
			}
		}
		b.WriteByte(' ')
		b.WriteString(tok)
	}
	var out [][]string
	for _, section := range strings.Split(b.String(), "\x00") {
		var trs []string
		for _, seg := range strings.Split(section, ";") {
			if strings.IndexFunc(seg, func(r rune) bool { return r < 128 && unicode.IsLetter(r) }) >= 0 {
				continue
			}
			for _, p := range strings.Split(seg, ",") {
				p = strings.Trim(strings.TrimSpace(p), ".:!?-=")
				if p != "" && strings.IndexFunc(p, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) >= 0 {
					trs = append(trs, strings.TrimSpace(p))
				}
			}
		}
		if len(trs) > 0 {
			out = append(out, trs)
		}
	}
	return out
}

// sectionMark reports whether a token opens a section of an entry: a homonym label (_I, _II, …)
// or a part-of-speech number ("1.", "2."; senses are numbered "1)").
func sectionMark(tok string) bool {
	if len(tok) > 1 && tok[0] == '_' && strings.Trim(tok[1:], "IVX") == "" {
		return true
	}
	return len(tok) > 1 && tok[len(tok)-1] == '.' && strings.Trim(tok[:len(tok)-1], "0123456789") == ""
}

// stripBrackets drops every [..], {..} and (..) span, nested ones included.
func stripBrackets(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch r {
		case '[', '{', '(':
			depth++
			continue
		case ']', '}', ')':
			if depth > 0 {
				depth--
				continue
			}
		}
		if depth == 0 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// numbering reports whether a token numbers a sense: "1.", "2)", "а)".
func numbering(tok string) bool {
	last := tok[len(tok)-1]
	if last != '.' && last != ')' {
		return false
	}
	body := tok[:len(tok)-1]
	if body == "" {
		return false
	}
	if strings.Trim(body, "0123456789") == "" {
		return true
	}
	r := []rune(body)
	return last == ')' && len(r) == 1 && r[0] >= 'а' && r[0] <= 'я'
}

// b64 decodes a dictd number: base64 digits, most significant first.
func b64(s string) (int, error) {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	if s == "" || len(s) > 8 {
		return 0, fmt.Errorf("lexicon: bad dictd number %q", s)
	}
	n := 0
	for i := 0; i < len(s); i++ {
		d := bytes.IndexByte([]byte(digits), s[i])
		if d < 0 {
			return 0, fmt.Errorf("lexicon: bad dictd number %q", s)
		}
		n = n*64 + d
	}
	return n, nil
}
