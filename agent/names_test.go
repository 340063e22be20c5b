package agent

import (
	"context"
	"testing"
)

// TestWarmNames: warmed names are embedded once, in batches, and the walk's later lookup of the
// same names for callers holding the same groups embeds nothing; a name not warmed is embedded
// then. A repeated or empty name costs nothing. Callers holding other groups have a cache of
// their own: a name one embedded is embedded again for the other (a hit is faster than a miss).
func TestWarmNames(t *testing.T) {
	ctx := context.Background()
	e := &countingEmbedder{}
	r := NewRetriever(fakeSearch{}, emptyGraph{}, e, nil, RetrievalConfig{}, nil)
	public := []string{"all"}
	n, err := r.WarmNames(ctx, public, []string{"Анна Светлова", "Kazan", "Kazan", "", "Orbita Clinic"}, 2)
	if err != nil || n != 3 || e.passage != 3 {
		t.Fatalf("WarmNames = %d, %v with %d passages embedded; want 3 names, 3 passages", n, err, e.passage)
	}
	vecs, err := r.names.embed(ctx, e, public, map[string]string{"p/svet": "Анна Светлова", "loc/kzn": "Kazan", "c/new": "Zarya"})
	if err != nil {
		t.Fatal(err)
	}
	if e.passage != 4 || len(vecs) != 3 || vecs["loc/kzn"][0] != 5 || vecs["c/new"][0] != 5 {
		t.Errorf("after warming: %d passages embedded (want 4: only Zarya), vectors %v", e.passage, vecs)
	}
	if _, err := r.names.embed(ctx, e, []string{"management", "all"}, map[string]string{"x": "Ghostwire", "loc/kzn": "Kazan"}); err != nil || e.passage != 6 {
		t.Fatalf("management's walk: %d passages embedded in all, %v; want 6 (Ghostwire and Kazan for its groups)", e.passage, err)
	}
	if _, err := r.names.embed(ctx, e, []string{"all", "management", "all"}, map[string]string{"x": "Ghostwire"}); err != nil || e.passage != 6 {
		t.Fatalf("the same groups in another order: %d passages embedded in all, %v; want a hit", e.passage, err)
	}
	if _, err := r.names.embed(ctx, e, public, map[string]string{"y": "Ghostwire"}); err != nil || e.passage != 7 {
		t.Errorf("a public walk reaching the same name: %d passages embedded in all, %v; want 7 (no hit on management's)", e.passage, err)
	}
}
