package lexicon_test

import (
	"testing"

	"github.com/ariadne-graphrag/ariadne/internal/lexicontest"
)

// SameName pairs each content word of one name with one of the other by spelling, derivation,
// a translation either way, or a place-name adjective; a word left without a partner, a word
// count that differs or two names in one script pair nothing.
func TestSameName(t *testing.T) {
	lex := lexicontest.New(t,
		lexicontest.Entry{Head: "state", Body: "state\n   [steɪt] _n.\n   1) состояние\n   2) государство; _attr. государственный"},
		lexicontest.Entry{Head: "harbour", Body: "harbour\n   [↗hɑ:bɜ] _n. гавань, порт"},
		lexicontest.Entry{Head: "authority", Body: "authority\n   [ɔ:↗θɒrɪtɪ] _n. управление, власть"},
	)
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"Kama State Harbour", "Камская государственная гавань", true},         // place adjective, translations
		{"Harbour Authority of Kama", "Управление камской гавани", true},       // word order and inflection free
		{"Harbour Modelling Institute", "Институт моделирования гавани", true}, // spelling and derivation
		{"Kama State Harbour", "Пермская государственная гавань", false},       // another place
		{"Kama State Harbour", "Камская гавань", false},                        // a word without a partner
		{"State Harbour", "Государственный порт", true},                        // either translation of harbour
		{"Kama Harbour", "Kama Harbour", false},                                // one script
		{"Harbour", "Гавань", false},                                           // one word is too little
		{"Kama Harbour Authority", "Камское управление порта и гавани", false}, // word counts differ
		{"Vologda State Harbour", "Вологодская государственная гавань", true},  // the adjective gains a vowel
		{"Vologda State Harbour", "Волжская государственная гавань", false},    // another place's consonants
	} {
		if got := lex.SameName(tc.a, tc.b); got != tc.want {
			t.Errorf("SameName(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
