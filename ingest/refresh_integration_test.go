package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// TestIntegrationIncrementalRefresh: batch writes grow entity aliases, visibility and degree and
// relation ACLs by what each batch adds (graph.growEntitiesCypher) instead of recomputing them
// over every mention; the graph they leave must equal one recomputed from scratch
// (graph.Store.RefreshAll) — after a first sync of one document per batch, and after a second
// sync that changes a document's groups, deletes one and adds one.
func TestIntegrationIncrementalRefresh(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, testrig.KB)
	pipe := r.Replica(t, func(c *ingest.Config) { c.BatchDocs = 1 })
	syncAndCompare := func(step string) {
		t.Helper()
		docs, problems, err := corpus.Load(os.DirFS(r.dir))
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s: load: %v %v", step, err, problems)
		}
		if _, err := pipe.Sync(ctx, docs, ingest.Options{}); err != nil {
			t.Fatalf("%s: sync: %v", step, err)
		}
		incremental := digest(t, r.graph)
		if err := r.graph.RefreshAll(ctx); err != nil {
			t.Fatal(err)
		}
		full := digest(t, r.graph)
		if incremental.Entities != full.Entities {
			t.Errorf("%s: entities after batch writes differ from a full refresh", step)
		}
		if incremental.Relations != full.Relations {
			t.Errorf("%s: relations after batch writes differ from a full refresh", step)
		}
		if full.Counts.Entities < 20 || full.Counts.Relations < 40 {
			t.Fatalf("%s: nothing to compare: %+v", step, full.Counts)
		}
		t.Logf("%s: %+v", step, full.Counts)
	}
	syncAndCompare("first sync")

	// The retrospective mentions the backend team, an incident and a technology: its chunks'
	// groups change, so every entity and relation it supports changes visibility.
	retro := filepath.Join(r.dir, "meeting-notes", "2025-03-retro.md")
	raw, err := os.ReadFile(retro)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(raw), "lang: en\n", "lang: en\nacl: [management]\n", 1)
	if edited == string(raw) {
		t.Fatal("front matter not edited")
	}
	if err := os.WriteFile(retro, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(r.dir, "runbooks", "queue-stall.md")); err != nil {
		t.Fatal(err)
	}
	note := "---\nid: notes/standup\ntitle: Standup\ntype: note\nlang: en\nacl: [sales]\nupdated: 2025-04-02\n---\n\n" +
		"The backend team moved the Orbita booking project to doughmill after INC-7042.\n"
	if err := os.MkdirAll(filepath.Join(r.dir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "notes", "standup.md"), []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	syncAndCompare("second sync")
}

func digest(t *testing.T, g *graph.Store) graph.Digest {
	t.Helper()
	d, err := g.Digest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return d
}
