package graph

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestIntegrationCandidatesRankByVisibleNames: which entities a caller's name search returns, and
// in what order, depends only on the names the caller may see. Before stop 60 a management memo
// spelling a public company three more ways raised its fulltext score: for an anonymous caller it
// moved first and pushed another company out of a list of 10 (security audit, stop 60).
func TestIntegrationCandidatesRankByVisibleNames(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "cand")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	for i, n := range []string{"Labs", "Systems", "Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliet", "Kilo"} {
		if _, err := s.run(ctx, `
CREATE (e:Entity {key: $key, name: $name, type: 'Organization', acl: ['all'], name_acl: ['all']})
CREATE (:Chunk {id: $chunk, acl: ['all']})-[:MENTIONS {surfaces: [$name]}]->(e)`,
			map[string]any{"key": fmt.Sprintf("org:%02d", i), "name": "Corvid " + n, "chunk": fmt.Sprintf("orgs/%d#0", i)}); err != nil {
			t.Fatal(err)
		}
	}
	list := func(step string) []string {
		t.Helper()
		if err := s.RefreshAll(ctx); err != nil {
			t.Fatal(err)
		}
		cands, err := s.EntityCandidates(ctx, "Corvid", []string{"all"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range cands {
			names = append(names, c.Name)
		}
		return names
	}
	before := list("public pages only")
	if len(before) != 10 || before[0] != "Corvid Labs" || before[9] != "Corvid Hotel" {
		t.Fatalf("public pages only: %q, want 10 in key order, Corvid Labs to Corvid Hotel", before)
	}
	if _, err := s.run(ctx, `
MATCH (e:Entity {key: 'org:01'})
CREATE (:Chunk {id: 'mgmt/memo#0', acl: ['management']})-[:MENTIONS {surfaces: ['CORVID SYSTEMS', 'Corvid Systems Inc', 'Корвид Системс']}]->(e)`, nil); err != nil {
		t.Fatal(err)
	}
	if after := list("with the memo"); !slices.Equal(after, before) {
		t.Errorf("a management memo changed the anonymous list:\n before %q\n after  %q", before, after)
	}

	// Views are read in order of a bound that counts restricted spellings too (nameBound): a memo
	// spelling Corvid Alpha as «Corvid Kilo» moves Alpha ahead of Kilo in that order, and the list
	// of one must still be Kilo, the only entity whose visible names hold both words.
	best := func(step string) string {
		t.Helper()
		cands, err := s.EntityCandidates(ctx, "Corvid Kilo", []string{"all"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(cands) != 1 {
			t.Fatalf("%s: %d candidates, want 1", step, len(cands))
		}
		return cands[0].Name
	}
	if got := best("before the second memo"); got != "Corvid Kilo" {
		t.Errorf("before the second memo: best match %q, want Corvid Kilo", got)
	}
	if _, err := s.run(ctx, `
MATCH (e:Entity {key: 'org:02'})
CREATE (:Chunk {id: 'mgmt/memo#1', acl: ['management']})-[:MENTIONS {surfaces: ['Corvid Kilo', 'CORVID KILO']}]->(e)`, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.RefreshAll(ctx); err != nil {
		t.Fatal(err)
	}
	if got := best("with the second memo"); got != "Corvid Kilo" {
		t.Errorf("with the second memo: best match %q, want Corvid Kilo", got)
	}
}
