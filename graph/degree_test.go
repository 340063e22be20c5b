package graph

import (
	"fmt"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestDegreeDeltas: a batch's relation rows change its ends' counts per acl — a new relation adds
// one under its acl, a grown acl moves one, an unchanged one nothing, a self relation counts
// once — and the stored lists take the change, dropping acls left with none.
func TestDegreeDeltas(t *testing.T) {
	rec := func(source, target string, created bool, before, after []any) *neo4j.Record {
		return &neo4j.Record{Keys: []string{"source", "target", "created", "before", "after"},
			Values: []any{source, target, created, before, after}}
	}
	d := degreeDeltas{}
	d.add([]*neo4j.Record{
		rec("x", "a", false, []any{"all"}, []any{"finance", "all"}),
		rec("x", "c", true, []any{}, []any{"finance"}),
		rec("x", "b", false, []any{"all"}, []any{"all"}),
		rec("s", "s", true, []any{}, []any{"all"}),
	})
	for _, c := range []struct {
		key        string
		groups     []string
		counts     []int
		wantGroups string
		wantCounts string
	}{
		// x had a, b public and one hr relationship: a moves to [all finance], c is new.
		{"x", []string{"all", "", "hr", ""}, []int{2, 1}, "[all  all finance  finance  hr ]", "[1 1 1 1]"},
		{"a", []string{"all", ""}, []int{1}, "[all finance ]", "[1]"},
		{"b", []string{"all", ""}, []int{1}, "[all ]", "[1]"},
		{"s", []string{}, []int{}, "[all ]", "[1]"},
	} {
		counts := decodeDegrees(c.groups, c.counts)
		for _, ac := range d[c.key] {
			addCount(counts, ac.groups, ac.n)
		}
		groups, ns := encodeDegrees(counts)
		if fmt.Sprint(groups) != c.wantGroups || fmt.Sprint(ns) != c.wantCounts {
			t.Errorf("%s: %q %v, want %s %s", c.key, groups, ns, c.wantGroups, c.wantCounts)
		}
	}
	if _, ok := d["b"]; ok {
		t.Errorf("b changed: %v", d["b"])
	}
	// As growEntitiesCypher takes them: per acl, its groups and the change, in acl key order.
	if got := fmt.Sprint(d.rows("x")); got != "[map[g:[all] n:-1] map[g:[all finance] n:1] map[g:[finance] n:1]]" {
		t.Errorf("rows(x) = %s", got)
	}
	if got := d.rows("b"); got == nil || len(got) != 0 {
		t.Errorf("rows(b) = %#v, want an empty list", got)
	}
}
