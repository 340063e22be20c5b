package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func TestDefinitionLead(t *testing.T) {
	page := ariadne.Chunk{ID: "people/petr-zimin#0000-11111111", DocID: "people/petr-zimin", Title: "Peter Zimin", ACL: []string{"all"},
		Text: "Peter Zimin leads the data team. He chairs the schema review. He joined in 2019."}
	contacts := ariadne.Chunk{ID: "people/petr-zimin#0001-22222222", DocID: "people/petr-zimin", Title: "Peter Zimin", ACL: []string{"all"},
		Heading: []string{"Contacts"}, Text: "- E-mail: p.zimin@example.org\n- Office: Kazan"}
	lib := ariadne.Chunk{ID: "technologies/geokit#0000-33333333", DocID: "technologies/geokit", Title: "geokit", ACL: []string{"all"},
		Text: "geokit is a routing library for Go. The data team owns it."}
	zimin := Linked{Key: "people/petr-zimin", Name: "Peter Zimin", Type: "person", Surface: "Зимин"}
	geokit := Linked{Key: "technologies/geokit", Name: "geokit", Type: "technology", Surface: "geokit"}
	undocumented := Linked{Key: "org:kazan port", Name: "Kazan Port", Type: "organization", Surface: "Kazan Port"}
	tests := []struct {
		question string
		linked   []Linked
		frags    []ariadne.Chunk
		want     []string // nil: not a definition question, or no opening to quote
	}{
		{"Кто такой Зимин?", []Linked{zimin}, []ariadne.Chunk{contacts, page}, []string{"Peter Zimin leads the data team.", "He chairs the schema review."}},
		{"Чем занимается Зимин?", []Linked{zimin}, []ariadne.Chunk{page}, []string{"Peter Zimin leads the data team.", "He chairs the schema review."}},
		{"Tell me about Zimin", []Linked{{Key: zimin.Key, Name: zimin.Name, Surface: "Zimin"}}, []ariadne.Chunk{page}, []string{"Peter Zimin leads the data team.", "He chairs the schema review."}},
		// A lower-case name opens the first chunk: its sentence is no overlap's tail.
		{"Что такое geokit?", []Linked{geokit}, []ariadne.Chunk{lib}, []string{"geokit is a routing library for Go.", "The data team owns it."}},
		{"Где сидит Зимин?", []Linked{zimin}, []ariadne.Chunk{page, contacts}, nil}, // a term beyond the name
		{"Кто такой Зимин?", []Linked{zimin}, []ariadne.Chunk{contacts}, nil},       // the opening is not among the fragments
		{"Кто такой Зимин?", []Linked{zimin, geokit}, []ariadne.Chunk{page}, nil},   // two things named
		{"What is Kazan Port?", []Linked{undocumented}, []ariadne.Chunk{page}, nil}, // no page of its own
	}
	for _, tc := range tests {
		var frags []Fragment
		for i, c := range tc.frags {
			frags = append(frags, Fragment{N: i + 1, Chunk: c})
		}
		f, got, ok := definitionLead(tc.question, tc.linked, frags)
		if !slices.Equal(got, tc.want) || ok != (tc.want != nil) {
			t.Errorf("definitionLead(%q) = %q, %v; want %q", tc.question, got, ok, tc.want)
			continue
		}
		if ok && ariadne.ChunkPosition(f.Chunk.ID) != 0 {
			t.Errorf("definitionLead(%q) quotes chunk %s, want the page's first", tc.question, f.Chunk.ID)
		}
	}
}

// The default generator answers a definition question with the page's opening, and says so in
// its decision; a question with a term of its own is ranked as before.
func TestTermExtractiveDefinition(t *testing.T) {
	page := ariadne.Chunk{ID: "people/petr-zimin#0000-11111111", DocID: "people/petr-zimin", Title: "Peter Zimin", ACL: []string{"all"},
		Text: "Peter Zimin leads the data team. He chairs the schema review."}
	contacts := ariadne.Chunk{ID: "people/petr-zimin#0001-22222222", DocID: "people/petr-zimin", Title: "Peter Zimin", ACL: []string{"all"},
		Heading: []string{"Contacts"}, Text: "- E-mail: p.zimin@example.org\n- Office: Kazan"}
	frags := Fragments([]ariadne.ScoredChunk{{Chunk: contacts}, {Chunk: page}})
	linked := []Linked{{Key: "people/petr-zimin", Name: "Peter Zimin", Type: "person", Surface: "Зимин"}}
	var d EvidenceDecision
	out, err := TermExtractive{}.Generate(context.Background(), GenerationInput{Question: "Кто такой Зимин?", Fragments: frags, Linked: linked, Decision: &d})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"quote":"Peter Zimin leads the data team."`) || strings.Contains(out, "E-mail") || !d.Answered || d.ChunkID != page.ID {
		t.Errorf("answer %s, decision %+v; want the page's opening", out, d)
	}
	out, _ = TermExtractive{}.Generate(context.Background(), GenerationInput{Question: "What is Zimin's office?", Fragments: frags,
		Linked: []Linked{{Key: "people/petr-zimin", Name: "Peter Zimin", Surface: "Zimin"}}})
	if !strings.Contains(out, "Office: Kazan") {
		t.Errorf("office question: %s, want the contacts line", out)
	}
}
