package agent

import (
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// TestAnswerPronounSubjectQuotesItsAntecedent: a quote whose subject is a pronoun comes with the
// sentence before it, which says who (README trial), in text order; a quote that names its
// subject comes alone.
func TestAnswerPronounSubjectQuotesItsAntecedent(t *testing.T) {
	page := ariadne.ScoredChunk{Score: 0.9, Chunk: ariadne.Chunk{ID: "people/maxim-orekhov#0001-aaaaaaaa", DocID: "people/maxim-orekhov",
		Title: "Maxim Orekhov", ACL: []string{"all"}, Text: "Maxim Orekhov leads the Integrations team. He approves architecture changes for all Go services and chairs the weekly incident review.\n\n- Office: Kazan"}}
	a := answerer(t, TermExtractive{}, AnswerConfig{}, page)
	tests := []struct {
		question string
		want     []string
	}{
		{"Who chairs the weekly incident review?", []string{"Maxim Orekhov leads the Integrations team.",
			"He approves architecture changes for all Go services and chairs the weekly incident review."}},
		{"Which team does Maxim Orekhov lead?", []string{"Maxim Orekhov leads the Integrations team."}},
	}
	for _, tc := range tests {
		ans := ask(t, a, tc.question)
		var got []string
		for _, c := range ans.Claims {
			got = append(got, c.Text)
		}
		if ans.Status != ariadne.StatusAnswered || len(got) < len(tc.want) {
			t.Fatalf("%q: %s %q, want %q first", tc.question, ans.Status, got, tc.want)
		}
		for i, w := range tc.want {
			if got[i] != w {
				t.Errorf("%q: claim %d %q, want %q (claims %q)", tc.question, i+1, got[i], w, got)
			}
		}
		if len(tc.want) == 1 && len(got) > 1 && got[1] == tc.want[0] {
			t.Errorf("%q: the named sentence twice: %q", tc.question, got)
		}
	}
	for _, tc := range []struct {
		unit string
		want bool
	}{{"He approves it.", true}, {"Она ведёт проект.", true}, {"They own it.", true}, {"Helen approves it.", false}, {"The team owns it.", false}, {"Оно", false}} {
		if got := pronounSubject(tc.unit); got != tc.want {
			t.Errorf("pronounSubject(%q) = %v, want %v", tc.unit, got, tc.want)
		}
	}
}
