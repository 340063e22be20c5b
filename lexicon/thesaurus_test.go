package lexicon_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne/lexicon"
)

func TestReadThesaurus(t *testing.T) {
	key := func(w string) string { k, _ := lexicon.Key(w); return k }
	const sets = "# comment\n" +
		"использовать\tприменять\tупотреблять\n" +
		"\n" +
		"изменение\tперемена\tchange\n" + // an English word is not a key
		"для\tради\n" + // function words: no set
		"ответ\n" + // one word: no set
		"поправка\tпоправки\n" // one key: no set
	th, err := lexicon.ReadThesaurus("test", strings.NewReader(sets))
	if err != nil {
		t.Fatal(err)
	}
	if s, k := th.Size(); s != 2 || k != 5 {
		t.Errorf("Size() = %d sets, %d keys; want 2, 5", s, k)
	}
	for _, tc := range []struct {
		word string
		want []string
	}{
		{"применяют", []string{key("использовать"), key("употреблять")}},
		{"перемены", []string{key("изменение")}},
		{"ответ", nil},
		{"ради", nil},
	} {
		if got := th.Synonyms(key(tc.word)); !slices.Equal(got, tc.want) {
			t.Errorf("Synonyms(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	// Through a lexicon, with or without a dictionary.
	var none *lexicon.Lexicon
	if got := none.WithThesaurus(th).Synonyms(key("изменение")); !slices.Equal(got, []string{key("перемена")}) {
		t.Errorf("nil lexicon WithThesaurus: Synonyms = %q", got)
	}
	if got := none.Synonyms(key("изменение")); got != nil {
		t.Errorf("nil lexicon: Synonyms = %q, want none", got)
	}
	if _, err := lexicon.ReadThesaurus("empty", strings.NewReader("# nothing\nслово\n")); err == nil {
		t.Error("a file without a set: no error")
	}
	if _, err := lexicon.LoadThesaurus(filepath.Join(t.TempDir(), "missing.tsv")); !errors.Is(err, lexicon.ErrNotFound) {
		t.Errorf("missing file: %v, want ErrNotFound", err)
	}
}
