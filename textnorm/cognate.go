package textnorm

import "strings"

// Cognates: a Russian word borrowed from English («офис», «менеджер», «релиз», «бюджет»,
// «инженер») is spelt by sound, so its transliteration differs from the English spelling in the
// vowels, in g/dg/j against «дж»/«ж», in z against s and in a silent final e. CognateForm maps
// both to one skeleton and CognateMatch compares the skeletons of a word from each script. A
// bilingual dictionary misses these loanwords (an older one has no «офис» or «менеджер»), and
// they are common in the office and IT vocabulary of our documents.

// cognateSounds writes the sounds CognateForm merges as one letter.
var cognateSounds = strings.NewReplacer("dzh", "J", "zh", "J", "dg", "J", "ts", "s", "z", "s")

// CognateForm returns the cognate skeleton of a search term (SearchTerms: a Russian stem or an
// English word in phonetic Latin form): the sounds written «дж», «ж», English g before e/i and
// dg become 'J'; z becomes s and Russian ts (ц) s; each run of vowels becomes one 'V'; a final
// vowel is dropped. "manager" and «менеджер» ("menedzher") both give "mVnVJVr"; "office" and
// «офис» give "VfVs".
func CognateForm(term string) string {
	t := cognateSounds.Replace(term)
	var b strings.Builder
	prevV := false
	var last byte
	for i := 0; i < len(t); i++ {
		c := t[i]
		next := byte(0)
		if i+1 < len(t) {
			next = t[i+1]
		}
		switch {
		case c == 'g' && (next == 'e' || next == 'i'):
			c = 'J'
		case strings.IndexByte("aeiouy", c) >= 0:
			if !prevV {
				b.WriteByte('V')
			}
			prevV, last = true, 'V'
			continue
		}
		prevV = false
		if c == last {
			continue
		}
		b.WriteByte(c)
		last = c
	}
	return strings.TrimSuffix(b.String(), "V")
}

// CognateMatch reports whether two cognate skeletons (CognateForm) of words in different scripts
// are one word: equal, or one extends the other by at most two symbols (an English word is not
// stemmed, "version" against «верси»; a Russian stem may keep a suffix). Skeletons shorter than 4
// symbols or with fewer than 2 consonants never match: short skeletons collide by chance.
func CognateMatch(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) < 4 || strings.Count(a, "V") > len(a)-2 {
		return false
	}
	return strings.HasPrefix(b, a) && len(b)-len(a) <= 2
}
