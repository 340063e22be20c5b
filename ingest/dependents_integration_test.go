package ingest_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// writeDocs writes Markdown files (path → text) under dir.
func writeDocs(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// entityViews returns each entity of the rig's graph by key as the test compares it: type, name,
// describing document and who may see the name.
func entityViews(t testing.TB, r *testrig.Rig) map[string]string {
	t.Helper()
	ents, err := r.Graph.LoadEntities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		out[e.Key] = fmt.Sprintf("%s %q doc=%q acl=%v", e.Type, e.Name, e.DocID, e.NameACL)
	}
	return out
}

// TestIntegrationDeleteRelinksOtherSources: a restricted contract page of one source defines an
// entity that a public note of another source mentions by the contract's name. Deleting the
// contract — by id, or by a sync of its source without the file — extracts the note's source
// again: the graph is what indexing the remaining documents from scratch gives, and no entity
// keeps the deleted page's id, name or type (security audit: it had stayed, readable by
// everyone through the note's mention).
func TestIntegrationDeleteRelinksOtherSources(t *testing.T) {
	contract := "---\nid: finance/kw-g-77\ntype: contract\nacl: [finance]\ntitle: Contract KW-G-77 with Velmora Freight\n---\n\n# Contract KW-G-77\n\nThe contract covers the deliveries of 2026 for Velmora Freight.\n"
	other := "---\nid: finance/budget\ntype: policy\nacl: [finance]\ntitle: Budget rules\n---\n\n# Budget rules\n\nEvery purchase above the limit needs two signatures.\n"
	note := "---\nid: notes/hallway\ntitle: Hallway notes\n---\n\n# Hallway notes\n\nBram Dekkers asked in the hallway about Contract KW-G-77.\n"
	for _, how := range []string{"delete", "sync"} {
		t.Run(how, func(t *testing.T) {
			ctx := context.Background()
			r := testrig.New(t, "")
			fin, pub, scratch := t.TempDir(), t.TempDir(), t.TempDir()
			writeDocs(t, fin, map[string]string{"kw-g-77.md": contract, "budget.md": other})
			writeDocs(t, pub, map[string]string{"hallway.md": note})
			syncSource(t, r.Pipe, fin, "fin")
			syncSource(t, r.Pipe, pub, "pub")
			before := entityViews(t, r)
			if _, ok := before["finance/kw-g-77"]; !ok {
				t.Fatalf("the contract page defines no entity keyed by its id: %v", before)
			}

			switch how {
			case "delete":
				sum, err := r.Pipe.Delete(ctx, []string{"finance/kw-g-77"}, ingest.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if sum.Restored.Docs == 0 {
					t.Errorf("the note's source was not extracted again: %+v", sum.Restored)
				}
			case "sync":
				if err := os.Remove(filepath.Join(fin, "kw-g-77.md")); err != nil {
					t.Fatal(err)
				}
				syncSource(t, r.Pipe, fin, "fin")
			}
			after := entityViews(t, r)
			if v, ok := after["finance/kw-g-77"]; ok {
				t.Errorf("the deleted contract's entity outlives its page: %s", v)
			}

			// The same remaining documents indexed from scratch give the same entities.
			fresh := testrig.New(t, "")
			writeDocs(t, scratch, map[string]string{"budget.md": other})
			syncSource(t, fresh.Pipe, scratch, "fin")
			syncSource(t, fresh.Pipe, pub, "pub")
			want := entityViews(t, fresh)
			if !maps.Equal(after, want) {
				t.Errorf("after the %s:\n got %v\nwant %v (a fresh index of the remaining documents)", how, after, want)
			}
		})
	}
}
