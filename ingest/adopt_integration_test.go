package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// A page written after a note that gave two of its codes adopts both in one write
// (resolution.Registry.Renames): a public note naming «CTR-2026-NB-913» gives the identifiers
// CTR-2026 and NB-913, then a public contract titled «Contract CTR-2026-NB-913», in another
// source, is their subject. The write failed with a uniqueness error (both entities were renamed
// to the page's key); now both merge into the page's entity: the note mentions it once with both
// surfaces, the co-occurrence between the two codes goes (it would relate the contract to itself),
// nothing is left under the codes' keys, and the graph is what a full refresh computes. Writing
// the same page again writes nothing and changes nothing. With the dictionary alone and with the
// real NER sidecar.
func TestIntegrationPageAdoptsTwoCodes(t *testing.T) {
	for _, withNER := range []bool{false, true} {
		t.Run(map[bool]string{false: "dictionary", true: "ner"}[withNER], func(t *testing.T) {
			var r *testrig.Rig
			if withNER {
				r = testrig.NewWithNER(t, "")
			} else {
				r = testrig.New(t, "")
			}
			testPageAdoptsTwoCodes(t, r)
		})
	}
}

func testPageAdoptsTwoCodes(t *testing.T, r *testrig.Rig) {
	ctx := context.Background()
	public := []string{ariadne.PublicGroup}
	codes := []string{"identifier:ktr 2026", "identifier:nb 913"}
	note := ariadne.Document{ID: "notes/ctr", Title: "Note", Lang: "en", ACL: public,
		Body: "Yesterday the team discussed CTR-2026-NB-913 with Nordlicht Bank.\n"}
	title := "Contract CTR-2026-NB-913"
	contract := ariadne.Document{ID: "contracts/ctr-2026-nb-913", Type: "contract", Title: title, Lang: "en", ACL: public,
		Body: "# " + title + "\n\nThe penalty is 2% of the monthly fee.\n"}
	upsert := func(d ariadne.Document, source string) ingest.Summary {
		t.Helper()
		sum, err := r.Pipe.Upsert(ctx, []ariadne.Document{d}, ingest.Options{Source: source})
		if err != nil {
			t.Fatalf("write %s: %v", d.ID, err)
		}
		return sum
	}
	mentioned := func() []string { return documentMentions(t, r, note.ID, public) }
	upsert(note, "notes")
	before := mentioned()
	for _, k := range codes {
		if !slices.Contains(before, k) {
			t.Fatalf("before the contract, the note mentions %q, want both codes %q among them", before, codes)
		}
	}
	upsert(contract, "contracts")

	// Anonymous readers: the note mentions the contract where it mentioned the two codes.
	want := []string{contract.ID}
	for _, k := range before {
		if !slices.Contains(codes, k) {
			want = append(want, k)
		}
	}
	slices.Sort(want)
	if got := mentioned(); !slices.Equal(got, want) {
		t.Errorf("after the contract, the note mentions %q, want %q", got, want)
	}
	for _, q := range []string{"CTR-2026", "NB-913"} {
		if got := entityCandidates(t, r, q, public); !slices.Equal(got, []string{contract.ID + " (contract)"}) {
			t.Errorf("anonymous entities for %s: %q, want only the contract", q, got)
		}
	}
	e, err := r.Graph.Entity(ctx, contract.ID, public)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"CTR-2026", "NB-913"} {
		if !slices.Contains(e.Aliases, a) {
			t.Errorf("the contract's aliases %q lack %s, the note's surface of an adopted code", e.Aliases, a)
		}
	}
	for _, k := range codes {
		if _, err := r.Graph.Entity(ctx, k, public); !errors.Is(err, ariadne.ErrNotFound) {
			t.Errorf("entity %s after its adoption: %v, want not found", k, err)
		}
	}

	// The graph: one mention with both surfaces, no relation of the contract to itself, no
	// duplicate or orphan, and what a full recompute gives.
	rows, err := r.Graph.QueryReadOnly(ctx, `MATCH (c:Chunk {doc_id: $doc})-[m:MENTIONS]->(e:Entity {key: $key})
RETURN c.id AS chunk, m.surfaces AS surfaces`, map[string]any{"doc": note.ID, "key": contract.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Errorf("the note's mentions of the contract: %v, want one", rows)
	} else {
		var surfaces []string
		for _, s := range rows[0]["surfaces"].([]any) {
			surfaces = append(surfaces, s.(string))
		}
		slices.Sort(surfaces)
		if !slices.Equal(surfaces, []string{"CTR-2026", "NB-913"}) {
			t.Errorf("the note's mention of the contract has surfaces %q, want CTR-2026 and NB-913", surfaces)
		}
	}
	rows, err = r.Graph.QueryReadOnly(ctx, `MATCH (e:Entity)-[x]->(e) RETURN e.key + ' ' + type(x) AS loop`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 0 {
		t.Errorf("relations of an entity to itself: %v", rows)
	}
	written, err := testrig.StateDigest(ctx, r.Graph, r.Vector)
	if err != nil {
		t.Fatal(err)
	}
	if p := written.Problems(); len(p) > 0 {
		t.Errorf("after the adoption: %q", p)
	}
	if err := r.Graph.RefreshAll(ctx); err != nil {
		t.Fatal(err)
	}
	full, err := testrig.StateDigest(ctx, r.Graph, r.Vector)
	if err != nil {
		t.Fatal(err)
	}
	if full.Graph.Entities != written.Graph.Entities || full.Graph.Relations != written.Graph.Relations {
		t.Errorf("a full refresh changed the entities or relations the write left: %+v → %+v", written.Graph.Counts, full.Graph.Counts)
	}

	// The same write again: nothing written, nothing changed.
	if sum := upsert(contract, "contracts"); sum.Writes() != 0 {
		t.Errorf("writing the contract again wrote %d objects: %+v", sum.Writes(), sum.Graph)
	}
	again, err := testrig.StateDigest(ctx, r.Graph, r.Vector)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(again.Graph) != fmt.Sprint(full.Graph) {
		t.Errorf("writing the contract again changed the graph:\n%+v\n%+v", full.Graph, again.Graph)
	}
	// The note's stored facts still name the codes' keys, so its next write relinks it to the
	// contract, as after a single adoption; the one after that writes nothing.
	upsert(note, "notes")
	if sum := upsert(note, "notes"); sum.Writes() != 0 {
		t.Errorf("writing the note a third time wrote %d objects: %+v", sum.Writes(), sum.Graph)
	}
	relinked, err := testrig.StateDigest(ctx, r.Graph, r.Vector)
	if err != nil {
		t.Fatal(err)
	}
	if p := relinked.Problems(); len(p) > 0 {
		t.Errorf("after writing the note again: %q", p)
	}
	if got := mentioned(); !slices.Equal(got, want) {
		t.Errorf("after writing the note again, it mentions %q, want %q", got, want)
	}
}

// A page that is written again with a new alias adopts the code a note gave before (its entity
// already has the page's key in the graph): the code merges into it at once. It stayed an
// entity of its own, with the note's mention, until the note was written again.
func TestIntegrationEditedPageAdoptsCode(t *testing.T) {
	r := testrig.New(t, "")
	ctx := context.Background()
	public := []string{ariadne.PublicGroup}
	page := ariadne.Document{ID: "contracts/lynx", Type: "contract", Title: "Contract Lynx", Lang: "en", ACL: public,
		Body: "# Contract Lynx\n\nThe penalty is 2% of the monthly fee.\n"}
	note := ariadne.Document{ID: "notes/lynx", Title: "Note", Lang: "en", ACL: public,
		Body: "Yesterday the team discussed NB-913 with Nordlicht Bank.\n"}
	edited := page
	edited.Aliases = []string{"NB-913"}
	for _, w := range []struct {
		doc    ariadne.Document
		source string
	}{{page, "contracts"}, {note, "notes"}, {edited, "contracts"}} {
		if _, err := r.Pipe.Upsert(ctx, []ariadne.Document{w.doc}, ingest.Options{Source: w.source}); err != nil {
			t.Fatalf("write %s: %v", w.doc.ID, err)
		}
	}
	rows, err := r.Graph.QueryReadOnly(ctx, `MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) RETURN c.doc_id + ' → ' + e.key AS m`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0]["m"] != "notes/lynx → contracts/lynx" {
		t.Errorf("mentions %v, want only the note's of the contract", rows)
	}
	if _, err := r.Graph.Entity(ctx, "identifier:nb 913", public); !errors.Is(err, ariadne.ErrNotFound) {
		t.Errorf("the adopted code: %v, want not found", err)
	}
	st, err := testrig.StateDigest(ctx, r.Graph, r.Vector)
	if err != nil {
		t.Fatal(err)
	}
	if p := st.Problems(); len(p) > 0 {
		t.Errorf("%q", p)
	}
}
