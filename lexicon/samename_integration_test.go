package lexicon_test

import (
	"context"
	"os"
	"testing"

	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/lexicon"
)

// SameName against the Mueller dictionary deploy/local.sh installs: names of organizations a
// reader would pair across English and Russian, and near misses it must not pair.
func TestIntegrationSameName(t *testing.T) {
	lex := muellerLexicon(t)
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"Kama State University", "Камский государственный университет", true},
		{"Institute of Geography", "Институт географии", true},
		{"Cryosphere Modelling Laboratory", "Лаборатория моделирования криосферы", true},
		{"Kama State University", "Пермский государственный университет", false},                 // another place
		{"Vologda Regional Children's Hospital", "Вологодская областная детская больница", true}, // a trial's hospital
		{"Vologda Oblast", "Вологодская область", true},
		{"Kama State University", "Камский университет", false},     // a word without a partner
		{"Institute of Geography", "Institute of Geography", false}, // the same script: not this function's case
		{"State University", "Государственная дума", false},
		{"Northern Carrier", "Северный Обоз", false}, // «обоз» is a wagon train, not a carrier
	} {
		if got := lex.SameName(tc.a, tc.b); got != tc.want {
			t.Errorf("SameName(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := lex.SameName(tc.b, tc.a); got != tc.want {
			t.Errorf("SameName(%q, %q) = %v, want %v (either order)", tc.b, tc.a, got, tc.want)
		}
	}
	var none *lexicon.Lexicon
	if none.SameName("Kama State University", "Камский государственный университет") {
		t.Error("a nil lexicon pairs names")
	}
}

// muellerLexicon loads the dictionary deploy/local.sh installs (the test needs it).
func muellerLexicon(t *testing.T) *lexicon.Lexicon {
	t.Helper()
	path := testenv.LexiconPath()
	testenv.Need(t, "the lexicon (deploy/local.sh install lexicon)", func(context.Context) error {
		_, err := os.Stat(path + ".index")
		return err
	})
	lex, err := lexicon.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return lex
}
