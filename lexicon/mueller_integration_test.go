package lexicon_test

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/lexicon"
)

// TestIntegrationMuellerLexicon reads the dictionary deploy/local.sh installs and checks that
// everyday words of a company knowledge base translate both ways.
func TestIntegrationMuellerLexicon(t *testing.T) {
	path := testenv.LexiconPath()
	testenv.Need(t, "the lexicon (deploy/local.sh install lexicon)", func(context.Context) error {
		_, err := os.Stat(path + ".index")
		return err
	})
	lex, err := lexicon.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if en, ru := lex.Size(); en < 20000 || ru < 20000 {
		t.Fatalf("Size() = %d English headwords, %d Russian keys; want the whole dictionary", en, ru)
	}
	key := func(w string) string { k, _ := lexicon.Key(w); return k }
	for _, tc := range []struct{ word, want string }{
		{"vacation", "отпуск"}, {"client", "клиент"}, {"budget", "бюджет"}, {"contract", "договор"},
		{"отпуска", "leave"}, {"договору", "contract"}, {"владелец", "owner"}, {"основатель", "founder"},
	} {
		if got := lex.Translate(tc.word); !slices.Contains(got, key(tc.want)) {
			t.Errorf("Translate(%q) = %q, want it to hold %q (%s)", tc.word, got, key(tc.want), tc.want)
		}
	}
}
