package textnorm

import (
	"strings"
	"unicode/utf8"
)

// isLegalForm reports whether a folded word is an organization's legal form (Russian and
// international), which is removed from resolution keys: «ООО «Альфа-Логистик»» and
// "Alfa Logistic LLC" both become "alfa logistik".
func isLegalForm(folded string) bool {
	switch folded {
	case "ооо", "оао", "зао", "пао", "ао", "нко", "муп", "гуп", "фгуп", "ип", "тоо", "ано",
		"llc", "ltd", "limited", "inc", "incorporated", "corp", "corporation", "gmbh", "jsc", "pjsc",
		"ojsc", "cjsc", "plc", "ag", "sa", "bv", "nv", "oy", "ab", "srl", "spa", "llp", "lp", "co":
		return true
	}
	return false
}

// KeyTokens returns the phonetic Latin forms (see Latin) of the words of a name, without legal
// forms. It is the token sequence entity resolution and linking compare.
func KeyTokens(name string) []string {
	words := Words(name)
	out := make([]string, 0, len(words))
	for _, w := range words {
		if len(words) > 1 && isLegalForm(FoldString(w.Text)) {
			continue
		}
		if l := Latin(w.Text); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Key is the resolution key of a name: KeyTokens joined with single spaces. Two names with the
// same Key are spelling variants of one name («ООО «Мед-Линия»» and "Med Linia LLC" share
// "med linia"; see CompactKey for "MedLinia").
func Key(name string) string { return strings.Join(KeyTokens(name), " ") }

// CompactKey is Key without the spaces, so that "MedLinia", «Мед-Линия» and «МедЛиния» collide.
func CompactKey(name string) string { return strings.Join(KeyTokens(name), "") }

// TokenMatch reports whether two phonetic Latin words (KeyTokens elements) are the same word up
// to an inflectional ending: equal, or sharing a prefix of at least 4 letters that leaves at most
// 3 letters on either side and covers all but at most 2 letters of the shorter word
// ("kamski" ~ "kamskogo", "bereg" ~ "berega", "maks" ~ "maksim"). Words shorter than 4 letters
// must be equal.
func TokenMatch(a, b string) bool {
	if a == b {
		return true
	}
	la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
	if la < 4 || lb < 4 {
		return false
	}
	ra, rb := []rune(a), []rune(b)
	p := 0
	for p < len(ra) && p < len(rb) && ra[p] == rb[p] {
		p++
	}
	short := min(la, lb)
	return p >= 4 && la-p <= 3 && lb-p <= 3 && p >= short-2
}

// Acronym returns the initials of a multi-word name in phonetic Latin form, comparable with
// Latin(acronym): «Кедровский машиностроительный завод» → "kmz" = Latin("КМЗ"), "Kedrovsky
// Machine Works" → "kmv" = Latin("KMW"). It returns "" for a one-word name; legal forms are
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
