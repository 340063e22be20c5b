package synth

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne/corpus"
)

func TestGeneratorIsDeterministicAndParses(t *testing.T) {
	a, b := New(7, 200), New(7, 200)
	types := map[string]int{}
	langs := map[string]int{}
	for i := 0; i < 600; i++ {
		da, db := a.Next(), b.Next()
		if da.Path != db.Path || !bytes.Equal(da.Content, db.Content) {
			t.Fatalf("doc %d differs between two generators with one seed: %s vs %s", i, da.Path, db.Path)
		}
		doc, err := corpus.Parse(da.Path, da.Content)
		if err != nil {
			t.Fatalf("%s does not parse: %v\n%s", da.Path, err, da.Content)
		}
		types[doc.Type]++
		langs[doc.Lang]++
	}
	if len(a.Entities()) != 200 { // 90 persons, 40 projects, 24 clients, 30 technologies, 16 teams
		t.Fatalf("entities = %d", len(a.Entities()))
	}
	for _, typ := range []string{"person", "project", "client", "technology", "team", "incident", "meeting-notes", "note"} {
		if types[typ] == 0 {
			t.Errorf("no %s documents in %v", typ, types)
		}
	}
	if langs["ru"] < 200 || langs["en"] < 200 {
		t.Errorf("languages %v, want both well represented", langs)
	}
	if c := New(8, 200).Next(); bytes.Equal(c.Content, New(7, 200).Next().Content) {
		t.Error("another seed gave the same first document")
	}
}

func TestMentionsFollowZipf(t *testing.T) {
	g := New(1, 1000)
	counts := map[string]int{}
	for i := 0; i < 20000; i++ {
		counts[g.Pick(Person).Latin]++
	}
	persons := g.byKind[Person]
	top := g.entities[persons[0]].Latin
	mid := g.entities[persons[len(persons)/2]].Latin
	if counts[top] < 20*max(1, counts[mid]) {
		t.Fatalf("top person %d mentions, median person %d: want a heavy head", counts[top], counts[mid])
	}
	if counts[top] > 20000/2 {
		t.Fatalf("top person has %d of 20000 mentions: too concentrated", counts[top])
	}
	if !strings.Contains(g.entities[persons[0]].Cyr, " ") {
		t.Fatalf("person name %q has no surname", g.entities[persons[0]].Cyr)
	}
}
