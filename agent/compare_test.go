package agent

import (
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/resolution"
)

// A comparison cites one sentence about each compared thing: the one that states the compared
// attribute (here a year, which the question never says), from the thing's own page before a
// mention elsewhere; the context the question names ("Orion") is not compared.
func TestPlanComparison(t *testing.T) {
	reg := resolution.NewRegistry(nil)
	reg.Load(ariadne.Entity{Key: "people/anna-berg", Name: "Anna Berg", Type: "person", Aliases: []string{"Anna Berg", "Анна Берг"}}, "", nil)
	reg.Load(ariadne.Entity{Key: "people/ivan-lee", Name: "Ivan Lee", Type: "person", Aliases: []string{"Ivan Lee", "Иван Ли"}}, "", nil)
	reg.Load(ariadne.Entity{Key: "organization:orion", Name: "Orion", Type: "organization", Aliases: []string{"Orion"}}, "", nil)
	names := reg.Matcher()
	linked := []Linked{
		{Key: "organization:orion", Name: "Orion", Type: "organization", Surface: "Orion", names: names},
		{Key: "people/anna-berg", Name: "Anna Berg", Type: "person", Surface: "Anna Berg", names: names},
		{Key: "people/ivan-lee", Name: "Ivan Lee", Type: "person", Surface: "Ivan Lee", names: names},
	}
	chunk := func(id, title, text string) ariadne.Chunk {
		return ariadne.Chunk{ID: id, DocID: ariadne.DocIDOfChunk(id), Title: title, Text: text, ACL: []string{"all"}}
	}
	frags := []Fragment{
		{N: 1, Chunk: chunk("meetings/q3#0000-aaaaaaaa", "Q3 planning", "Present: Anna Berg, Ivan Lee. Anna Berg presented the 2024 roadmap.")},
		{N: 2, Chunk: chunk("people/anna-berg#0000-bbbbbbbb", "Anna Berg", "Anna Berg is a backend developer. Phone: ext. 4417. She has been at Orion since 2018.")},
		{N: 3, Chunk: chunk("people/ivan-lee#0000-cccccccc", "Ivan Lee", "Иван Ли руководит командой данных. В «Орионе» с 2021 года.")},
	}
	units := func(p comparePlan) []string {
		var out []string
		for _, u := range p.units {
			out = append(out, u.frag.Chunk.ID+": "+u.quote)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		question string
		frags    []Fragment
		want     []string
	}{
		{"years on each page", "Who joined Orion earlier, Anna Berg or Ivan Lee?", frags, []string{
			"people/anna-berg#0000-bbbbbbbb: She has been at Orion since 2018.",
			"people/ivan-lee#0000-cccccccc: В «Орионе» с 2021 года.",
		}},
		{"one side has no such sentence", "Who joined Orion earlier, Anna Berg or Ivan Lee?", frags[:2], nil},
		{"not a comparison", "When did Anna Berg join Orion?", frags, nil},
	} {
		got := units(planComparison(tc.question, linked, tc.frags, nil))
		if len(got) != len(tc.want) {
			t.Errorf("%s: units %q, want %q", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: unit %d = %q, want %q", tc.name, i, got[i], tc.want[i])
			}
		}
	}
	if ents := comparedEntities("Who joined Orion earlier, Anna Berg or Ivan Lee?", linked); len(ents) != 2 || ents[0].Key != "people/anna-berg" || ents[1].Key != "people/ivan-lee" {
		t.Errorf("compared entities %v, want Anna Berg and Ivan Lee", ents)
	}
}
