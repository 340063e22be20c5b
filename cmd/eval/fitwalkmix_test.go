package main

import (
	"math"
	"testing"
)

// TestMixGrid: each set weighs the same; a pair missing from one set is left out; ties on
// recall@5 go to recall@2, then to the smaller weights.
func TestMixGrid(t *testing.T) {
	musique := fitWalkReport{Kind: "musique", Rows: []fitWalkRow{
		{Name: "hybrid alone", Recall5: 0.60, Recall2: 0.50, N: 50},
		{Name: "walk alone", Recall5: 0.90, N: 50}, // not a grid pair: ignored
		{Name: "current weights 0.5–1.5", Low: 0.5, High: 1.5, Recall5: 0.64, Recall2: 0.52, N: 50},
		{Name: "walk weight 0.25–0.5", Low: 0.25, High: 0.5, Recall5: 0.62, Recall2: 0.51, N: 50},
		{Name: "walk weight 0.5–1", Low: 0.5, High: 1, Recall5: 0.62, Recall2: 0.51, N: 50},
		{Name: "walk weight 1–2", Low: 1, High: 2, Recall5: 0.66, Recall2: 0.50, N: 50},
	}}
	xquad := fitWalkReport{Kind: "xquad", Rows: []fitWalkRow{
		{Name: "hybrid alone", Recall5: 1.00, Recall2: 0.98, N: 600},
		{Name: "current weights 0.5–1.5", Low: 0.5, High: 1.5, Recall5: 0.92, Recall2: 0.90, N: 600},
		{Name: "walk weight 0.25–0.5", Low: 0.25, High: 0.5, Recall5: 1.00, Recall2: 0.98, N: 600},
		{Name: "walk weight 0.5–1", Low: 0.5, High: 1, Recall5: 1.00, Recall2: 0.98, N: 600},
	}}
	rows, hyb, err := mixGrid([]fitWalkReport{musique, xquad})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		low, high, r5 float64
		per           []float64
	}{
		{0.25, 0.5, 0.81, []float64{0.62, 1.00}}, // ties 0.5–1 on recall@5 and @2: smaller weights first
		{0.5, 1, 0.81, []float64{0.62, 1.00}},
		{0.5, 1.5, 0.78, []float64{0.64, 0.92}},
	} // 1–2 is not in the XQuAD grid: left out
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i, w := range want {
		r := rows[i]
		if r.mean.Low != w.low || r.mean.High != w.high || math.Abs(r.mean.Recall5-w.r5) > 1e-9 ||
			len(r.per) != 2 || r.per[0] != w.per[0] || r.per[1] != w.per[1] {
			t.Errorf("row %d: %+v per %v, want %.2g–%.2g recall@5 %.3f per %v", i, r.mean, r.per, w.low, w.high, w.r5, w.per)
		}
	}
	if math.Abs(hyb.mean.Recall5-0.80) > 1e-9 || math.Abs(hyb.mean.Recall2-0.74) > 1e-9 {
		t.Errorf("hybrid alone %+v, want recall@5 0.80, recall@2 0.74", hyb.mean)
	}
	if _, _, err := mixGrid([]fitWalkReport{{Rows: []fitWalkRow{{Name: "hybrid alone"}}}}); err == nil {
		t.Error("no common pair: want an error")
	}
}
