package ingest_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
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

// TestIntegrationDeleteRestoresRecognizedMentions (security audit, stop 61): a public note names a
// company; a management page of the same source then describes it, and a public note of another
// source names it too. Deleting the page extracts both sources again, and each note must mention
// what the same notes indexed from scratch mention — the company recognition finds in them. After
// a delete the note had lost it: re-extracted with the deleted page's entity (undocumented by then)
// in the registry beside the recognized one of the same name, the name was ambiguous and
// recognition's span yielded to it, so an anonymous caller saw the company vanish from a public
// note when a restricted page was deleted; after a sync without the page, the note kept a public
// mention of the page's entity, keyed by the page's id.
func TestIntegrationDeleteRestoresRecognizedMentions(t *testing.T) {
	ctx := context.Background()
	public := []string{ariadne.PublicGroup}
	visit := ariadne.Document{ID: "r6/visit", Title: "Harbour visit", Lang: "en", ACL: public,
		Body: "Ingrid Fossum from Kvitvik Maritime visited the Lavrovo office on Monday.\n\nKvitvik Maritime plans to expand its fleet next year.\n"}
	page := ariadne.Document{ID: "r6/kvitvik", Title: "Kvitvik Maritime — shipping client", Type: "client", Lang: "en",
		ACL: []string{"management"}, Body: "Kvitvik Maritime is a client. Contract value is 9 million.\n"}
	deal := ariadne.Document{ID: "r7/deal", Title: "Dock note", Lang: "en", ACL: public,
		Body: "Arnholt Freight signed a deal with Kvitvik Maritime and Vestfold Ropeworks in Bergen.\n"}
	upsert := func(r *testrig.Rig, d ariadne.Document, source string) {
		t.Helper()
		if _, err := r.Pipe.Upsert(ctx, []ariadne.Document{d}, ingest.Options{Source: source}); err != nil {
			t.Fatal(err)
		}
	}
	fresh := testrig.NewWithNER(t, "")
	upsert(fresh, visit, "r6")
	upsert(fresh, deal, "r7")
	want, err := testrig.StateDigest(ctx, fresh.Graph, fresh.Vector)
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"delete", "sync"} {
		t.Run(how, func(t *testing.T) {
			r := testrig.NewWithNER(t, "")
			upsert(r, visit, "r6")
			upsert(r, page, "r6")
			upsert(r, deal, "r7")
			var err error
			if how == "delete" {
				_, err = r.Pipe.Delete(ctx, []string{page.ID}, ingest.Options{})
			} else {
				_, err = r.Pipe.Sync(ctx, []ariadne.Document{visit}, ingest.Options{Source: "r6"})
			}
			if err != nil {
				t.Fatal(err)
			}
			deleteMatchesFresh(t, r, fresh, want, visit.ID, deal.ID)
		})
	}
}

// deleteMatchesFresh fails t unless the public mentions of each of ids, and the graph's entities,
// relations and mentions, are those of fresh (whose digest is want): the remaining documents
// indexed from scratch.
func deleteMatchesFresh(t *testing.T, r, fresh *testrig.Rig, want testrig.State, ids ...string) {
	t.Helper()
	ctx := context.Background()
	public := []string{ariadne.PublicGroup}
	for _, id := range ids {
		got, want := documentMentions(t, r, id, public), documentMentions(t, fresh, id, public)
		if !slices.Equal(got, want) {
			t.Errorf("after the delete, %s mentions %q; indexed without the page it mentions %q", id, got, want)
		}
	}
	got, err := testrig.StateDigest(ctx, r.Graph, r.Vector)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []struct{ name, got, want string }{
		{"entities", got.Graph.Entities, want.Graph.Entities},
		{"relations", got.Graph.Relations, want.Graph.Relations},
		{"mentions", got.Graph.Mentions, want.Graph.Mentions},
	} {
		if part.got != part.want {
			t.Errorf("after the delete the graph's %s differ from a fresh index of the remaining documents", part.name)
		}
	}
}
