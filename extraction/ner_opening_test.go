package extraction

import (
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/ner"
)

// TestCommonNounOpening: a one-word organization or place that opens its sentence and is an
// ordinary word of the dictionary is a capital letter, not a name (trial 77: «Комитет обсудил
// инциденты …» became an organization that a multi-hop answer's chain ran through); a place the
// gazetteer knows, a word in the middle of a sentence, a name the dictionary does not know and
// a name of several words stay names.
func TestCommonNounOpening(t *testing.T) {
	lex, err := lexicon.Load("../.ariadne/lexicon/mueller7")
	if err != nil {
		t.Skipf("no lexicon (deploy/local.sh install lexicon): %v", err)
	}
	g, err := lexicon.ReadGazetteer("places.tsv", strings.NewReader("city\t515012\tRU\t317854\tOryol\tОрёл\tОрел\n"))
	if err != nil {
		t.Fatal(err)
	}
	n := &NER{lex: lex.WithGazetteer(g)}
	for _, tc := range []struct {
		text, mention string
		want          bool
	}{
		{"Комитет обсудил инциденты QI-2025-03 и QI-2025-07.", "Комитет", true},
		{"Решение принято. Совет утвердил план.", "Совет", true},
		{"- Committee approved the budget.", "Committee", true},
		{"В четверг Комитет обсудил инциденты.", "Комитет", false},
		{"Орёл принял делегацию.", "Орёл", false},
		{"Сбербанк открыл счёт.", "Сбербанк", false},
		{"Комитет качества собрался.", "Комитет качества", false},
	} {
		start := strings.Index(tc.text, tc.mention)
		m := ner.Mention{Start: start, End: start + len(tc.mention), Text: tc.mention, Label: "ORG"}
		if got := n.commonNounOpening(tc.text, m); got != tc.want {
			t.Errorf("%q in %q: common noun opening %v, want %v", tc.mention, tc.text, got, tc.want)
		}
	}
	if (&NER{}).commonNounOpening("Комитет обсудил.", ner.Mention{Start: 0, End: len("Комитет"), Text: "Комитет"}) {
		t.Error("without a lexicon nothing is a common noun")
	}
}
