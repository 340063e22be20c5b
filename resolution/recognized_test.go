package resolution

import (
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func TestResolveRecognized(t *testing.T) {
	// One registry per case: the documented entities a corpus defines, then what recognition
	// found earlier in the run, then the candidate.
	type step struct {
		c          Candidate
		key        string
		wantMerged bool
	}
	documented := func(r *Registry) {
		r.Resolve(Candidate{Name: "ООО «Омега-Логистик»", Type: "client", DocID: "clients/omega"})
		r.Resolve(Candidate{Name: "Paris", Type: "topic", DocID: "wiki/paris"})
		r.Resolve(Candidate{Name: "Mercury", Type: "topic", DocID: "wiki/mercury-planet"})
		r.Resolve(Candidate{Name: "Mercury", Type: "technology", DocID: "tech/mercury"})
		r.Resolve(Candidate{Name: "Ирина Морозова", Type: "person", DocID: "people/morozova"})
		r.Resolve(Candidate{Name: "Maxim Fedotov", Type: "person", DocID: "people/fedotov"})
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"a documented entity wins whatever the label", []step{
			{Candidate{Name: "Омега-Логистик", Type: "organization"}, "clients/omega", true},
			{Candidate{Name: "Omega Logistic", Type: "location"}, "clients/omega", true},
			{Candidate{Name: "Paris", Type: "location"}, "wiki/paris", true},
			{Candidate{Name: "Ирину Морозову", Type: "person"}, "people/morozova", true},
		}},
		{"a short form the documented name extends joins it (matching is not symmetric)", []step{
			{Candidate{Name: "Max Fedotov", Type: "person"}, "people/fedotov", true},
		}},
		{"a one-word Latin name joins its plural only, not a longer word", []step{
			{Candidate{Name: "Roman", Type: "person"}, "person:roman", false},
			{Candidate{Name: "Romania", Type: "location"}, "location:romania", false},
			{Candidate{Name: "Romantic", Type: "organization"}, "organization:romantik", false},
			{Candidate{Name: "Romanian", Type: "location"}, "location:romanian", false},
			{Candidate{Name: "Romans", Type: "person"}, "person:roman", true},
			{Candidate{Name: "Parises", Type: "location"}, "wiki/paris", true},
		}},
		{"longer forms of a full name need one word as written", []step{
			{Candidate{Name: "Max Fedotova", Type: "person"}, "person:maks fedotova", false},
		}},
		{"several documented entities: the one of the candidate's type, else ambiguous", []step{
			{Candidate{Name: "Mercury", Type: "technology"}, "tech/mercury", true},
			{Candidate{Name: "Mercury", Type: "organization"}, "", false},
		}},
		{"inflections, scripts and labels of one name join the first", []step{
			{Candidate{Name: "Велтрикса", Type: "person"}, "person:veltriksa", false},
			{Candidate{Name: "Veltrix", Type: "organization"}, "person:veltriksa", true},
			{Candidate{Name: "ООО «Велтрикс»", Type: "organization"}, "person:veltriksa", true},
			{Candidate{Name: "Самаре", Type: "location"}, "location:samare", false},
			{Candidate{Name: "Самарой", Type: "location"}, "location:samare", true},
		}},
		{"person homonyms stay apart by context; other names ignore it", []step{
			{Candidate{Name: "Олег Кравцов", Type: "person", Context: "clients/a"}, "person:oleg kravtsov@clients/a", false},
			{Candidate{Name: "Олег Кравцов", Type: "person", Context: "clients/b"}, "person:oleg kravtsov@clients/b", false},
			{Candidate{Name: "Олега Кравцова", Type: "person", Context: "clients/b"}, "person:oleg kravtsov@clients/b", true},
			{Candidate{Name: "Олег Кравцов", Type: "organization"}, "", false}, // two persons, neither closer
			{Candidate{Name: "Олег Кравцов", Type: "person"}, "", false},       // no context: either of them
		}},
		{"a person named in a context and without one is one person", []step{
			{Candidate{Name: "Ирина Левченко", Type: "person", Context: "org/volga"}, "person:irina levchenko@org/volga", false},
			{Candidate{Name: "Ирина Левченко", Type: "person"}, "person:irina levchenko@org/volga", true},
			{Candidate{Name: "Анна Орлова", Type: "person"}, "person:ana orlova", false},
			{Candidate{Name: "Анна Орлова", Type: "person", Context: "org/volga"}, "person:ana orlova", true},
		}},
		{"a new name becomes an entity with its aliases", []step{
			{Candidate{Name: "Nordwind Labs", Type: "organization", Aliases: []string{"Нордвинд Лабс"}}, "organization:nordvind labs", false},
			{Candidate{Name: "Нордвинд Лабсом", Type: "organization"}, "organization:nordvind labs", true},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRegistry(nil)
			documented(r)
			for _, s := range tc.steps {
				key, merged := r.ResolveRecognized(s.c)
				if key != s.key || merged != s.wantMerged {
					t.Errorf("ResolveRecognized(%q, %s, %q) = %q, %v; want %q, %v", s.c.Name, s.c.Type, s.c.Context, key, merged, s.key, s.wantMerged)
				}
			}
		})
	}
}

func TestResolveRecognizedAddsNoAliasToJoinedEntities(t *testing.T) {
	r := NewRegistry(nil)
	r.Resolve(Candidate{Name: "Paris", Type: "topic", DocID: "wiki/paris"})
	if key, _ := r.ResolveRecognized(Candidate{Name: "Paris", Type: "location", Aliases: []string{"Paris, France"}}); key != "wiki/paris" {
		t.Fatalf("key %q", key)
	}
	if e, _ := r.Get("wiki/paris"); len(e.Aliases) != 0 {
		t.Errorf("a recognized surface became an alias of a documented entity: %q", e.Aliases)
	}
	want := ariadne.Entity{Key: "organization:nordvind", Name: "Nordwind", Type: "organization", Aliases: []string{"Нордвинда"}}
	r.ResolveRecognized(Candidate{Name: "Nordwind", Type: "organization", Aliases: []string{"Нордвинда"}})
	if e, _ := r.Get(want.Key); e.Name != want.Name || e.Type != want.Type || len(e.Aliases) != 1 || e.Aliases[0] != "Нордвинда" {
		t.Errorf("new entity %+v, want %+v", e, want)
	}
}
