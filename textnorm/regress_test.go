package textnorm

import (
	"strings"
	"testing"
)

// TestFoldCanonicalEquivalence holds the inputs FuzzFold found, minimized: Fold applied NFKC rune
// by rune, so a decomposed character (a base letter followed by a combining mark, as NFD text from
// macOS or PDF extraction has it) was not composed, «ё» written as е + U+0308 did not become «е»,
// and a composed quote was not found in a decomposed chunk (the citation was rejected).
func TestFoldCanonicalEquivalence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Е\u0308лка", "елка"},                       // decomposed Ё
		{"и\u0306ога", "йога"},                       // decomposed й
		{"e\u0301te", "\u00e9te"},                    // decomposed é composes to U+00E9
		{"I\u0307", "i"},                             // decomposed İ lowers like the composed one
		{"\u0308x", "\u0308x"},                       // a lone combining mark is its own character
		{"a\u00a8b", "a \u0308b"},                    // NFKC expansions are unchanged
		{"\xffх\u0308", "\ufffdх\u0308"},             // invalid bytes still become U+FFFD
		{"\u0401\u0306", "\u04d7"},                   // Ё + breve folds to е + breve, which composes to ӗ (idempotence)
		{"\u0401\u0308\u0308\u0308\u0306", "\u04d7"}, // each pass composes (and ё→е strips) one more mark: stable after five passes
		{"A\u200d\u0301", "\u00e1"},                  // a mark after a dropped zero-width joiner composes with its base (idempotence)
		{"0\xf0\u0340", "0\ufffd\u0300"},             // an invalid byte does not swallow the mark after it (NFKC: U+0340 → U+0300)
	}
	for _, tc := range tests {
		if got := FoldString(tc.in); got != tc.want {
			t.Errorf("FoldString(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	idx := []struct{ hay, needle, want string }{
		{"Лазарев и\u0306ога", "йога", "и\u0306ога"},
		{"Ёжик и Е\u0308жик", "ежик и ежик", "Ёжик и Е\u0308жик"},
		{"cafe\u0301 noir", "café", "cafe\u0301"}, // the range ends after the combining mark
	}
	for _, tc := range idx {
		s, e, ok := Index(tc.hay, tc.needle)
		if !ok || tc.hay[s:e] != tc.want {
			t.Errorf("Index(%q, %q) = %q (ok=%v), want %q", tc.hay, tc.needle, tc.hay[s:min(e, len(tc.hay))], ok, tc.want)
		}
	}
}

// TestFoldLongMarkRuns holds the 2026-12-02 findings: a run of more than 30 combining marks, which
// Go's norm cuts at 30 (inserting U+034F in NFC), must fold once and stay folded.
func TestFoldLongMarkRuns(t *testing.T) {
	diaereses := strings.Repeat("\u0308", 30)
	for _, in := range []string{
		"Ё\u0348\u0348" + diaereses, // ё→е eats the diaereses; the cut at 30 decided how many
		"\u0328" + diaereses,        // no base at all
		"x" + diaereses + diaereses, // two cuts
	} {
		once := FoldString(in)
		if twice := FoldString(once); twice != once {
			t.Errorf("FoldString(%q) = %q, folded again %q", in, once, twice)
		}
	}
	// ё→е takes the diaereses with it until the U+034F norm inserted after the first 30 marks;
	// the three after it stay.
	if got, want := FoldString("Ё\u0348\u0348"+diaereses), "е\u0348\u0348\u034f\u0308\u0308\u0308"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestIndexHalfwidthHangul: a quote cut before a halfwidth jamo is found; NFKC would have composed
// the jamo into the syllable before it.
func TestIndexHalfwidthHangul(t *testing.T) {
	if s, e, ok := Index("0무ﾮ", "무"); !ok || s != 1 || e != 4 {
		t.Errorf("Index = %d, %d, %v; want 1, 4, true", s, e, ok)
	}
}
