package agent

import (
	"context"
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// candidatesGraph proposes fixed entity candidates; it knows nothing else.
type candidatesGraph struct {
	emptyGraph
	cands []ariadne.EntityCandidate
}

func (g candidatesGraph) EntityCandidates(context.Context, string, []string, int) ([]ariadne.EntityCandidate, error) {
	return g.cands, nil
}

// A question may keep one distinctive word of a name ("the Lipetsky plant", «Зимин»): linked
// as partial when that word names exactly one candidate; never by a person's first name, a
// short generic word, a lower-case word or a word two candidates share; and a whole-name match
// wins.
func TestLinkPartialNames(t *testing.T) {
	cand := func(key, name, typ string, aliases ...string) ariadne.EntityCandidate {
		return ariadne.EntityCandidate{StoredEntity: ariadne.StoredEntity{Entity: ariadne.Entity{Key: key, Name: name, Type: typ, Aliases: aliases}}}
	}
	cands := []ariadne.EntityCandidate{
		cand("clients/lzm", "АО «Липецкий завод металлоконструкций»", "client", "Lipetsky Steel Works", "ЛЗМ"),
		cand("people/petr-zimin", "Пётр Зимин", "person", "Peter Zimin"),
		cand("people/petr-orlov", "Пётр Орлов", "person"),
		cand("teams/data", "Data Team", "team", "Команда данных"),
		cand("teams/security", "Отдел безопасности", "team", "Security Office"),
		cand("projects/north-gate", "North Gateway", "project"),
		cand("projects/south-gate", "South Gateway", "project"),
	}
	r := NewRetriever(fakeSearch{}, candidatesGraph{cands: cands}, fixedEmbedder{}, nil, RetrievalConfig{}, nil)
	tests := []struct {
		question string
		want     []string // key:surface, partial marked with *
	}{
		{"Who heads the team that works for the Lipetsky plant?", []string{"clients/lzm:Lipetsky*"}},
		{"Кто такой Зимин?", []string{"people/petr-zimin:Зимин*"}},
		{"Кто такой Пётр?", nil},       // a first name: two Petrs, and never alone
		{"Which Data is stored?", nil}, // short and generic
		{"Who owns the gateway?", nil}, // lower case
		{"Где головной офис, в котором сидит Зимин?", []string{"people/petr-zimin:Зимин*"}}, // «офис» is no "Office"
		{"Who owns the Gateway?", nil}, // two candidates share it
		{"Кто руководит ЛЗМ и работает с Lipetsky Steel Works?", []string{"clients/lzm:ЛЗМ"}}, // whole names win
		{"Where does Peter Zimin sit, and what does Orlov do?", []string{"people/petr-zimin:Peter Zimin", "people/petr-orlov:Orlov*"}},
	}
	for _, tc := range tests {
		linked, err := r.Link(context.Background(), tc.question, []string{"all"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range linked {
			s := l.Key + ":" + l.Surface
			if l.Partial {
				s += "*"
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Link(%q) = %v, want %v", tc.question, got, tc.want)
		}
		if w := wholeLinks(linked); len(w) != len(linked)-countPartial(linked) {
			t.Errorf("wholeLinks(%v) = %v", linked, w)
		}
	}
}

func countPartial(ls []Linked) int {
	n := 0
	for _, l := range ls {
		if l.Partial {
			n++
		}
	}
	return n
}
