package ingest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// TestPlanRun: one document of each kind — unchanged, changed, new, lost vectors, deleted — and
// vectors nobody owns, in a full sync and in an upsert, all in the default source.
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
	stored := vectors("", "d/same#0", "d/edited#0-old", "d/lost#0", "d/gone#0", "stray#9", "another#1")
	docs := []ariadne.Document{same, edited, fresh, lost}

	p := PlanRun("", docs, chunks, states, stored, true)
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

	up := PlanRun("", []ariadne.Document{edited}, chunks, states, stored, false)
	if !slices.Equal(up.Changed, []string{"d/edited"}) || len(up.Deleted) != 0 || len(up.Orphans) != 0 {
		t.Errorf("upsert deletes nothing: %+v", up)
	}
	if again := PlanRun("", docs, chunks, states, stored, true); !slices.Equal(again.Orphans, p.Orphans) || !slices.Equal(again.Changed, p.Changed) {
		t.Error("planning is not deterministic")
	}
}

func vectors(source string, ids ...string) []ariadne.StoredVector {
	out := make([]ariadne.StoredVector, 0, len(ids))
	for _, id := range ids {
		out = append(out, ariadne.StoredVector{ChunkID: id, Source: source})
	}
	return out
}

// TestPlanRunReanalyze: chunks of unchanged documents whose stored terms another analysis made
// (or no recorded one: an index from before versions) are to be re-analyzed; those of changed,
// lost and deleted documents are not (they are written or deleted anyway).
func TestPlanRunReanalyze(t *testing.T) {
	doc := func(id, body string) ariadne.Document { return ariadne.Document{ID: id, Title: id, Body: body} }
	cur, old, none, edited := doc("d/current", "c"), doc("d/old", "o"), doc("d/none", "n"), doc("d/edited", "new")
	states := map[string]ariadne.DocState{
		"d/current": {ContentHash: cur.ContentHash(), ChunkIDs: []string{"d/current#0"}},
		"d/old":     {ContentHash: old.ContentHash(), ChunkIDs: []string{"d/old#0", "d/old#1"}},
		"d/none":    {ContentHash: none.ContentHash(), ChunkIDs: []string{"d/none#0"}},
		"d/edited":  {ContentHash: "before", ChunkIDs: []string{"d/edited#0"}},
		"d/gone":    {ContentHash: "g", ChunkIDs: []string{"d/gone#0"}},
	}
	v := func(id, analysis string) ariadne.StoredVector {
		return ariadne.StoredVector{ChunkID: id, Source: ariadne.DefaultSource, Analysis: analysis}
	}
	stored := []ariadne.StoredVector{v("d/current#0", textnorm.AnalysisVersion), v("d/old#0", "1999-01-01"),
		v("d/old#1", textnorm.AnalysisVersion), v("d/none#0", ""), v("d/edited#0", "1999-01-01"), v("d/gone#0", "")}
	p := PlanRun("", []ariadne.Document{cur, old, none, edited}, nil, states, stored, true)
	if want := []string{"d/none#0", "d/old#0"}; !slices.Equal(p.Reanalyze, want) {
		t.Errorf("reanalyze %v, want %v", p.Reanalyze, want)
	}
	if !slices.Equal(p.Changed, []string{"d/edited"}) || len(p.Deleted) != 1 {
		t.Errorf("changed %v deleted %v", p.Changed, p.Deleted)
	}
}

// TestPlanRunPerSource: a run over one source never deletes another source's documents or
// vectors, treats documents and vectors stored before sources as the default source, and reports
// an id another source holds as a conflict instead of writing it.
func TestPlanRunPerSource(t *testing.T) {
	doc := func(id, body string) ariadne.Document { return ariadne.Document{ID: id, Title: id, Body: body} }
	wikiA, wikiB := doc("wiki/a", "a"), doc("wiki/b", "b")
	legacy := doc("old/x", "x")
	states := map[string]ariadne.DocState{
		"wiki/a":   {Source: "wiki", ContentHash: wikiA.ContentHash(), ChunkIDs: []string{"wiki/a#0"}},
		"wiki/b":   {Source: "wiki", ContentHash: "stale", ChunkIDs: []string{"wiki/b#0-old"}},
		"wiki/c":   {Source: "wiki", ContentHash: "c", ChunkIDs: []string{"wiki/c#0"}},
		"crm/deal": {Source: "crm", ContentHash: "d", ChunkIDs: []string{"crm/deal#0"}},
		"old/x":    {Source: "", ContentHash: legacy.ContentHash(), ChunkIDs: []string{"old/x#0"}},
		"old/y":    {Source: "", ContentHash: "y", ChunkIDs: []string{"old/y#0"}},
	}
	stored := append(append(vectors("wiki", "wiki/a#0", "wiki/b#0-old", "wiki/c#0", "wiki/stray#0"),
		vectors("crm", "crm/deal#0", "crm/stray#0")...), vectors("", "old/x#0", "old/y#0", "old/stray#0")...)
	chunksOf := func(docs ...ariadne.Document) map[string][]ariadne.Chunk {
		m := map[string][]ariadne.Chunk{}
		for _, d := range docs {
			m[d.ID] = []ariadne.Chunk{{ID: d.ID + "#0"}}
		}
		return m
	}
	tests := []struct {
		name      string
		source    string
		docs      []ariadne.Document
		full      bool
		changed   []string
		unchanged []string
		deleted   []string
		orphans   []string
		conflicts []ariadne.SourceConflict
	}{
		{name: "full sync of wiki deletes only wiki", source: "wiki", docs: []ariadne.Document{wikiA, wikiB}, full: true,
			changed: []string{"wiki/b"}, unchanged: []string{"wiki/a"}, deleted: []string{"wiki/c"},
			orphans: []string{"wiki/stray#0"}}, // wiki/b#0-old is wiki/b's stale chunk: its rewrite deletes it
		{name: "an empty sync of crm empties crm only", source: "crm", full: true,
			deleted: []string{"crm/deal"}, orphans: []string{"crm/stray#0"}},
		{name: "legacy documents are the default source", source: "", docs: []ariadne.Document{legacy}, full: true,
			unchanged: []string{"old/x"}, deleted: []string{"old/y"}, orphans: []string{"old/stray#0"}},
		{name: "naming the default source is the same", source: ariadne.DefaultSource, docs: []ariadne.Document{legacy}, full: true,
			unchanged: []string{"old/x"}, deleted: []string{"old/y"}, orphans: []string{"old/stray#0"}},
		{name: "an id held by wiki is a conflict for crm, and crm keeps its own", source: "crm",
			docs: []ariadne.Document{wikiA, doc("crm/deal", "d2")}, full: true,
			changed: []string{"crm/deal"}, orphans: []string{"crm/stray#0"},
			conflicts: []ariadne.SourceConflict{{DocID: "wiki/a", Source: "wiki"}}},
		{name: "a legacy id is a conflict for a named source", source: "wiki", docs: []ariadne.Document{legacy}, full: false,
			conflicts: []ariadne.SourceConflict{{DocID: "old/x", Source: ariadne.DefaultSource}}},
		{name: "a new source adds without deleting", source: "mail", docs: []ariadne.Document{doc("mail/1", "m")}, full: true,
			changed: []string{"mail/1"}},
		{name: "an upsert deletes nothing", source: "wiki", docs: []ariadne.Document{wikiB}, full: false,
			changed: []string{"wiki/b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := PlanRun(tc.source, tc.docs, chunksOf(tc.docs...), states, stored, tc.full)
			deleted := slices.Sorted(maps.Keys(p.Deleted))
			if !slices.Equal(p.Changed, tc.changed) || !slices.Equal(p.Unchanged, tc.unchanged) || len(p.Lost) != 0 {
				t.Errorf("changed %v unchanged %v lost %v; want %v %v", p.Changed, p.Unchanged, p.Lost, tc.changed, tc.unchanged)
			}
			if !slices.Equal(deleted, tc.deleted) || !slices.Equal(p.Orphans, tc.orphans) {
				t.Errorf("deleted %v orphans %v; want %v %v", deleted, p.Orphans, tc.deleted, tc.orphans)
			}
			if !slices.Equal(p.Conflicts, tc.conflicts) {
				t.Errorf("conflicts %v; want %v", p.Conflicts, tc.conflicts)
			}
			for _, c := range tc.conflicts {
				if !p.Conflicted(c.DocID) || p.NeedsEmbedding(c.DocID) {
					t.Errorf("%s: conflicted %v, needs embedding %v", c.DocID, p.Conflicted(c.DocID), p.NeedsEmbedding(c.DocID))
				}
			}
		})
	}
}

// TestContentKey: the key changes with the embedder, the title, the heading path and the text,
// and with nothing else a chunk carries (id, document, ACL, position).
func TestContentKey(t *testing.T) {
	base := ariadne.Chunk{ID: "a#0000-1", DocID: "a", Title: "Vacation", Heading: []string{"Vacation", "Rules"}, Text: "28 days.", ACL: []string{"all"}}
	k := base.ContentKey("e5")
	tests := []struct {
		name string
		edit func(c *ariadne.Chunk) string
		same bool
	}{
		{"renamed document, other acl, position, source", func(c *ariadne.Chunk) string {
			c.ID, c.DocID, c.ACL, c.Position, c.Source = "b#0003-1", "b", []string{"hr"}, 3, "wiki"
			return c.ContentKey("e5")
		}, true},
		{"other embedder", func(c *ariadne.Chunk) string { return c.ContentKey("lexical-ngram-v1/768") }, false},
		{"other title", func(c *ariadne.Chunk) string { c.Title = "Leave"; return c.ContentKey("e5") }, false},
		{"other heading", func(c *ariadne.Chunk) string { c.Heading = []string{"Vacation"}; return c.ContentKey("e5") }, false},
		{"other text", func(c *ariadne.Chunk) string { c.Text = "30 days."; return c.ContentKey("e5") }, false},
		{"title and heading are not one string", func(c *ariadne.Chunk) string {
			c.Title, c.Heading = "Vacation > Rules", nil
			return c.ContentKey("e5")
		}, false},
	}
	for _, tc := range tests {
		c := base
		c.Heading = slices.Clone(base.Heading)
		if got := tc.edit(&c); (got == k) != tc.same {
			t.Errorf("%s: same key %v, want %v", tc.name, got == k, tc.same)
		}
	}
}

// TestDefiningFirst: pages that define an entity are written before the notes that only mention
// entities, the pages whose subject the run names most first (ties, and the notes, in their own
// order), so that a page's full entity refresh runs before the mentions pile up.
func TestDefiningFirst(t *testing.T) {
	doc := func(id, subject string, mentions ...string) *docWork {
		w := &docWork{doc: ariadne.Document{ID: id}, subject: subject}
		for i, m := range mentions {
			// two surfaces of one entity in one chunk count once
			w.facts.Mentions = append(w.facts.Mentions, ariadne.Mention{ChunkID: fmt.Sprintf("%s#%d", id, i), EntityKey: m, Surface: "a"},
				ariadne.Mention{ChunkID: fmt.Sprintf("%s#%d", id, i), EntityKey: m, Surface: "b"})
		}
		return w
	}
	inc := doc("incidents/inc-1", "incidents/inc-1", "people/bob", "teams/core")
	inc.facts.Relations = []ariadne.Relation{{Source: "incidents/inc-1", Type: "AFFECTS", Target: "teams/core", ChunkIDs: []string{"incidents/inc-1#0"}}}
	write := []*docWork{inc, doc("notes/a", "", "people/bob"), doc("people/ann", "people/ann"),
		doc("notes/b", "", "people/ann", "incidents/inc-1"), doc("teams/core", "teams/core"), doc("people/bob", "people/bob")}
	definingFirst(write)
	var got []string
	for _, w := range write {
		got = append(got, w.doc.ID)
	}
	// named: teams/core 2 (a mention and a relation), people/bob 2 (two documents), incidents/inc-1
	// 2 (a mention and the relation), people/ann 1; ties keep their order.
	want := []string{"incidents/inc-1", "teams/core", "people/bob", "people/ann", "notes/a", "notes/b"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// TestChunkAll: documents split by several workers get exactly the chunks one Split each gives,
// in the source, and only the given documents are split.
func TestChunkAll(t *testing.T) {
	c, err := chunking.NewDefault()
	if err != nil {
		t.Fatal(err)
	}
	var docs []ariadne.Document
	given := map[string]bool{}
	for i := range 9 {
		d := ariadne.Document{ID: fmt.Sprintf("notes/n%d", i), Title: "Note", Type: "note", Lang: "en", ACL: []string{"all"},
			Body: strings.Repeat(fmt.Sprintf("Sentence %d of a note about the Orbita project. ", i), 40*(i+1))}
		docs = append(docs, d)
		given[d.ID] = i != 4
	}
	got := (&Pipeline{chunker: c, workers: 3}).chunkAll(docs, given, "wiki")
	if _, ok := got["notes/n4"]; ok || len(got) != 8 {
		t.Fatalf("split %d documents (notes/n4 among them: %v), want the 8 given", len(got), ok)
	}
	for _, d := range docs[:4] {
		want := c.Split(d)
		for i := range want {
			want[i].Source = "wiki"
		}
		if len(want) < 1 || !slices.EqualFunc(got[d.ID], want, func(a, b ariadne.Chunk) bool { return a.ID == b.ID && a.Text == b.Text && a.Source == b.Source }) {
			t.Errorf("%s: %d chunks, want %d equal to a serial Split", d.ID, len(got[d.ID]), len(want))
		}
	}
}
