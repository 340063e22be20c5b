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
	lex := muellerLexicon(t)
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

// TestIntegrationThesaurus reads the synonym sets deploy/local.sh writes from wiki-ru-wordnet's
// database and checks their size and a few everyday synonyms.
func TestIntegrationThesaurus(t *testing.T) {
	path := testenv.ThesaurusPath()
	testenv.Need(t, "the thesaurus (deploy/local.sh install lexicon)", func(context.Context) error {
		_, err := os.Stat(path)
		return err
	})
	th, err := lexicon.LoadThesaurus(path)
	if err != nil {
		t.Fatal(err)
	}
	if sets, keys := th.Size(); sets < 6000 || keys < 10000 {
		t.Fatalf("Size() = %d sets, %d keys; want the whole export (6 304 sets)", sets, keys)
	}
	key := func(w string) string { k, _ := lexicon.Key(w); return k }
	for _, tc := range []struct{ word, synonym string }{
		{"использовать", "применять"}, {"изменение", "перемена"}, {"версия", "редакция"}, {"получить", "взять"},
	} {
		if got := th.Synonyms(key(tc.word)); !slices.Contains(got, key(tc.synonym)) {
			t.Errorf("Synonyms(%q) = %q, want it to hold %q", tc.word, got, key(tc.synonym))
		}
	}
}

// TestIntegrationGazetteer reads the place names deploy/local.sh writes from GeoNames' cities and
// the CLDR's territories and checks exonyms both ways, homonyms and its size.
func TestIntegrationGazetteer(t *testing.T) {
	path := testenv.PlacesPath()
	testenv.Need(t, "the gazetteer (deploy/local.sh install lexicon)", func(context.Context) error {
		_, err := os.Stat(path)
		return err
	})
	g, err := lexicon.LoadGazetteer(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := g.Size(); n < 34000 {
		t.Fatalf("Size() = %d; want every city of cities15000 and the territories (34 169)", n)
	}
	for _, tc := range []struct{ name, id, russian string }{
		{"Vienna", "2761369", "Вена"}, {"Вена", "2761369", "Вена"},
		{"Munich", "2867714", "Мюнхен"}, {"St. Petersburg", "498817", "Санкт-Петербург"},
		{"Петербург", "498817", "Санкт-Петербург"}, {"Moscow", "524901", "Москва"},
		{"Tromsø", "3133895", "Тромсё"}, {"Пекин", "1816670", "Пекин"},
		{"Germany", "DE", "Германия"}, {"США", "US", "США"}, {"Russia", "RU", "Россия"},
		{"Brest", "", ""}, {"Richmond", "", ""}, {"Columbia", "", ""}, // homonyms of close size
	} {
		p, ok := g.Find(tc.name)
		if ok != (tc.id != "") || p.ID != tc.id || (ok && !slices.Contains(p.Names, tc.russian)) {
			t.Errorf("Find(%q) = %s %q (ok %v), want %q with %q", tc.name, p.ID, p.Names, ok, tc.id, tc.russian)
		}
	}
}
