package ingest

import (
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// TestPlanRun: one document of each kind — unchanged, changed, new, lost vectors, deleted — and
// vectors nobody owns, in a full sync and in an upsert.
func TestPlanRun(t *testing.T) {
	doc := func(id, body string) ariadne.Document { return ariadne.Document{ID: id, Title: id, Body: body} }
	same, edited, fresh, lost := doc("d/same", "same"), doc("d/edited", "new text"), doc("d/new", "new"), doc("d/lost", "lost")
	states := map[string]ariadne.DocState{
		"d/same":   {ContentHash: same.ContentHash(), ChunkIDs: []string{"d/same#0"}},
		"d/edited": {ContentHash: doc("d/edited", "old text").ContentHash(), ChunkIDs: []string{"d/edited#0-old"}},
		"d/lost":   {ContentHash: lost.ContentHash(), ChunkIDs: []string{"d/lost#0", "d/lost#1"}},
		"d/gone":   {ContentHash: "x", ChunkIDs: []string{"d/gone#0"}},
	}
	chunks := map[string][]ariadne.Chunk{
		"d/same": {{ID: "d/same#0"}}, "d/edited": {{ID: "d/edited#0-new"}}, "d/new": {{ID: "d/new#0"}}, "d/lost": {{ID: "d/lost#0"}, {ID: "d/lost#1"}},
	}
	stored := []string{"d/same#0", "d/edited#0-old", "d/lost#0", "d/gone#0", "stray#9", "another#1"}
	docs := []ariadne.Document{same, edited, fresh, lost}

	p := PlanRun(docs, chunks, states, stored, true)
	if !slices.Equal(p.Changed, []string{"d/edited", "d/new"}) || !slices.Equal(p.Lost, []string{"d/lost"}) ||
		!slices.Equal(p.Unchanged, []string{"d/same"}) {
		t.Errorf("changed %v lost %v unchanged %v", p.Changed, p.Lost, p.Unchanged)
	}
	if len(p.Deleted) != 1 || !slices.Equal(p.Deleted["d/gone"], []string{"d/gone#0"}) {
		t.Errorf("deleted %v", p.Deleted)
	}
	if !slices.Equal(p.Orphans, []string{"another#1", "stray#9"}) {
		t.Errorf("orphans %v", p.Orphans)
	}
	if !p.NeedsEmbedding("d/lost") || !p.NeedsEmbedding("d/new") || p.NeedsEmbedding("d/same") {
		t.Error("NeedsEmbedding")
	}

	up := PlanRun([]ariadne.Document{edited}, chunks, states, stored, false)
	if !slices.Equal(up.Changed, []string{"d/edited"}) || len(up.Deleted) != 0 || len(up.Orphans) != 0 {
		t.Errorf("upsert deletes nothing: %+v", up)
	}
	if again := PlanRun(docs, chunks, states, stored, true); !slices.Equal(again.Orphans, p.Orphans) || !slices.Equal(again.Changed, p.Changed) {
		t.Error("planning is not deterministic")
	}
}
