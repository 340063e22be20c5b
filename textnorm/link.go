package textnorm

import (
	"slices"
	"strings"
)

// LinkForm is one form of a word searched when linking text to entity names: the word folded or
// in its phonetic Latin form, whole or (Prefix) as the start of a longer name.
type LinkForm struct {
	Text   string
	Prefix bool // matches names that start with Text (inflected forms: «Донского» → «Донск…»)
}

// LinkForms returns the distinct forms under which the content words of text are looked up in
// the entity name index: each word folded (FoldString) and in its Latin form (Latin), and, for
// words of five or more letters, the first max(4, n−3) letters of both as prefixes. Stopwords and
// one-letter words are skipped. Order: first occurrence.
func LinkForms(text string) []LinkForm {
	var out []LinkForm
	add := func(f LinkForm) {
		if f.Text != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, w := range Words(text) {
		f := FoldString(w.Text)
		if IsStopword(f) || len([]rune(f)) < 2 {
			continue
		}
		lat := Latin(w.Text)
		add(LinkForm{Text: f})
		add(LinkForm{Text: lat})
		for _, form := range []string{f, lat} {
			if r := []rune(form); len(r) >= 5 {
				add(LinkForm{Text: string(r[:max(4, len(r)-3)]), Prefix: true})
			}
		}
	}
	return out
}

// LatinKeys returns the distinct phonetic Latin keys (Key) of names, both spaced and compact
// ("ter plast", "terplast"), joined by " | " for a fulltext index.
func LatinKeys(names []string) string {
	var parts []string
	for _, n := range names {
		k := Key(n)
		if k == "" {
			continue
		}
		for _, v := range []string{k, strings.ReplaceAll(k, " ", "")} {
			if !slices.Contains(parts, v) {
				parts = append(parts, v)
			}
		}
	}
	return strings.Join(parts, " | ")
}
