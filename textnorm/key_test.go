package textnorm

import "testing"

func TestShortStemInflected(t *testing.T) {
	for _, tc := range []struct {
		text, b string
		want    bool
	}{
		{"путь", "puti", true},  // пути
		{"путь", "putem", true}, // путём
		{"соль", "soliu", true}, // солью
		{"путь", "put", false},  // the same form: TokenMatch's
		{"путь", "putnik", false},
		{"тур", "tura", true},       // тура
		{"тур", "turom", true},      // туром
		{"тур", "turist", false},    // another word
		{"Ока", "oki", false},       // a vowel at the end: not this rule's
		{"сайт", "saita", false},    // a stem of 4 letters: TokenMatch's
		{"путь", "put", false},      // the same form
		{"Казань", "kazani", false}, // a stem of 4 letters: TokenMatch's
	} {
		if got := ShortStemInflected(tc.text, tc.b); got != tc.want {
			t.Errorf("ShortStemInflected(%q, %q) = %v, want %v", tc.text, tc.b, got, tc.want)
		}
	}
}

func TestShortNameInflected(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"ana", "ani", true},   // Анна / Анны
		{"ana", "anoi", true},  // Анна / Анной
		{"olga", "olgi", true}, // Ольга / Ольги
		{"olga", "olge", true},
		{"ana", "ana", true},   // the same ending
		{"ana", "ina", false},  // another name
		{"ana", "ans", false},  // "s" is no Russian ending
		{"ivan", "iva", false}, // a stem without its ending is not a case form
		{"an", "ana", false},   // too short
		{"olga", "olgers", false},
	} {
		if got := ShortNameInflected(tc.a, tc.b); got != tc.want {
			t.Errorf("ShortNameInflected(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
