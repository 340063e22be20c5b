package lexicon

import (
	"strings"
	"unicode"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// SameName reports whether a and b, one written in Latin letters and the other in Cyrillic, name
// the same thing word for word: the names have the same number (two to six) of content words,
// and their words pair off one to one — by spelling up to an ending (textnorm.TokenMatch of the
// phonetic keys: «криосферы» ~ "Cryosphere", «Институт» ~ "Institute") or a derivation of a stem
// of five letters or more ("Modelling" ~ «моделирования»), by a translation the
// dictionary gives either way ("State" ~ «государственный», «центр» ~ "Centre", "Research" ~
// «исследований»), or as a Russian adjective made of a place name ("Kama" ~ «Камский», "Vologda"
// ~ «Вологодская»). So
// "Kama State University" is «Камский государственный университет» and "Institute of Geography"
// is «Институт географии», while «Пермский государственный университет» is not the first: every
// word must have its partner. Word order is free (an English name puts the head noun last).
func (l *Lexicon) SameName(a, b string) bool {
	if l == nil {
		return false
	}
	ka, ruA := nameWords(a)
	kb, ruB := nameWords(b)
	if len(ka) < 2 || len(ka) != len(kb) || len(ka) > 6 || ruA == nil || ruB == nil || *ruA == *ruB {
		return false
	}
	en, ru := ka, kb
	if *ruA {
		en, ru = kb, ka
	}
	match := make([][]bool, len(en))
	for i, e := range en {
		match[i] = make([]bool, len(ru))
		for j, r := range ru {
			match[i][j] = l.sameWord(e, r)
		}
	}
	return perfectMatching(match)
}

// ContentWords is the number of a name's content words (words with a match key, Key): the words
// SameName pairs.
func ContentWords(name string) int {
	n := 0
	for _, w := range textnorm.Words(name) {
		if k, _ := Key(w.Text); k != "" {
			n++
		}
	}
	return n
}

// nameWord is one content word of a name: as written and its match key (Key).
type nameWord struct{ text, key string }

// nameWords returns the content words of a name and whether all are Cyrillic (nil: mixed scripts
// or no content word).
func nameWords(name string) ([]nameWord, *bool) {
	var out []nameWord
	var ru *bool
	for _, w := range textnorm.Words(name) {
		k, cyr := Key(w.Text)
		if k == "" {
			continue
		}
		if ru == nil {
			ru = &cyr
		} else if *ru != cyr {
			return nil, nil
		}
		out = append(out, nameWord{w.Text, k})
	}
	return out, ru
}

// sameWord reports whether an English word and a Russian word of two names are one word of the
// name (see SameName).
func (l *Lexicon) sameWord(en, ru nameWord) bool {
	// Up to an ending, or one a derivation of the other's stem of five letters or more
	// ("Modelling" ~ «моделирования»: model ~ modelirovan).
	same := func(a, b string) bool {
		return textnorm.TokenMatch(a, b) || len(a) >= 5 && strings.HasPrefix(b, a) || len(b) >= 5 && strings.HasPrefix(a, b)
	}
	if same(en.key, ru.key) {
		return true
	}
	for _, t := range l.Translate(en.text) {
		if same(t, ru.key) {
			return true
		}
	}
	for _, t := range l.Translate(ru.text) {
		if same(t, en.key) {
			return true
		}
	}
	// «Камский» of Kama: the Russian adjective is the place's stem and -sk-; the stem may gain or
	// lose a vowel on the way («Вологодская» of Vologda, «Московский» of Moskva), so a stem of
	// three consonants or more matches by its consonants alone.
	if stem, ok := strings.CutSuffix(ru.key, "sk"); ok && len(stem) >= 3 {
		if strings.TrimRightFunc(en.key, isVowel) == strings.TrimRightFunc(stem, isVowel) {
			return true
		}
		c := consonants(stem)
		return len(c) >= 3 && c == consonants(en.key)
	}
	return false
}

// consonants is a key without its vowels after the first letter ("vologod" → "vlgd").
func consonants(key string) string {
	if key == "" {
		return ""
	}
	return key[:1] + strings.Map(func(r rune) rune {
		if isVowel(r) {
			return -1
		}
		return r
	}, key[1:])
}

func isVowel(r rune) bool { return strings.ContainsRune("aeiouy", unicode.ToLower(r)) }

// perfectMatching reports whether the square boolean matrix has a perfect matching (rows to
// columns), by augmenting paths; names have at most six words.
func perfectMatching(m [][]bool) bool {
	owner := make([]int, len(m))
	for j := range owner {
		owner[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j := range m[i] {
			if m[i][j] && !seen[j] {
				seen[j] = true
				if owner[j] < 0 || try(owner[j], seen) {
					owner[j] = i
					return true
				}
			}
		}
		return false
	}
	for i := range m {
		if !try(i, make([]bool, len(m))) {
			return false
		}
	}
	return true
}
