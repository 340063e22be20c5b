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

// Words the stemmer gives one key are told apart by their form: «директор» (a head) is not
// «директория» (a folder), whose set holds «каталог» (a trial: «Кто директор музея?» was
// answered by a sentence about a catalogue).
func TestThesaurusSynonymsOfTellsWordsOfOneKeyApart(t *testing.T) {
	key := func(w string) string { k, _ := lexicon.Key(w); return k }
	if key("директор") != key("директория") {
		t.Skip("the stemmer keys them apart: nothing to tell apart")
	}
	th, err := lexicon.ReadThesaurus("test", strings.NewReader("директория\tкаталог\tпапка\nдиректор\tруководитель\nизменение\tперемена\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		word string
		want []string
	}{
		{"директор", []string{key("руководитель")}},
		{"Директора", []string{key("руководитель")}},
		{"директором", []string{key("руководитель")}},
		{"директории", []string{key("каталог"), key("папка")}},
		{"директорию", []string{key("каталог"), key("папка")}},
		{"перемены", []string{key("изменение")}}, // one word per key: as Synonyms
		{"ответ", nil},
	} {
		if got := th.SynonymsOf(tc.word); !slices.Equal(got, tc.want) {
			t.Errorf("SynonymsOf(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	if got := th.Synonyms(key("директор")); len(got) != 3 {
		t.Errorf("Synonyms(key) = %q, want every word's of the key", got)
	}
	// With the folder's set alone, a form of «директор» is still no form of it.
	only, err := lexicon.ReadThesaurus("test", strings.NewReader("директория\tкаталог\tпапка\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := only.SynonymsOf("директора"); got != nil {
		t.Errorf("folder's set only: SynonymsOf(директора) = %q, want none", got)
	}
	if got := only.SynonymsOf("директорией"); !slices.Equal(got, []string{key("каталог"), key("папка")}) {
		t.Errorf("folder's set only: SynonymsOf(директорией) = %q", got)
	}
	var none *lexicon.Lexicon
	if got := none.WithThesaurus(th).SynonymsOf("директора"); !slices.Equal(got, []string{key("руководитель")}) {
		t.Errorf("through a lexicon: SynonymsOf = %q", got)
	}
}
