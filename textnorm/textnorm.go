// Package textnorm holds the text normalizations Ariadne relies on in several places, so that the
// entity resolver, the query-time entity linker, the lexical embedder and the citation verifier
// agree on what "the same text" means:
//
//   - Fold: Unicode NFKC, lower case, ё→е, every quote mark to ", dashes to -, whitespace runs to
//     one space — with a map back to the original byte offsets (quote verification).
//   - Latin: Cyrillic transliterated to Latin (a GOST-like table) and folded phonetically, so that
//     «Тер-Пласт», "Ter Plast" and «тер пласт» produce the same letters.
//   - Tokens / Key: word tokens of that Latin form with legal forms (ООО, АО, LLC, GmbH, …) and
//     punctuation removed — the identity used for entity resolution and linking.
package textnorm

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// foldRune maps one (already NFKC-normalized) rune for Fold. It returns -1 for runes that are
// dropped (zero-width characters, soft hyphen, BOM).
func foldRune(r rune) rune {
	switch r {
	case 'ё', 'Ё':
		return 'е'
	case '«', '»', '“', '”', '„', '‟', '″', '〝', '〞', '＂':
		return '"'
	case '‘', '’', '‚', '‛', '′', '`', '´':
		return '\''
	case '‐', '‑', '‒', '–', '—', '―', '−', '⁃':
		return '-'
	}
	if droppedRune(r) {
		return -1
	}
	if unicode.IsSpace(r) {
		return ' '
	}
	return unicode.ToLower(r)
}

// droppedRune reports whether Fold drops r: zero-width characters, the soft hyphen, the BOM.
func droppedRune(r rune) bool {
	switch r {
	case '\u00ad', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
		return true
	}
	return false
}

// Folded is a normalized text with, for every byte of Text, the byte offset in the original
// string where the character that produced it starts (a character: a rune with the combining
// marks NFKC composes with it). Offsets has len(Text)+1 entries; the last is the original length,
// so Offsets[end] is the exclusive end of a match.
type Folded struct {
	Text    string
	Offsets []int
	ends    []int // for every byte of Text, where its character ends in the original
}

// Fold normalizes s for verbatim-quote comparison: NFKC per character, lower case, ё→е, every kind of
// quote mark to an ASCII double quote (apostrophes to an ASCII apostrophe), every dash to '-', zero-width characters removed,
// Hangul compatibility jamo kept as characters of their own (see compatHangul), and
// runs of whitespace collapsed into one space; leading and trailing whitespace is dropped.
// Canonically equivalent strings fold alike (a decomposed «ё», е + U+0308, is «е» too), invalid
// UTF-8 bytes become U+FFFD, and Fold is idempotent.
func Fold(s string) Folded { return fold(s, true) }

// FoldString returns only the text of Fold(s), without computing the offsets: half the time of
// Fold per word. Ingestion folds every chunk's words for the lexical embedder, the resolver and
// the search terms, and a ninth of its Go CPU at 100k chunks was Fold (docs/performance.md).
func FoldString(s string) string { return fold(s, false).Text }

// fold is Fold; without offsets it leaves Offsets and ends nil.
func fold(s string, offsets bool) Folded {
	// First the zero-width characters go (so that a mark after one still composes with its base)
	// and invalid bytes become U+FFFD. start and end keep, per byte of the cleaned text, where its
	// rune starts and ends in s; they stay nil when nothing had to go (clean is s).
	clean := s
	var start, end []int
	if !utf8.ValidString(s) || strings.ContainsFunc(s, droppedRune) {
		var cb strings.Builder
		cb.Grow(len(s))
		if offsets {
			start = make([]int, 0, len(s))
			end = make([]int, 0, len(s))
		}
		for i, r := range s {
			if droppedRune(r) {
				continue
			}
			size := utf8.RuneLen(r)
			orig := size
			if r == utf8.RuneError {
				_, orig = utf8.DecodeRuneInString(s[i:])
			}
			cb.WriteRune(r)
			if offsets {
				for range size {
					start = append(start, i)
					end = append(end, i+orig)
				}
			}
		}
		clean = cb.String()
	}
	origStart := func(i int) int {
		if start == nil {
			return i
		}
		return start[i]
	}
	origEnd := func(j int) int { // j > 0: the end of the rune that ends at clean[j-1]
		if end == nil {
			return j
		}
		return end[j-1]
	}

	var b strings.Builder
	b.Grow(len(clean))
	var offs, ends []int
	if offsets {
		offs = make([]int, 0, len(clean)+1)
		ends = make([]int, 0, len(clean))
	}
	lastSpace := true // drop leading whitespace
	emit := func(fr rune, o, e int) {
		if fr == ' ' {
			if lastSpace {
				return
			}
			lastSpace = true
		} else {
			lastSpace = false
		}
		n := utf8.RuneLen(fr)
		b.WriteRune(fr)
		if offsets {
			for range n {
				offs = append(offs, o)
				ends = append(ends, e)
			}
		}
	}
	for i := 0; i < len(clean); {
		// One normalization segment: a starter and the combining marks that follow it. An ASCII
		// or Cyrillic letter followed by another (or by nothing) is a segment of its own and its
		// own NFKC form, without asking norm.
		r, size := utf8.DecodeRuneInString(clean[i:])
		var folded string
		j := i + size
		switch {
		case simpleRune(r) && (j == len(clean) || clean[j] < utf8.RuneSelf || simpleRune(decodeRune(clean[j:]))):
			if offsets {
				emit(foldRune(r), origStart(i), origEnd(j))
			} else {
				emit(foldRune(r), 0, 0)
			}
			i = j
			continue
		case compatHangul(r):
			folded = width.Fold.String(clean[i:j])
		default:
			j = i + max(norm.NFKC.NextBoundaryInString(clean[i:], true), size)
			// norm cuts a run of more than 30 combining marks into segments (the stream-safe
			// format); fold the whole run as one, or ё→е would eat a different number of
			// diaereses on a second pass.
			for j < len(clean) && !norm.NFKC.PropertiesString(clean[j:]).BoundaryBefore() {
				j += max(norm.NFKC.NextBoundaryInString(clean[j:], true), 1)
			}
			if k := strings.IndexFunc(clean[i+size:j], compatHangul); k >= 0 {
				j = i + size + k
			}
			folded = foldSegment(clean[i:j])
		}
		o, e := 0, 0
		if offsets {
			o, e = origStart(i), origEnd(j)
		}
		for _, fr := range folded {
			emit(fr, o, e)
		}
		i = j
	}
	text := b.String()
	if strings.HasSuffix(text, " ") {
		text = text[:len(text)-1]
		if offsets {
			offs = offs[:len(offs)-1]
			ends = ends[:len(ends)-1]
		}
	}
	if !offsets {
		return Folded{Text: text}
	}
	offs = append(offs, len(s))
	// An end offset must point past the last character of the match, not at the next
	// character's start when characters were dropped in between; callers use Span for that.
	return Folded{Text: text, Offsets: offs, ends: ends}
}

// compatHangul reports whether r is a compatibility form of Hangul: a compatibility or halfwidth
// jamo (ㄱ, ﾮ) or a circled one (㉠, ㉮). NFKC turns these into conjoining jamo, which compose with
// the syllable before them or the vowel after them — across what readers and grapheme
// segmentation see as separate characters, so that «무» would no longer be found in «무ﾮ». Fold
// keeps each as its own character instead, halfwidth ones widened (ﾮ → ㄾ).
func compatHangul(r rune) bool {
	return r >= 0x3131 && r <= 0x318e || r >= 0xffa0 && r <= 0xffdc || r >= 0x3260 && r <= 0x327e
}

// simpleRune reports whether r is ASCII or a Cyrillic letter: its own NFKC form, and never
// composed with a rune before it (the Cyrillic combining marks U+0483–U+0489 are excluded).
func simpleRune(r rune) bool {
	return r < utf8.RuneSelf || (r >= 0x400 && r <= 0x4ff && (r < 0x483 || r > 0x489))
}

func decodeRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// foldSegment folds one normalization segment: NFKC, then foldRune on every rune, then NFKC
// again until nothing changes, since a mapped base can compose with the marks after it (Ё + U+0306
// folds to е + U+0306, which is ӗ).
func foldSegment(seg string) string {
	t := norm.NFKC.String(seg)
	var u string
	// Each pass that changes something composes a mapped base with one more mark, so the number
	// of runes bounds the passes (norm caps a segment at 30 marks).
	for range utf8.RuneCountInString(t) + 1 {
		var b strings.Builder
		for _, r := range t {
			if fr := foldRune(r); fr >= 0 {
				b.WriteRune(fr)
			}
		}
		u = b.String()
		if t = norm.NFKC.String(u); t == u {
			break
		}
	}
	return u
}

// Span maps a byte range [start, end) of f.Text back to the original string: the returned range
// starts at the original character that produced f.Text[start] and ends right after the original
// character that produced f.Text[end-1].
func (f Folded) Span(original string, start, end int) (int, int) {
	if start >= end {
		return f.Offsets[start], f.Offsets[start]
	}
	if f.ends != nil {
		return f.Offsets[start], f.ends[end-1]
	}
	last := f.Offsets[end-1]
	_, size := utf8.DecodeRuneInString(original[last:])
	return f.Offsets[start], last + size
}

// Index finds the first occurrence of needle in haystack after folding both, and returns its
// byte offsets in the original haystack, or ok=false.
func Index(haystack, needle string) (start, end int, ok bool) {
	n := FoldString(needle)
	if n == "" {
		return 0, 0, false
	}
	h := Fold(haystack)
	i := strings.Index(h.Text, n)
	if i < 0 {
		return 0, 0, false
	}
	start, end = h.Span(haystack, i, i+len(n))
	return start, end, true
}

// cyrLatin is the transliteration table, lower-case Cyrillic to Latin (GOST 7.79-2000 B, with the
// hard sign dropped and the soft sign handled by Latin). Entries are indexed by the letter's
// offset from 'а' (so 'а' itself is 0).
var cyrLatin = [...]string{
	0: "a", 'б' - 'а': "b", 'в' - 'а': "v", 'г' - 'а': "g", 'д' - 'а': "d", 'е' - 'а': "e",
	'ж' - 'а': "zh", 'з' - 'а': "z", 'и' - 'а': "i", 'й' - 'а': "y", 'к' - 'а': "k", 'л' - 'а': "l",
	'м' - 'а': "m", 'н' - 'а': "n", 'о' - 'а': "o", 'п' - 'а': "p", 'р' - 'а': "r", 'с' - 'а': "s",
	'т' - 'а': "t", 'у' - 'а': "u", 'ф' - 'а': "f", 'х' - 'а': "kh", 'ц' - 'а': "ts", 'ч' - 'а': "ch",
	'ш' - 'а': "sh", 'щ' - 'а': "shch", 'ъ' - 'а': "", 'ы' - 'а': "y", 'ь' - 'а': "", 'э' - 'а': "e",
	'ю' - 'а': "yu", 'я' - 'а': "ya",
}

func isCyrVowel(r rune) bool { return strings.ContainsRune("аеёиоуыэюя", r) }

// transliterate returns the Latin spelling of one lower-case word. A soft sign before a vowel
// becomes "y" («Воробьёва» → vorobyeva), elsewhere it is dropped.
func transliterate(word string) string {
	var b strings.Builder
	runes := []rune(word)
	for i, r := range runes {
		switch {
		case r == 'ь' && i+1 < len(runes) && isCyrVowel(runes[i+1]):
			b.WriteString("y")
		case r == 'ё':
			b.WriteString("e")
		case r >= 'а' && r <= 'я':
			b.WriteString(cyrLatin[r-'а'])
		case r == 'і', r == 'ї':
			b.WriteString("i")
		case r == 'є':
			b.WriteString("e")
		case r == 'ґ':
			b.WriteString("g")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// phonetic folds a lower-case Latin word so that common transliteration variants collide:
// ck→k, c→s before e/i/y else k (but ch stays), ph→f, kh→h, w→v, q→k, x→ks, y and j→i, and runs
// of one letter collapse ("Dmitrii", "Dmitriy", "Dmitry" → "dmitri"; "Logistic" → "logistik").
func phonetic(w string) string {
	in := []rune(w)
	out := make([]rune, 0, len(in))
	for i := 0; i < len(in); i++ {
		c := in[i]
		next := rune(0)
		if i+1 < len(in) {
			next = in[i+1]
		}
		switch {
		case c == 'c' && next == 'k':
			out = append(out, 'k')
			i++
		case c == 'c' && next == 'h':
			out = append(out, 'c', 'h')
			i++
		case c == 'c' && (next == 'e' || next == 'i' || next == 'y'):
			out = append(out, 's')
		case c == 'c':
			out = append(out, 'k')
		case c == 'p' && next == 'h':
			out = append(out, 'f')
			i++
		case c == 'k' && next == 'h':
			out = append(out, 'h')
			i++
		case c == 'w':
			out = append(out, 'v')
		case c == 'q':
			out = append(out, 'k')
		case c == 'x':
			out = append(out, 'k', 's')
		case c == 'y' || c == 'j':
			out = append(out, 'i')
		default:
			out = append(out, c)
		}
	}
	// collapse runs of the same ASCII letter (digits are kept: 117 is not 17; other scripts are
	// left as they are)
	j := 0
	for i := range out {
		if j > 0 && out[j-1] == out[i] && out[i] >= 'a' && out[i] <= 'z' {
			continue
		}
		out[j] = out[i]
		j++
	}
	return string(out[:j])
}

// Latin returns the phonetic Latin form of one word: folded, transliterated if Cyrillic, with
// diacritics removed, then phonetically folded. Digits are kept. Non-letter, non-digit runes are
// dropped.
func Latin(word string) string {
	f := FoldString(word)
	t := transliterate(f)
	var b strings.Builder
	for _, r := range norm.NFD.String(t) {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		case unicode.IsDigit(r):
			b.WriteRune(r)
		case unicode.Is(unicode.Mn, r):
			// combining mark from a decomposed Latin letter: dropped
		case unicode.IsLetter(r):
			b.WriteRune(r) // other scripts are kept as they are
		}
	}
	return phonetic(b.String())
}

// Token is one word of a text: a maximal run of letters and digits.
type Token struct {
	Text       string // the word as written
	Start, End int    // byte offsets in the source text
	Upper      bool   // the first rune is upper case
	AllUpper   bool   // every letter is upper case (an acronym such as SMW or СМЗ)
}

// Words splits s into tokens: maximal runs of letters, digits and combining marks. Everything else
// (spaces, punctuation, quotes, hyphens) separates tokens.
func Words(s string) []Token {
	var toks []Token
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := s[start:end]
		first, _ := utf8.DecodeRuneInString(w)
		all := true
		letters := 0
		for _, r := range w {
			if unicode.IsLetter(r) {
				letters++
				if !unicode.IsUpper(r) {
					all = false
				}
			}
		}
		toks = append(toks, Token{Text: w, Start: start, End: end, Upper: unicode.IsUpper(first),
			AllUpper: all && letters > 0})
		start = -1
	}
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(s))
	return toks
}
