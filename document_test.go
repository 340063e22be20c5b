package ariadne

import (
	"slices"
	"testing"
)

func TestReadersWithin(t *testing.T) {
	for _, tc := range []struct {
		name         string
		inner, outer []string
		want         bool
	}{
		{"public definition reaches everything", []string{"management"}, nil, true},
		{"public chunk, public definition", nil, nil, true},
		{"public chunk, restricted definition", nil, []string{"management"}, false},
		{"all-group chunk, management definition", []string{"all"}, []string{"management"}, false},
		{"same groups", []string{"management"}, []string{"management"}, true},
		{"narrower chunk", []string{"management"}, []string{"management", "sales"}, true},
		{"wider chunk", []string{"management", "sales"}, []string{"management"}, false},
		{"disjoint", []string{"sales"}, []string{"management"}, false},
		{"all-group chunk, all-group definition", []string{"all"}, []string{"all", "management"}, true},
		{"public-group definition reaches a chunk of other groups", []string{"management"}, []string{"all"}, true},
		{"chunk readable by all and management, management definition", []string{"all", "management"}, []string{"management"}, false},
	} {
		if got := ReadersWithin(tc.inner, tc.outer); got != tc.want {
			t.Errorf("%s: ReadersWithin(%v, %v) = %v, want %v", tc.name, tc.inner, tc.outer, got, tc.want)
		}
	}
}

func TestWiderACL(t *testing.T) {
	for _, tc := range []struct{ a, b, want []string }{
		{[]string{"management"}, []string{"sales"}, []string{"management", "sales"}},
		{[]string{"management", "sales"}, []string{"sales"}, []string{"management", "sales"}},
		{[]string{"management"}, nil, nil},                   // empty: everyone
		{[]string{PublicGroup}, []string{"management"}, nil}, // PublicGroup: everyone
		{[]string{"management"}, []string{PublicGroup, "x"}, nil},
	} {
		if got := WiderACL(tc.a, tc.b); !slices.Equal(got, tc.want) {
			t.Errorf("WiderACL(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestChunkPosition(t *testing.T) {
	for id, want := range map[string]int{
		ChunkID("people/a", 0, "x"): 0, ChunkID("people/a", 12, "x"): 12,
		"people/a": -1, "people/a#abc-123": -1, "a#b#0003-deadbeef": 3,
	} {
		if got := ChunkPosition(id); got != want {
			t.Errorf("ChunkPosition(%q) = %d, want %d", id, got, want)
		}
	}
}
