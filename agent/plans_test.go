package agent

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// A named entity's page shows the generator up to pageChunks of its chunks, best first, beyond the
// ranked list; chunks already among the fragments count and are not repeated, and other
// documents' fragments are kept as they are.
func TestWithPages(t *testing.T) {
	chunk := func(doc string, i int) ariadne.ScoredChunk {
		return ariadne.ScoredChunk{Chunk: ariadne.Chunk{ID: fmt.Sprintf("%s#%04d", doc, i), DocID: doc}}
	}
	frags := Fragments([]ariadne.ScoredChunk{chunk("contracts/la", 4), chunk("contracts/la", 3), chunk("orgs/donau", 0)})
	pages := []ariadne.ScoredChunk{chunk("contracts/la", 4), chunk("contracts/la", 0), chunk("contracts/la", 1), chunk("contracts/la", 2), chunk("orgs/donau", 1)}
	got := withPages(frags, pages)
	var ids []string
	for i, f := range got {
		if f.N != i+1 {
			t.Errorf("fragment %d numbered %d", i, f.N)
		}
		ids = append(ids, f.Chunk.ID)
	}
	want := []string{"contracts/la#0004", "contracts/la#0003", "orgs/donau#0000", "contracts/la#0000", "orgs/donau#0001"} // pageChunks = 3
	if !slices.Equal(ids, want) {
		t.Errorf("withPages = %q, want %q", ids, want)
	}
	if got := withPages(frags, nil); len(got) != len(frags) {
		t.Errorf("no pages: %d fragments, want %d", len(got), len(frags))
	}
}
