package graph

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// An entity's degree as a caller sees it — its relationships to other entities with a supporting
// chunk the caller may read — decides which inner nodes of a path are hubs (pathRules), which
// relationships fill Edges' limit, and how a multi-hop answer ranks its paths. Counting it from
// the relationships per read cost a 100k-chunk multi-hop question about a second, and a pattern
// inside the shortest-path predicate fails in Neo4j 5.26, so writes keep each entity's
// relationships counted per distinct acl (degree_groups, degree_counts; refreshEntitiesCypher
// recounts them, WriteDocuments adds what a batch changed) and a read sums the counts of the
// acls that share a group with the caller's (readableDegree): a few list items per entity.

// readableDegree is the Cypher expression for entity v's degree as the caller ($groups) sees it:
// the sum of v.degree_counts over the acls of v.degree_groups that hold one of $groups. An entity
// of a graph written before the lists (RefreshStale gives them) falls back to its stored degree,
// every relationship counted, as reads did before.
func readableDegree(v string) string {
	return strings.ReplaceAll(`CASE WHEN v.degree_groups IS NULL THEN coalesce(v.degree, 0) ELSE
  reduce(st = {d: 0, hit: false, i: 0}, g IN v.degree_groups |
    CASE WHEN g = '' THEN {d: st.d + CASE WHEN st.hit THEN v.degree_counts[st.i] ELSE 0 END, hit: false, i: st.i + 1}
         ELSE {d: st.d, hit: st.hit OR g IN $groups, i: st.i} END).d END`, "v.", v+".")
}

// aclCount is the relationships of one entity with one acl.
type aclCount struct {
	groups []string // sorted, distinct
	n      int
}

// degreeDeltas is what one batch changed of its entities' relationships per acl: entity key →
// acl key (aclKey) → relationships added (negative: moved to another acl).
type degreeDeltas map[string]map[string]*aclCount

// add counts the rows of a relation step (relationChangesReturn): a new relation adds one to each
// end under its acl, a grown acl moves it from the old acl to the new one. A relation from an
// entity to itself counts once, as its degree does.
func (d degreeDeltas) add(recs []*neo4j.Record) {
	for _, r := range recs {
		before, after := strs(get(r, "before")), strs(get(r, "after"))
		created, _ := get(r, "created").(bool)
		if !created && aclKey(before) == aclKey(after) {
			continue
		}
		ends := []string{str(get(r, "source"))}
		if t := str(get(r, "target")); t != ends[0] {
			ends = append(ends, t)
		}
		for _, k := range ends {
			if d[k] == nil {
				d[k] = map[string]*aclCount{}
			}
			if !created {
				addCount(d[k], before, -1)
			}
			addCount(d[k], after, 1)
		}
	}
}

// rows returns what the batch changed of entity k's relationships as growEntitiesCypher's
// row.degree: one {g: the acl's sorted groups, n: relationships added} per acl, in acl key
// order; empty (never nil) when nothing changed.
func (d degreeDeltas) rows(k string) []map[string]any {
	out := []map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(d[k])) {
		if c := d[k][key]; c.n != 0 {
			out = append(out, map[string]any{"g": c.groups, "n": c.n})
		}
	}
	return out
}

// addCount adds n relationships with acl to counts.
func addCount(counts map[string]*aclCount, acl []string, n int) {
	k := aclKey(acl)
	c := counts[k]
	if c == nil {
		gs := slices.Clone(acl)
		slices.Sort(gs)
		c = &aclCount{groups: slices.Compact(gs)}
		counts[k] = c
	}
	c.n += n
}

const (
	degreeListsCypher = `
UNWIND $keys AS key
MATCH (e:Entity {key: key}) WHERE e.degree_groups IS NOT NULL
RETURN e.key AS key, e.degree_groups AS groups, e.degree_counts AS counts`

	setDegreeListsCypher = `
UNWIND $rows AS row
MATCH (e:Entity {key: row.key})
SET e.degree_groups = row.groups, e.degree_counts = row.counts`
)

// applyDegreeDeltas adds d to the stored per-acl counts of its entities — those a batch's grow
// rows did not take (growEntitiesCypher applies the others): ends of its relations that are
// none of its entities. An entity without the lists (a graph written before them) keeps none:
// RefreshStale counts them in full.
func (s *Store) applyDegreeDeltas(ctx context.Context, tx neo4j.ManagedTransaction, d degreeDeltas) error {
	if len(d) == 0 {
		return nil
	}
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	recs, err := records(ctx, tx, s.cy(degreeListsCypher), map[string]any{"keys": keys})
	if err != nil {
		return err
	}
	rows := make([]map[string]any, 0, len(recs))
	for _, r := range recs {
		k := str(get(r, "key"))
		counts := decodeDegrees(strs(get(r, "groups")), ints(get(r, "counts")))
		for _, c := range d[k] {
			addCount(counts, c.groups, c.n)
		}
		groups, ns := encodeDegrees(counts)
		rows = append(rows, map[string]any{"key": k, "groups": groups, "counts": ns})
	}
	return exec(ctx, tx, s.cy(setDegreeListsCypher), map[string]any{"rows": rows})
}

// decodeDegrees reads the stored lists (each acl's groups, then an empty string) into acl key →
// count.
func decodeDegrees(groups []string, counts []int) map[string]*aclCount {
	out := map[string]*aclCount{}
	cur := []string{}
	i := 0
	for _, g := range groups {
		if g != "" {
			cur = append(cur, g)
			continue
		}
		if i < len(counts) {
			addCount(out, cur, counts[i])
		}
		cur, i = []string{}, i+1
	}
	return out
}

// encodeDegrees writes acl key → count as the stored lists, in order of the acl keys, without
// the acls left with no relationship.
func encodeDegrees(counts map[string]*aclCount) ([]string, []int) {
	keys := make([]string, 0, len(counts))
	for k, c := range counts {
		if c.n > 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	groups, ns := []string{}, []int{}
	for _, k := range keys {
		groups = append(append(groups, counts[k].groups...), "")
		ns = append(ns, counts[k].n)
	}
	return groups, ns
}

// ints reads a list of Neo4j integers.
func ints(v any) []int {
	l, _ := v.([]any)
	out := make([]int, 0, len(l))
	for _, x := range l {
		out = append(out, toInt(x))
	}
	return out
}
