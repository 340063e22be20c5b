package ingest_test

import (
	"context"
	"errors"
	"fmt"
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

	// The reference: one writer, one document at a time, in id order.
	ref := testrig.New(t, "")
	for _, d := range docs {
		if _, err := ref.Pipe.Upsert(ctx, []ariadne.Document{d}, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	want := state(t, ref)

	t.Run("replicas post the KB at once", func(t *testing.T) {
		// The KB names its people, clients and projects in both scripts and several spellings
		// (Артём Березин / Artem Berezin / А. Березин, «Ольха-Строй» / Olkha-Stroy, …), in
		// different documents; here each replica posts every fourth of them, one per request,
		// all four at once, so entity MERGEs of the same key race across transactions.
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
		got := state(t, rig)
		if p := got.Problems(); len(p) > 0 {
			t.Errorf("problems: %v", p)
		}
		// Known, not fixed (docs/reliability.md, "Concurrent writers"): with the writer lease
		// the replicas are serialized, yet a current document and its superseded version that
		// describe one subject can still end as two entities spelled alike when the superseded
		// one is written first — an order dependence of single-document Upserts, not a race.
		// Every other spelling must resolve to one entity.
		for _, dup := range sameThing(t, rig) {
			if !strings.Contains(dup, `"policies/leave" and "policies/leave-2022"`) && !strings.Contains(dup, `"policies/leave-2022" and "policies/leave"`) {
				t.Errorf("one thing stored as several entities: %s", dup)
			} else {
				t.Logf("KNOWN ISSUE (order dependence, not a race): %s", dup)
			}
		}
		// The writers are serialized by the lease (graph/lock.go) but in another order than the
		// reference, and resolution depends on what is already stored: chunks and vectors must
		// match exactly, entity counts are reported.
		if got.Graph.Chunks != want.Graph.Chunks || got.Vector.Props != want.Vector.Props || got.Graph.Counts.Documents != want.Graph.Counts.Documents {
			t.Errorf("documents, chunks or vectors differ from the sequential writer's: %v", got.Diff(want))
		}
		t.Logf("RESULT concurrent-post replicas=4 docs=%d counts=%+v sequential=%+v same_things_twice=%d problems=%d entity_digest_equal=%v relation_digest_equal=%v",
			len(docs), got.Graph.Counts, want.Graph.Counts, len(sameThing(t, rig)), len(got.Problems()),
			got.Graph.Entities == want.Graph.Entities, got.Graph.Relations == want.Graph.Relations)
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
	counter, err := chunking.NewCL100K()
	if err != nil {
		t.Fatal(err)
	}
	ch, err := chunking.New(chunking.DefaultOptions(), counter)
	if err != nil {
		t.Fatal(err)
	}
	return ch.Split(doc)
}
