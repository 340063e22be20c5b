package vector

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestIntegrationUnitVectors: unit vectors are written by key, read back whole (absent keys
// absent), listed, deleted, and dropped with the chunk class.
func TestIntegrationUnitVectors(t *testing.T) {
	class := fmt.Sprintf("AriadneUnits%d", time.Now().UnixNano())
	s := openTestStore(t, class)
	ctx := context.Background()
	t.Cleanup(func() { _ = s.DropClass(context.Background()) })

	if got, err := s.UnitVectors(ctx, []string{"k1"}); err != nil || len(got) != 0 {
		t.Fatalf("before any write: %v, %v", got, err)
	}
	if keys, err := s.UnitVectorKeys(ctx); err != nil || len(keys) != 0 {
		t.Fatalf("keys before any write: %v, %v", keys, err)
	}
	in := map[string][]float32{"k1": {0.5, 0.25, 0, 1}, "k2": {0, 1, 0, 0}, "k3": {0.125, 0, 0.75, 0}}
	if err := s.PutUnitVectors(ctx, in); err != nil {
		t.Fatal(err)
	}
	in["k2"] = []float32{1, 0, 0, 0} // a second write overwrites
	if err := s.PutUnitVectors(ctx, map[string][]float32{"k2": in["k2"]}); err != nil {
		t.Fatal(err)
	}
	got, err := s.UnitVectors(ctx, []string{"k1", "k2", "missing"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !slices.Equal(got["k1"], in["k1"]) || !slices.Equal(got["k2"], in["k2"]) {
		t.Fatalf("UnitVectors = %v", got)
	}
	keys, err := s.UnitVectorKeys(ctx)
	slices.Sort(keys)
	if err != nil || !slices.Equal(keys, []string{"k1", "k2", "k3"}) {
		t.Fatalf("UnitVectorKeys = %v, %v", keys, err)
	}
	if n, err := s.DeleteUnitVectors(ctx, []string{"k3", "missing"}); err != nil || n != 1 {
		t.Fatalf("DeleteUnitVectors = %d, %v", n, err)
	}
	if keys, _ := s.UnitVectorKeys(ctx); len(keys) != 2 {
		t.Fatalf("after the delete: %v", keys)
	}
	if err := s.DropClass(ctx); err != nil {
		t.Fatal(err)
	}
	if keys, err := s.UnitVectorKeys(ctx); err != nil || len(keys) != 0 {
		t.Fatalf("after DropClass: %v, %v", keys, err)
	}
}
