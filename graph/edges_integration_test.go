package graph

import (
	"context"
	"fmt"
	"testing"
)

// TestIntegrationEdgesOfHub: an entity with more than expandDegree relationships gives Edges only
// its relationships toward the other entities asked about; every other entity gives all its
// readable ones; a relationship whose chunks the caller may not read is never returned.
func TestIntegrationEdgesOfHub(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "hub")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	// hub has three relationships (one supported only by a management chunk), x two, y two.
	if _, err := s.run(ctx, `
CREATE (:Chunk {id: 'd#1', acl: ['all']}), (:Chunk {id: 'd#2', acl: ['all']}),
       (:Chunk {id: 'd#3', acl: ['management']}), (:Chunk {id: 'd#4', acl: ['all']})
CREATE (h:Entity {key: 'hub', name: 'Hub', type: 'Organization', acl: ['all', 'management'], name_acl: ['all'], degree: 3}),
       (x:Entity {key: 'x', name: 'Ex', type: 'Person', acl: ['all'], name_acl: ['all'], degree: 2}),
       (y:Entity {key: 'y', name: 'Why', type: 'Person', acl: ['all'], name_acl: ['all'], degree: 2}),
       (z:Entity {key: 'z', name: 'Zed', type: 'Person', acl: ['management'], name_acl: ['management'], degree: 1}),
       (h)-[:RELATED_TO {chunk_ids: ['d#1'], acl: ['all']}]->(x),
       (h)-[:RELATED_TO {chunk_ids: ['d#2'], acl: ['all']}]->(y),
       (h)-[:RELATED_TO {chunk_ids: ['d#3'], acl: ['management']}]->(z),
       (x)-[:WORKS_WITH {chunk_ids: ['d#4'], acl: ['all']}]->(y)`, nil); err != nil {
		t.Fatal(err)
	}
	edges := func(keys, groups []string) []string {
		t.Helper()
		es, err := s.Edges(ctx, keys, groups, nil, 50)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, fmt.Sprintf("%s-%s->%s %v", e.From.Key, e.Type, e.To.Key, e.ChunkIDs))
		}
		return out
	}
	cases := []struct {
		name   string
		expand int
		keys   []string
		groups []string
		want   []string
	}{
		{"no hub", ExpandDegree, []string{"hub", "x"}, []string{"all"},
			[]string{"hub-RELATED_TO->x [d#1]", "hub-RELATED_TO->y [d#2]", "x-WORKS_WITH->y [d#4]"}},
		{"no hub, management", ExpandDegree, []string{"hub", "x"}, []string{"all", "management"},
			[]string{"hub-RELATED_TO->x [d#1]", "hub-RELATED_TO->y [d#2]", "hub-RELATED_TO->z [d#3]", "x-WORKS_WITH->y [d#4]"}},
		{"hub toward x only", 2, []string{"hub", "x"}, []string{"all", "management"},
			[]string{"hub-RELATED_TO->x [d#1]", "x-WORKS_WITH->y [d#4]"}},
		{"hub alone", 2, []string{"hub"}, []string{"all", "management"}, nil},
		{"hub toward x and z", 2, []string{"hub", "x", "z"}, []string{"all", "management"},
			[]string{"hub-RELATED_TO->x [d#1]", "hub-RELATED_TO->z [d#3]", "x-WORKS_WITH->y [d#4]"}},
		{"hub toward z, z unreadable", 2, []string{"hub", "x", "z"}, []string{"all"},
			[]string{"hub-RELATED_TO->x [d#1]", "x-WORKS_WITH->y [d#4]"}},
	}
	for _, c := range cases {
		expandDegree = c.expand
		got := edges(c.keys, c.groups)
		expandDegree = ExpandDegree
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: edges %v, want %v", c.name, got, c.want)
		}
	}
}

// TestIntegrationDegreeAsTheCallerSeesIt: EntityDegrees counts only the relationships the
// caller may read — what ranks a multi-hop answer's paths — so a restricted document that
// relates an entity changes nothing a public caller gets (security audit: a finance contract
// flipped an anonymous multi-hop answer). An entity whose name the caller may not see is keyed
// by its opaque key.
func TestIntegrationDegreeAsTheCallerSeesIt(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "degree")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	// a–m–b is public; m has two more relationships only management chunks support; b's name is
	// management's, its public relationship to m public.
	if _, err := s.run(ctx, `
CREATE (:Chunk {id: 'd#1', acl: ['all']}), (:Chunk {id: 'd#2', acl: ['all']}),
       (:Chunk {id: 'f#1', acl: ['management']})
CREATE (a:Entity {key: 'a', name: 'A', type: 'Project', acl: ['all'], name_acl: ['all'], degree: 1}),
       (m:Entity {key: 'm', name: 'M', type: 'Client', acl: ['all', 'management'], name_acl: ['all'], degree: 4}),
       (b:Entity {key: 'b', name: 'B', type: 'Person', acl: ['all'], name_acl: ['management'], uid: 'u-b', degree: 1}),
       (c:Entity {key: 'c', name: 'C', type: 'Contract', acl: ['management'], name_acl: ['management'], degree: 1}),
       (d:Entity {key: 'd', name: 'D', type: 'Contract', acl: ['management'], name_acl: ['management'], degree: 1}),
       (a)-[:FOR_CLIENT {chunk_ids: ['d#1'], acl: ['all']}]->(m),
       (b)-[:ACCOUNT_MANAGER_OF {chunk_ids: ['d#2'], acl: ['all']}]->(m),
       (c)-[:RELATED_TO {chunk_ids: ['f#1'], acl: ['management']}]->(m),
       (d)-[:RELATED_TO {chunk_ids: ['f#1'], acl: ['management']}]->(m)`, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		groups []string
		keys   []string
		want   map[string]int
	}{
		{[]string{"all"}, []string{"a", "m", UIDPrefix + "u-b", "c"}, map[string]int{"a": 1, "m": 2, UIDPrefix + "u-b": 1}},
		{[]string{"all", "management"}, []string{"a", "m", "b", "c"}, map[string]int{"a": 1, "m": 4, "b": 1, "c": 1}},
	} {
		got, err := s.EntityDegrees(ctx, c.keys, c.groups)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("groups %v: degrees %v, want %v", c.groups, got, c.want)
		}
	}
}
