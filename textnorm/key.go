package textnorm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// isLegalForm reports whether a folded word is an organization's legal form (Russian and
// international), which is removed from resolution keys: «ООО «Тер-Пласт»» and
// "Ter Plast LLC" both become "ter plast".
func isLegalForm(folded string) bool {
	switch folded {
	case "ооо", "оао", "зао", "пао", "ао", "нко", "муп", "гуп", "фгуп", "ип", "тоо", "ано",
		"llc", "ltd", "limited", "inc", "incorporated", "corp", "corporation", "gmbh", "jsc", "pjsc",
		"ojsc", "cjsc", "plc", "ag", "sa", "bv", "nv", "oy", "ab", "srl", "spa", "llp", "lp", "co":
		return true
	}
	return false
}

// IsLegalForm reports whether word is an organization's legal form (ООО, АО, LLC, GmbH, …).
func IsLegalForm(word string) bool { return isLegalForm(FoldString(word)) }

// KeyWords returns the words of a name that count for its identity: every word but legal forms
// written as separate words (ООО «…», "… LLC"); in a code such as INC-7702 the prefix counts.
func KeyWords(name string) []Token {
	words := Words(name)
	out := make([]Token, 0, len(words))
	for i, w := range words {
		joined := (i > 0 && !strings.ContainsAny(name[words[i-1].End:w.Start], " \t\n«»\"")) ||
			(i+1 < len(words) && !strings.ContainsAny(name[w.End:words[i+1].Start], " \t\n«»\""))
		if len(words) > 1 && !joined && isLegalForm(FoldString(w.Text)) {
			continue
		}
		if Latin(w.Text) != "" {
			out = append(out, w)
		}
	}
	return out
}

// KeyTokens returns the phonetic Latin forms (see Latin) of KeyWords: the token sequence entity
// resolution and linking compare.
func KeyTokens(name string) []string {
	words := KeyWords(name)
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Latin(w.Text)
	}
	return out
}

// StrictTokenMatch is TokenMatch for two words that are both written in Latin script, where
// endings are English: besides being equal, the text word may add a plural ending to the alias
// word ("routes" for "route", "boxes" for "box") or drop one ("Network" for "Networks"). Any
// other added letters make another word, not a form of this one: "Roman" is not "Romania" or
// "Romantic", "Cappy" (phonetic "kapi") is not "Capital", "Brazil" is not "Brazilian". Arguments
// are phonetic Latin words (KeyTokens elements); words shorter than 4 letters must be equal.
func StrictTokenMatch(alias, text string) bool {
	if alias == text {
		return true
	}
	if len(alias) < 4 || len(text) < 4 {
		return false
	}
	plural := func(long, short string) bool {
		rest, ok := strings.CutPrefix(long, short)
		return ok && (rest == "s" || rest == "es")
	}
	return plural(text, alias) || plural(alias, text)
}

// Key is the resolution key of a name: KeyTokens joined with single spaces. Two names with the
// same Key are spelling variants of one name («ООО «Тер-Пласт»» and "Med Linia LLC" share
// "ter plast"; see CompactKey for "TerPlast").
func Key(name string) string { return strings.Join(KeyTokens(name), " ") }

// CompactKey is Key without the spaces, so that "TerPlast", «Тер-Пласт» and «ТерПласт» collide.
func CompactKey(name string) string { return strings.Join(KeyTokens(name), "") }

// TokenMatch reports whether two phonetic Latin words (KeyTokens elements) are the same word up
// to an inflectional ending: equal, or sharing a prefix of at least 4 letters that leaves at most
// 3 letters on either side and covers all but at most 2 letters of the shorter word
// ("kamski" ~ "kamskogo", "bereg" ~ "berega", "maks" ~ "maksim") — where, when both words change
// their ending, both endings are Russian inflections or the words are a spelling variant of a
// stem of 6 letters or more (inflected), so "valenti" is not "valens" — or equal that way once a
// fleeting vowel of the closed last syllable is dropped ("veter" ~ "vetra", as in «ветер» /
// «ветра»). Words shorter than 4 letters must be equal.
func TokenMatch(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) < 4 || len(b) < 4 {
		return false
	}
	return inflected(a, b) || fleeting(a, b) || fleeting(b, a)
}

// InflectedOnly reports whether the word b is the word a or a Russian inflection of it: TokenMatch,
// where what each word adds to a shared stem of at least 3 letters is an inflectional ending
// ("redisa", "redisom" of "redis"; not "tverdi" of "tver", whose "di" ends no Russian word's
// stem). Arguments are phonetic Latin words (KeyTokens elements).
func InflectedOnly(a, b string) bool {
	if a == b {
		return true
	}
	if !TokenMatch(a, b) {
		return false
	}
	for q := commonPrefix(a, b); q >= 3 && q >= min(len(a), len(b))-2; q-- {
		if inflectionEndings[a[q:]] && inflectionEndings[b[q:]] {
			return true
		}
	}
	return false
}

// ShortNameInflected reports whether two short phonetic Latin words (3 to 5 letters, the longer
// at most 6) are one short name in two cases: the shorter word's letters but its last (at least
// 2), followed by two Russian inflectional endings («Анна» / «Анны» / «Анной»: an+a / an+i /
// an+oi, double letters being one in KeyTokens; «Ольга» / «Ольги»: olg+a / olg+i). TokenMatch
// needs a 4-letter stem, which a short name inflected in its last letter does not keep; the
// entity matcher (package resolution) adds this rule for a capitalized word of a name of several
// words, every one of which must match, so that a chance match is unlikely.
func ShortNameInflected(a, b string) bool {
	short := min(len(a), len(b))
	if short < 3 || short > 5 || max(len(a), len(b)) > 6 {
		return false
	}
	p := commonPrefix(a, b)
	if p < 2 || p < short-1 {
		return false
	}
	p = min(p, short-1) // both change their ending
	return inflectionEndings[a[p:]] && inflectionEndings[b[p:]] && a[p:] != "" && b[p:] != ""
}

// ShortStemInflected reports whether the Cyrillic word text (as written: a noun of three letters
// and a consonant at its end, «тур», «дом», «сад», or with a soft sign after it, «путь», «соль»,
// «день») and the phonetic Latin word b are one short noun in two cases: b is text's key (3
// letters: the soft sign writes no letter) followed by a Russian inflectional ending («тура»,
// «туре», «пути», «путём», «соли»). TokenMatch needs a 4-letter stem, which these nouns do not
// have; the entity matcher (package resolution) adds this rule for a word of a name of several
// words, every one of which must match («Соляному пути» for «Соляной путь», «азиатского тура»
// for «Азиатский тур»).
func ShortStemInflected(text, b string) bool {
	r := []rune(strings.ToLower(text))
	if r[len(r)-1] == 'ь' {
		r = r[:len(r)-1]
	}
	if len(r) != 3 || strings.ContainsRune("аеёиоуыэюяй", r[2]) || !unicode.Is(unicode.Cyrillic, r[2]) {
		return false
	}
	a := Latin(text)
	return len(a) == 3 && len(b) > len(a) && strings.HasPrefix(b, a) && inflectionEndings[b[len(a):]]
}

// inflected is TokenMatch's prefix rule on ASCII words (KeyTokens of Latin and Cyrillic text are
// ASCII).
func inflected(a, b string) bool {
	p := commonPrefix(a, b)
	short := min(len(a), len(b))
	if !(p >= 4 && len(a)-p <= 3 && len(b)-p <= 3 && p >= short-2) {
		return false
	}
	if p == len(a) || p == len(b) {
		return true // one word extends the other
	}
	// Both words change their ending. A long shared stem that leaves one letter of the shorter
	// word is a spelling variant (keikloak ~ keiklok, platforma ~ platforms); otherwise the two
	// tails must be inflectional endings of one stem (Донской ~ Донского: donsk+oi / donsk+ogo),
	// not arbitrary letters (valenti / valens / valenus).
	if p >= 6 && p >= short-1 {
		return true
	}
	for q := p; q >= 4 && q >= short-2; q-- {
		if inflectionEndings[a[q:]] && inflectionEndings[b[q:]] {
			return true
		}
	}
	// A spelling variant that is also inflected: a Cyrillic spelling of a Latin name in an
	// oblique case («в кейклоке»: keikloke ~ keikloak) is the variant once its ending is off.
	return variantOnceInflected(a, b) || variantOnceInflected(b, a)
}

// variantOnceInflected reports whether a, less an inflectional ending, leaves a stem of 6 letters
// or more that b extends by at most 2 letters or differs from in at most its last letter (b's
// last two): keikloke → keiklok ~ keikloak. Stems of 6 letters keep short names apart
// (valenti → valent against valenoso).
func variantOnceInflected(a, b string) bool {
	for e := range inflectionEndings {
		if e == "" || !strings.HasSuffix(a, e) || len(a)-len(e) < 6 {
			continue
		}
		stem := a[:len(a)-len(e)]
		p := commonPrefix(stem, b)
		if p == len(stem) && len(b)-p <= 2 {
			return true
		}
		if p >= 6 && p >= min(len(stem), len(b))-1 && len(stem)-p <= 1 && len(b)-p <= 2 {
			return true
		}
	}
	return false
}

// commonPrefix is the length of the longest common prefix of a and b (bytes).
func commonPrefix(a, b string) int {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	return p
}

// inflectionEndings are the Russian noun, adjective and pronoun endings in phonetic Latin form
// (Latin of the Cyrillic ending), plus "" (a zero ending).
var inflectionEndings = func() map[string]bool {
	m := map[string]bool{"": true}
	for _, e := range strings.Fields("а я о е ё ы и у ю ой ей ий ый ая яя ое ее ые ие ую юю ом ем ём ым им ам ям ах ях ами ями ов ев ёв ого его ому ему ых их ыми ими ою ею ья ье ьи ью ьё ьям ьях ьев ьем ьём ии ия ие ию ием ией иям иях") {
		m[Latin(e)] = true
	}
	return m
}()

// fleeting reports whether dropping one 'e' or 'o' of a's closed last syllable (among its last
// three letters, no vowel after it) leaves a stem that b extends by at most 2 letters.
func fleeting(a, b string) bool {
	for i := max(2, len(a)-3); i < len(a); i++ {
		if a[i] != 'e' && a[i] != 'o' || strings.ContainsAny(a[i+1:], "aeiouy") {
			continue // a fleeting vowel is in the last syllable, closed by consonants (ветер, огонь)
		}
		stem := a[:i] + a[i+1:]
		if len(stem) >= 3 && strings.HasPrefix(b, stem) && len(b)-len(stem) <= 2 {
			return true
		}
	}
	return false
}

// Acronym returns the initials of a multi-word name in phonetic Latin form, comparable with
// Latin(acronym): «Сосновский машиностроительный завод» → "smz" = Latin("СМЗ"), "Sosnovsky
// Machine Works" → "smv" = Latin("SMW"). It returns "" for a one-word name; legal forms are
// skipped.
func Acronym(name string) string {
	toks := KeyTokens(name)
	if len(toks) < 2 {
		return ""
	}
	var b strings.Builder
	for _, t := range toks {
		r, _ := utf8.DecodeRuneInString(t)
		b.WriteRune(r)
	}
	return b.String()
}
