package textnorm

import (
	"regexp"
	"unicode"
	"unicode/utf8"
)

// boundedMatches returns the byte ranges [start, end) of re's matches in s that begin and end at
// a word boundary in any script: the rune before the match and the rune after it are neither a
// letter nor a digit nor '_'. RE2's \b knows ASCII word characters only, so `\bВБ-2023\b` never
// matches «договор ВБ-2023-04» and `\b[А-Я]{2,6}\b` never matches «(СМЗ)»: patterns that find
// codes and acronyms in both scripts leave \b out and are filtered here.
func boundedMatches(re *regexp.Regexp, s string) [][2]int {
	var out [][2]int
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[0] == m[1] {
			continue
		}
		if before, _ := utf8.DecodeLastRuneInString(s[:m[0]]); m[0] > 0 && wordRune(before) {
			continue
		}
		if after, _ := utf8.DecodeRuneInString(s[m[1]:]); m[1] < len(s) && wordRune(after) {
			continue
		}
		out = append(out, [2]int{m[0], m[1]})
	}
	return out
}

// FindBounded returns the text of boundedMatches.
func FindBounded(re *regexp.Regexp, s string) []string {
	var out []string
	for _, m := range boundedMatches(re, s) {
		out = append(out, s[m[0]:m[1]])
	}
	return out
}

// ReplaceBounded returns s with each of boundedMatches replaced by repl(match).
func ReplaceBounded(re *regexp.Regexp, s string, repl func(string) string) string {
	ms := boundedMatches(re, s)
	if len(ms) == 0 {
		return s
	}
	var b []byte
	last := 0
	for _, m := range ms {
		b = append(b, s[last:m[0]]...)
		b = append(b, repl(s[m[0]:m[1]])...)
		last = m[1]
	}
	return string(append(b, s[last:]...))
}

func wordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
