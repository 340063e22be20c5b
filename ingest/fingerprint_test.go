package ingest

import (
	"testing"

	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/ontology"
	"github.com/ariadne-graphrag/ariadne/resolution"
)

// TestRegistryFingerprint: everything a stored document's facts depend on besides its own text
// changes the fingerprint; the order names were resolved in does not when the result is the same.
func TestRegistryFingerprint(t *testing.T) {
	onto, err := ontology.Default()
	if err != nil {
		t.Fatal(err)
	}
	pipe := func(ontoHash string) *Pipeline {
		return &Pipeline{extractor: extraction.NewDictionary(onto), onto: onto, ontoHash: ontoHash}
	}
	p := pipe("o1")
	base := func() (*resolution.Registry, map[string]string, map[string][]extraction.Recognized) {
		reg := resolution.NewRegistry(onto.Nicknames)
		team, _ := reg.Resolve(resolution.Candidate{Name: "Backend team", Type: "team", DocID: "teams/backend", Aliases: []string{"Серверная команда"}})
		reg.Resolve(resolution.Candidate{Name: "memc-booking", Type: "component"})
		return reg, map[string]string{"teams/backend": team}, map[string][]extraction.Recognized{"notes/a#0000-00000000": {{Start: 0, End: 4, Surface: "Omsk", EntityKey: "location:omsk"}}}
	}
	reg, subjects, recognized := base()
	want := p.registryFingerprint(reg, subjects, recognized)
	tests := []struct {
		name   string
		change func(*resolution.Registry, map[string]string, map[string][]extraction.Recognized)
		onto   string
		same   bool
	}{
		{"nothing", func(*resolution.Registry, map[string]string, map[string][]extraction.Recognized) {}, "o1", true},
		{"a new entity", func(r *resolution.Registry, _ map[string]string, _ map[string][]extraction.Recognized) {
			r.Resolve(resolution.Candidate{Name: "Vera Kolesnik", Type: "person", DocID: "people/vera-kolesnik"})
		}, "o1", false},
		{"a new alias", func(r *resolution.Registry, _ map[string]string, _ map[string][]extraction.Recognized) {
			r.AddAlias("teams/backend", resolution.Alias{Text: "Server team"})
		}, "o1", false},
		{"a quoted alias", func(r *resolution.Registry, _ map[string]string, _ map[string][]extraction.Recognized) {
			r.AddAlias("teams/backend", resolution.Alias{Text: "бэкенд", QuotedOnly: true})
		}, "o1", false},
		{"a document's subject", func(_ *resolution.Registry, s map[string]string, _ map[string][]extraction.Recognized) {
			s["notes/a"] = "teams/backend"
		}, "o1", false},
		{"a recognized entity", func(_ *resolution.Registry, _ map[string]string, rec map[string][]extraction.Recognized) {
			rec["notes/a#0000-00000000"][0].EntityKey = "location:omsk-2"
		}, "o1", false},
		{"the ontology", func(*resolution.Registry, map[string]string, map[string][]extraction.Recognized) {}, "o2", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, subjects, recognized := base()
			tc.change(reg, subjects, recognized)
			if got := pipe(tc.onto).registryFingerprint(reg, subjects, recognized); (got == want) != tc.same {
				t.Errorf("fingerprint equal = %v, want %v", got == want, tc.same)
			}
		})
	}
	// The same registry built in another order of calls that gives the same entities.
	reg2 := resolution.NewRegistry(onto.Nicknames)
	reg2.Resolve(resolution.Candidate{Name: "memc-booking", Type: "component"})
	reg2.Resolve(resolution.Candidate{Name: "Backend team", Type: "team", DocID: "teams/backend", Aliases: []string{"Серверная команда"}})
	if got := p.registryFingerprint(reg2, subjects, recognized); got != want {
		t.Errorf("the same entities resolved in another order give another fingerprint")
	}
}
