package faults

import (
	"context"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// TestFaultsIndexRepair kills Weaviate with SIGKILL right after a sync wrote the repository KB,
// restarts it, and repairs the vector index: Weaviate 1.29 keeps the objects and their vectors
// but can lose HNSW entries it had not yet flushed (the entries lost are counted and logged).
// After vector.Store.RepairIndex every chunk is found by its own vector again and both stores
// equal a clean run's (same digest; content, vectors by cosine).
func TestFaultsIndexRepair(t *testing.T) {
	srv := Need(t, "neo4j", "weaviate")
	ctx := context.Background()
	clean := testrig.New(t, testrig.KB)
	want, err := testrig.StateDigest(ctx, clean.Graph, clean.Vector)
	if err != nil {
		t.Fatal(err)
	}

	rig := testrig.New(t, testrig.KB) // synced: its last HNSW inserts are milliseconds old
	if err := srv.Kill("weaviate"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(ctx, "weaviate"); err != nil {
		t.Fatal(err)
	}
	before, err := rig.Vector.SelfCheck(ctx, 1000)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rep, err := rig.Vector.RepairIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if !rep.OK() || rep.Scanned != len(want.Vector.Objects) {
		t.Errorf("repair: scanned %d of %d objects, repaired %d of %d lost", rep.Scanned, len(want.Vector.Objects), rep.Repaired, len(rep.Lost))
	}
	if len(rep.Lost) != len(before.Lost) {
		t.Errorf("the self-check over every object found %d lost, the repair %d", len(before.Lost), len(rep.Lost))
	}
	after, err := rig.Vector.SelfCheck(ctx, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if !after.OK() || after.Sampled != len(want.Vector.Objects) {
		t.Errorf("after the repair: %d of %d objects not found by their own vector", len(after.Lost), after.Sampled)
	}
	got, err := testrig.StateDigest(ctx, rig.Graph, rig.Vector)
	if err != nil {
		t.Fatal(err)
	}
	if p := got.Problems(); len(p) > 0 {
		t.Errorf("after the repair: %v", p)
	}
	if diff := got.Diff(want); len(diff) > 0 {
		t.Errorf("after the repair the stores differ from the clean run: %v", diff)
	}
	t.Logf("RESULT index-repair objects=%d lost_after_kill=%d repaired=%d took=%s", rep.Scanned, len(rep.Lost), rep.Repaired, took.Round(time.Millisecond))
}
