package agent

import (
	"context"
	"testing"
)

// TestWarmNames: warmed names are embedded once, in batches, and the walk's later lookup of the
// same names embeds nothing; a name not warmed is embedded then. A repeated or empty name costs
// nothing.
func TestWarmNames(t *testing.T) {
	ctx := context.Background()
	e := &countingEmbedder{}
	r := NewRetriever(fakeSearch{}, emptyGraph{}, e, nil, RetrievalConfig{}, nil)
	n, err := r.WarmNames(ctx, []string{"Анна Светлова", "Kazan", "Kazan", "", "Orbita Clinic"}, 2)
	if err != nil || n != 3 || e.passage != 3 {
		t.Fatalf("WarmNames = %d, %v with %d passages embedded; want 3 names, 3 passages", n, err, e.passage)
	}
	vecs, err := r.names.embed(ctx, e, map[string]string{"p/svet": "Анна Светлова", "loc/kzn": "Kazan", "c/new": "Zarya"})
	if err != nil {
		t.Fatal(err)
	}
	if e.passage != 4 || len(vecs) != 3 || vecs["loc/kzn"][0] != 5 || vecs["c/new"][0] != 5 {
		t.Errorf("after warming: %d passages embedded (want 4: only Zarya), vectors %v", e.passage, vecs)
	}
}
