package vector

import "testing"

// TestSampleOffset: a sample starts where it fits in the class and under Weaviate's result cap,
// and over many draws every such start comes up.
func TestSampleOffset(t *testing.T) {
	for _, tc := range []struct{ total, n, last int }{
		{0, 8, 0},
		{5, 8, 0},
		{8, 8, 0},
		{10, 8, 2},
		{449, 8, 441},
		{100000, 32, maxQueryResults - 32},
		{100000, maxQueryResults, 0},
	} {
		seen := map[int]bool{}
		for range 2000 {
			o := sampleOffset(tc.total, tc.n)
			if o < 0 || o > tc.last {
				t.Fatalf("sampleOffset(%d, %d) = %d, want 0…%d", tc.total, tc.n, o, tc.last)
			}
			seen[o] = true
		}
		if tc.last <= 2 && len(seen) != tc.last+1 {
			t.Errorf("sampleOffset(%d, %d): starts %v in 2000 draws, want every one of 0…%d", tc.total, tc.n, seen, tc.last)
		}
	}
}
