package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

func loadKB(t *testing.T) []ariadne.Document {
	t.Helper()
	docs, problems, err := corpus.Load(os.DirFS(testrig.KB))
	if err != nil || len(problems) > 0 {
		t.Fatalf("load: %v %v", err, problems)
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].ID < docs[j].ID })
	return docs
}

func state(t *testing.T, r *testrig.Rig) testrig.State {
	t.Helper()
	s, err := testrig.StateDigest(context.Background(), r.Graph, r.Vector)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sameThing finds entities that are one real-world thing stored twice: two entity nodes of one
// type sharing a spelling (name or alias) once folded to its Latin key (textnorm.Key), the form
// entity resolution compares.
func sameThing(t *testing.T, r *testrig.Rig) []string {
	t.Helper()
	rows, err := r.Graph.QueryReadOnly(context.Background(),
		`MATCH (e:Entity) RETURN e.key AS key, e.type AS type, [e.name] + coalesce(e.defined_aliases, []) AS names`, nil)
	if err != nil {
		t.Fatal(err)
	}
	owner := map[string]string{}
	var out []string
	for _, row := range rows {
		key, typ := fmt.Sprint(row["key"]), fmt.Sprint(row["type"])
		for _, n := range row["names"].([]any) {
			k := typ + "/" + textnorm.Key(fmt.Sprint(n))
			if o, ok := owner[k]; ok && o != key {
				out = append(out, fmt.Sprintf("%q and %q both spell %q", o, key, n))
			}
			owner[k] = key
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// TestIntegrationConcurrentWriters: writers that share nothing but the stores — four API
// replicas posting documents, two extract runs — racing on the same Neo4j namespace and
// Weaviate class.
func TestIntegrationConcurrentWriters(t *testing.T) {
	docs := loadKB(t)
	ctx := context.Background()

	// The reference: a sync of the KB folder (one Sync of all 24 documents).
	ref := testrig.New(t, "")
	if _, err := ref.Pipe.Sync(ctx, docs, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	want := state(t, ref)
	if p := want.Problems(); len(p) > 0 {
		t.Fatalf("sync: problems: %v", p)
	}
	for _, dup := range sameThing(t, ref) {
		t.Errorf("sync: one thing stored as several entities: %s", dup)
	}

	// equals fails t unless rig's stores hold exactly what the sync wrote (want): documents (with
	// their graph hashes), chunks, entities (keys, names, aliases, acl, name_acl, degree, labels),
	// relations with their provenance and acl, mentions with their surfaces, links, Weaviate
	// properties and vectors; and it logs the counts.
	equals := func(t *testing.T, rig *testrig.Rig, want testrig.State, what string) {
		t.Helper()
		got := state(t, rig)
		if p := got.Problems(); len(p) > 0 {
			t.Errorf("%s: problems: %v", what, p)
		}
		for _, dup := range sameThing(t, rig) {
			t.Errorf("%s: one thing stored as several entities: %s", what, dup)
		}
		diff := got.Diff(want)
		if len(diff) > 0 {
			t.Errorf("%s: the stores differ from the sync's: %v", what, diff)
		}
		t.Logf("RESULT %s: counts=%+v sync=%+v equal_to_sync=%v same_things_twice=%d problems=%d",
			what, got.Graph.Counts, want.Graph.Counts, len(diff) == 0, len(sameThing(t, rig)), len(got.Problems()))
	}
	equalsSync := func(t *testing.T, rig *testrig.Rig, what string) { t.Helper(); equals(t, rig, want, what) }
	syncOf := func(t *testing.T, docs []ariadne.Document) testrig.State {
		t.Helper()
		r := testrig.New(t, "")
		if _, err := r.Pipe.Sync(ctx, docs, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		return state(t, r)
	}

	t.Run("one document at a time in any order", func(t *testing.T) {
		// One writer posting the KB one document per Upsert: in id order, in reverse, and
		// shuffled. A document that names an entity defined by a page posted later must end
		// linked to it all the same.
		reverse := slices.Clone(docs)
		slices.Reverse(reverse)
		shuffled := slices.Clone(docs)
		rand.New(rand.NewPCG(2026, 12)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for _, order := range []struct {
			name string
			docs []ariadne.Document
		}{{"id order", docs}, {"reverse id order", reverse}, {"shuffled", shuffled}} {
			rig := testrig.New(t, "")
			for _, d := range order.docs {
				if _, err := rig.Pipe.Upsert(ctx, []ariadne.Document{d}, ingest.Options{}); err != nil {
					t.Fatalf("%s, %s: %v", order.name, d.ID, err)
				}
			}
			equalsSync(t, rig, "posts in "+order.name)
		}
		// With entity recognition (the NER sidecar), over the KB and sixteen notes that name a
		// company and a city in other cases, scripts and legal forms (ner_integration_test.go):
		// recognition names an entity by its most frequent normal form or surface across the corpus, so a post
		// can change the name of an entity other notes mention. It too must end where a sync with
		// recognition does.
		withNotes := slices.Concat(docs, noteDocs("notes/ru", "ru", notesRU, nil), noteDocs("notes/en", "en", notesEN, nil))
		nerRef := testrig.NewWithNER(t, "")
		if _, err := nerRef.Pipe.Sync(ctx, withNotes, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		rand.New(rand.NewPCG(2026, 13)).Shuffle(len(withNotes), func(i, j int) { withNotes[i], withNotes[j] = withNotes[j], withNotes[i] })
		rig := testrig.NewWithNER(t, "")
		for _, d := range withNotes {
			if _, err := rig.Pipe.Upsert(ctx, []ariadne.Document{d}, ingest.Options{}); err != nil {
				t.Fatalf("with recognition, %s: %v", d.ID, err)
			}
		}
		equals(t, rig, state(t, nerRef), "KB and notes posted shuffled, with entity recognition")
	})

	t.Run("replicas post the KB at once", func(t *testing.T) {
		// The KB names its people, clients and projects in both scripts and several spellings
		// (Артём Березин / Artem Berezin / А. Березин, «Ольха-Строй» / Olkha-Stroy, …), in
		// different documents; here each replica posts every fourth of them, one per request,
		// all four at once, so entity MERGEs of the same key race across transactions. The
		// writer lease (graph/lock.go) serializes them in an order nobody chose.
		rig := testrig.New(t, "")
		replicas := []*ingest.Pipeline{rig.Pipe, rig.Replica(t), rig.Replica(t), rig.Replica(t)}
		var wg sync.WaitGroup
		errs := make([]error, len(replicas))
		for i, p := range replicas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := i; j < len(docs); j += len(replicas) {
					if _, err := p.Upsert(ctx, []ariadne.Document{docs[j]}, ingest.Options{}); err != nil {
						errs[i] = errors.Join(errs[i], fmt.Errorf("replica %d, %s: %w", i, docs[j].ID, err))
					}
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		equalsSync(t, rig, "4 replicas posting at once")
	})

	t.Run("a new version and a delete end where a sync does", func(t *testing.T) {
		// After the KB is posted one document at a time: Memcached's page gets a sentence naming
		// a known person; the Backend team's page is posted again, renamed «Server team», so the
		// pages that call it "Backend team" no longer name it; then doughmill's page is deleted,
		// so the pages that name doughmill no longer link its entity. The stores must then equal
		// a sync of the folder as it now is, and again after the delete.
		rig := testrig.New(t, "")
		for _, d := range docs {
			if _, err := rig.Pipe.Upsert(ctx, []ariadne.Document{d}, ingest.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		v2 := slices.Clone(docs)
		var gone string
		for i, d := range v2 {
			switch d.ID {
			case "technologies/memcached":
				// A revision that names only known entities: the registry is the one the stored
				// documents were extracted with, so none of them is extracted again.
				d.Body += "\n\nVera Kolesnik reviewed this page in 2025.\n"
				d.Version++
				v2[i] = d
				sum, err := rig.Pipe.Upsert(ctx, []ariadne.Document{d}, ingest.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if sum.Restored.Extracted != 0 || sum.Restored.Docs != 0 || sum.DocsWritten != 1 {
					t.Errorf("a revision naming known entities: %+v, want 1 document written and no stored one extracted", sum)
				}
				t.Logf("RESULT revision: restored=%+v", sum.Restored)
			case "teams/backend":
				d.Title = "Server team"
				d.Body = strings.ReplaceAll(d.Body, "Backend team", "Server team")
				d.Version++
				v2[i] = d
				sum, err := rig.Pipe.Upsert(ctx, []ariadne.Document{d}, ingest.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if sum.Restored.Docs == 0 || sum.Restored.Extracted != len(docs)-1 {
					t.Errorf("renaming the team: %+v, want every stored document extracted again and some rewritten", sum.Restored)
				}
				t.Logf("RESULT rename: restored=%+v", sum.Restored)
			case "technologies/doughmill":
				gone = d.ID
			}
		}
		equals(t, rig, syncOf(t, v2), "the team renamed by a post")
		sum, err := rig.Pipe.Delete(ctx, []string{gone}, ingest.Options{})
		if err != nil || sum.DocsDeleted != 1 {
			t.Fatalf("delete: %+v %v", sum, err)
		}
		t.Logf("RESULT delete: restored=%+v", sum.Restored)
		equals(t, rig, syncOf(t, slices.DeleteFunc(v2, func(d ariadne.Document) bool { return d.ID == gone })), "doughmill deleted")
	})

	t.Run("two syncs of overlapping folders", func(t *testing.T) {
		// Two extract runs (Sync: the stores become exactly the folder) over folders that share
		// half their documents. Whichever finishes last wins: the final state must be one
		// folder's clean state, never a mix.
		a, b := docs[:16], docs[8:]
		cleanA, cleanB := testrig.New(t, ""), testrig.New(t, "")
		if _, err := cleanA.Pipe.Sync(ctx, a, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		if _, err := cleanB.Pipe.Sync(ctx, b, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		wantA, wantB := state(t, cleanA), state(t, cleanB)
		for round := range 3 {
			rig := testrig.New(t, "")
			other := rig.Replica(t)
			var wg sync.WaitGroup
			var errA, errB error
			wg.Add(2)
			go func() { defer wg.Done(); _, errA = rig.Pipe.Sync(ctx, a, ingest.Options{}) }()
			go func() { defer wg.Done(); _, errB = other.Sync(ctx, b, ingest.Options{}) }()
			wg.Wait()
			if errA != nil || errB != nil {
				t.Fatalf("round %d: %v %v", round, errA, errB)
			}
			got := state(t, rig)
			dA, dB := got.Diff(wantA), got.Diff(wantB)
			if len(dA) > 0 && len(dB) > 0 {
				t.Errorf("round %d: a mix of both folders: vs A %v; vs B %v", round, dA, dB)
			}
			if p := got.Problems(); len(p) > 0 {
				t.Errorf("round %d: %v", round, p)
			}
			t.Logf("RESULT overlapping-syncs round=%d equals_A=%v equals_B=%v problems=%d", round, len(dA) == 0, len(dB) == 0, len(got.Problems()))
		}
	})

	t.Run("update and delete of one document at once", func(t *testing.T) {
		rig := testrig.New(t, "")
		other := rig.Replica(t)
		if _, err := rig.Pipe.Upsert(ctx, docs, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		target := docs[len(docs)/2]
		v2 := target
		v2.Body = strings.Replace(target.Body, "\n", "\n\nЭтот абзац добавлен во второй версии документа; он меняет его чанки.\n\n", 1) + "\n\nИ последний абзац второй версии.\n"
		v2.Version = target.Version + 1
		for round := range 6 {
			if _, err := rig.Pipe.Upsert(ctx, []ariadne.Document{target}, ingest.Options{}); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var errU, errD error
			wg.Add(2)
			go func() { defer wg.Done(); _, errU = rig.Pipe.Upsert(ctx, []ariadne.Document{v2}, ingest.Options{}) }()
			go func() { defer wg.Done(); _, errD = other.Delete(ctx, []string{target.ID}, ingest.Options{}) }()
			wg.Wait()
			if errU != nil || errD != nil {
				t.Fatalf("round %d: %v %v", round, errU, errD)
			}
			got := state(t, rig)
			var graphIDs, vecIDs []string
			for _, id := range got.Graph.ChunkIDs {
				if ariadne.DocIDOfChunk(id) == target.ID {
					graphIDs = append(graphIDs, id)
				}
			}
			for id := range got.Vector.Objects {
				if ariadne.DocIDOfChunk(id) == target.ID {
					vecIDs = append(vecIDs, id)
				}
			}
			sort.Strings(vecIDs)
			var v2IDs []string
			for _, c := range rigChunks(t, rig, v2) {
				v2IDs = append(v2IDs, c.ID)
			}
			sort.Strings(v2IDs)
			deleted := len(graphIDs) == 0 && len(vecIDs) == 0
			updated := slices.Equal(graphIDs, v2IDs) && slices.Equal(vecIDs, v2IDs)
			if !deleted && !updated {
				t.Errorf("round %d: neither deleted nor updated: graph chunks %v, vectors %v, v2 chunks %v", round, graphIDs, vecIDs, v2IDs)
			}
			if p := got.Problems(); len(p) > 0 {
				t.Errorf("round %d: %v", round, p)
			}
			t.Logf("RESULT update-vs-delete round=%d final=%s problems=%d", round, map[bool]string{true: "deleted", false: map[bool]string{true: "updated", false: "MIX"}[updated]}[deleted], len(got.Problems()))
		}
	})
}

// rigChunks are the chunks the rig's pipelines cut doc into (the default chunker).
func rigChunks(t *testing.T, _ *testrig.Rig, doc ariadne.Document) []ariadne.Chunk {
	t.Helper()
	ch, err := chunking.NewDefault()
	if err != nil {
		t.Fatal(err)
	}
	return ch.Split(doc)
}
