package agent

import (
	"testing"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

func TestIrregularFormOf(t *testing.T) {
	term := func(w string) string { return textnorm.SearchTerms(w)[0] }
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"leads", "led", true},
		{"paid", "pays", true},
		{"built", "builds", true},
		{"written", "wrote", true},
		{"leads", "leads", false}, // the same term: matched as it is
		{"led", "paid", false},
		{"found", "finds", false}, // "found" is a verb of its own
		{"bleeds", "bled", false},
		{"pay", "pays", false}, // regular forms of a short base
		{"lead", "leading", false},
	} {
		if got := irregularFormOf(term(tc.a), term(tc.b)); got != tc.want {
			t.Errorf("irregularFormOf(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	q := newQuestionTerms("Who leads the reliability team?", nil, "")
	if got := q.stated("The reliability team is led by Karin Nyberg."); !got[term("leads")] {
		t.Errorf("stated = %v: \"is led by\" does not state \"leads\"", got)
	}
}
