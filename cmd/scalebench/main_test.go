package main

import "testing"

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{{"1k", 1000, true}, {" 100K", 100000, true}, {"2500", 2500, true}, {"0", 0, false}, {"k", 0, false}, {"-3k", 0, false}} {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestPercentileNearestRank(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for _, tc := range []struct{ p, want float64 }{{50, 5}, {95, 10}, {90, 9}, {10, 1}} {
		if got := pct(xs, tc.p); got != tc.want {
			t.Errorf("pct(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if pct(nil, 50) != 0 {
		t.Error("pct of nothing")
	}
	if label(10000) != "10k" || label(1500) != "1500" {
		t.Error("label")
	}
}
