package textnorm

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"golang.org/x/text/unicode/norm"
)

var foldSeeds = []string{
	"  Ёлка  и\tЕЛЬ\n",
	"«Западный ветер» — “quoted” „низ“",
	"it’s `code`",
	"ﬁle Ｆｕｌｌ ⑴ ㎏ ½",
	"soft\u00adhyphen zero\u200bwidth\u200c\u200d\u2060\ufeff",
	"Е\u0308лка и\u0306ога e\u0301te", // decomposed ё, й, é (NFD)
	"a\u00a8b \u00a8 \u0345",          // NFKC expansions that start with a space; a lone combining mark
	"ǅ İ ẞ Ω K Å",
	"\xff\xfe bad \xc0 bytes",
	"\u00a0\u2003\u3000\u0085",
}

// FuzzFold checks what Fold documents and what Index relies on:
//
//   - Text is valid UTF-8 (also for invalid input), without leading, trailing or repeated spaces,
//     without white space other than ' ', and without a character Fold maps away (ё, the quote
//     marks and dashes it unifies, the zero-width characters it drops);
//   - Offsets has len(Text)+1 entries, non-decreasing, each where a rune of s starts (an invalid
//     byte counts as one rune), the last len(s);
//   - FoldString(s) is Fold(s).Text (it skips the offsets), and Fold is idempotent:
//     FoldString(FoldString(s)) == FoldString(s);
//   - Fold applies NFKC, so canonically equivalent strings (s, its NFC and its NFD form) fold to
//     the same text: a decomposed «ё» (е + U+0308) is «е» like the composed one — unless s has
//     more than 30 combining marks in a row, where Go's norm makes NFC(s) stream-safe by
//     inserting U+034F, which is not canonically equivalent.
func FuzzFold(f *testing.F) {
	for _, s := range foldSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fo := Fold(s)
		checkFolded(t, s, fo)
		if text := FoldString(s); text != fo.Text {
			t.Fatalf("FoldString(%q) = %q, Fold gives %q", s, text, fo.Text)
		}
		if again := FoldString(fo.Text); again != fo.Text {
			t.Fatalf("not idempotent: Fold(%q) = %q, Fold of that = %q", s, fo.Text, again)
		}
		if !utf8.ValidString(s) {
			return
		}
		for form, eq := range map[string]string{"NFC": norm.NFC.String(s), "NFD": norm.NFD.String(s)} {
			if strings.Count(eq, "\u034f") != strings.Count(s, "\u034f") {
				// Past 30 combining marks in a row Go's norm inserts U+034F COMBINING GRAPHEME
				// JOINER (Unicode's stream-safe text format), so eq is no longer canonically
				// equivalent to s.
				continue
			}
			if got := FoldString(eq); got != fo.Text {
				t.Fatalf("canonically equivalent strings fold differently: Fold(%q) = %q, Fold(%s %q) = %q", s, fo.Text, form, eq, got)
			}
		}
	})
}

func checkFolded(t *testing.T, s string, fo Folded) {
	t.Helper()
	if !utf8.ValidString(fo.Text) {
		t.Fatalf("Fold(%q) = %q is not valid UTF-8", s, fo.Text)
	}
	if strings.HasPrefix(fo.Text, " ") || strings.HasSuffix(fo.Text, " ") || strings.Contains(fo.Text, "  ") {
		t.Fatalf("Fold(%q) = %q has leading, trailing or repeated spaces", s, fo.Text)
	}
	for _, r := range fo.Text {
		if r != ' ' && unicode.IsSpace(r) || strings.ContainsRune("ёЁ«»“”„‟″〝〞＂‘’‚‛′`´‐‑‒–—―−⁃\u00ad\u200b\u200c\u200d\u2060\ufeff", r) {
			t.Fatalf("Fold(%q) = %q keeps %q, which Fold maps", s, fo.Text, r)
		}
	}
	if len(fo.Offsets) != len(fo.Text)+1 || fo.Offsets[len(fo.Text)] != len(s) {
		t.Fatalf("Fold(%q): %d offsets for %d bytes, last %d", s, len(fo.Offsets), len(fo.Text), fo.Offsets[len(fo.Offsets)-1])
	}
	runeStart := map[int]bool{} // where range decodes a rune (an invalid byte is one rune)
	for i := range s {
		runeStart[i] = true
	}
	for k, o := range fo.Offsets[:len(fo.Text)] {
		if !runeStart[o] || (k > 0 && o < fo.Offsets[k-1]) {
			t.Fatalf("Fold(%q): offset %d of byte %d is out of order, out of range or inside a rune (%v)", s, o, k, fo.Offsets)
		}
	}
}

// FuzzIndex checks Index(text, quote), the citation verifier's quote matcher. Its contract: find
// the first occurrence of the folded quote in the folded text and return the original byte range.
//
//   - ok exactly when the folded quote is non-empty and occurs in the folded text;
//   - when ok: 0 <= start < end <= len(text), both on rune starts (an invalid byte is a rune), text[start:end] is valid UTF-8
//     when text is, and its fold contains the folded quote (equal to it unless the range starts or
//     ends inside an NFKC expansion such as ⑴ → "(1)" or ﬀ → "ff"), and start is the offset of
//     the first occurrence;
//   - a quote cut from text on character (grapheme cluster) boundaries is always found, unless it
//     folds to nothing (only blanks and zero-width characters).
func FuzzIndex(f *testing.F) {
	f.Add("Отпуск — 28  календарных\nдней.", "отпуск - 28 календарных дней", uint(0), uint(20))
	f.Add("Клиент «Западного ветра» с 2021", `"северного ветра"`, uint(13), uint(40))
	f.Add("Версия Ёжик 2", "ежик", uint(7), uint(15))
	f.Add("emoji 🚀 launch 👩‍👩‍👧‍👦 family", "🚀 launch", uint(6), uint(30))
	f.Add("Лазарев и\u0306ога e\u0301te", "йога", uint(15), uint(22))
	f.Add("⑴ ﬀf ½", "1)", uint(0), uint(3))
	f.Add("soft\u00adhyphen zero\u200bwidth", "softhyphen", uint(0), uint(9))
	f.Add("нет такого", "другое", uint(0), uint(5))
	f.Fuzz(func(t *testing.T, text, quote string, from, to uint) {
		checkIndex(t, text, quote)
		if !utf8.ValidString(text) {
			return
		}
		// A quote cut from the text at grapheme cluster boundaries.
		var bounds []int
		g := uniseg.NewGraphemes(text)
		for g.Next() {
			_, e := g.Positions()
			bounds = append(bounds, e)
		}
		bounds = append([]int{0}, bounds...)
		a, b := bounds[from%uint(len(bounds))], bounds[to%uint(len(bounds))]
		if a > b {
			a, b = b, a
		}
		sub := text[a:b]
		start, _, ok := checkIndex(t, text, sub)
		if FoldString(sub) != "" && !ok {
			t.Fatalf("the substring %q (bytes %d..%d) of %q is not found", sub, a, b, text)
		}
		if fs := Fold(sub); ok && start > a+fs.Offsets[0] {
			t.Fatalf("Index(%q, %q) = %d, but the quote occurs at %d", text, sub, start, a+fs.Offsets[0])
		}
	})
}

func checkIndex(t *testing.T, text, quote string) (int, int, bool) {
	t.Helper()
	start, end, ok := Index(text, quote)
	fq, ft := FoldString(quote), Fold(text)
	first := strings.Index(ft.Text, fq)
	if want := fq != "" && first >= 0; ok != want {
		t.Fatalf("Index(%q, %q) ok=%v, but folded quote %q in folded text %q: %v", text, quote, ok, fq, ft.Text, want)
	}
	if !ok {
		return 0, 0, false
	}
	if start < 0 || start >= end || end > len(text) {
		t.Fatalf("Index(%q, %q) = [%d,%d) out of range", text, quote, start, end)
	}
	runeStart := map[int]bool{len(text): true} // where range decodes a rune (an invalid byte is one)
	for i := range text {
		runeStart[i] = true
	}
	if !runeStart[start] || !runeStart[end] {
		t.Fatalf("Index(%q, %q) = [%d,%d) cuts a rune", text, quote, start, end)
	}
	got := text[start:end]
	if utf8.ValidString(text) && !utf8.ValidString(got) {
		t.Fatalf("Index(%q, %q) = %q is not valid UTF-8", text, quote, got)
	}
	if !strings.Contains(FoldString(got), fq) {
		t.Fatalf("Index(%q, %q) = [%d,%d) %q, which folds to %q, not containing %q", text, quote, start, end, got, FoldString(got), fq)
	}
	if start != ft.Offsets[first] {
		t.Fatalf("Index(%q, %q) starts at %d, the first occurrence at %d", text, quote, start, ft.Offsets[first])
	}
	return start, end, true
}
