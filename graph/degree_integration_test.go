package graph

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// statingDoc is a one-chunk document readable by acl whose chunk names every entity of rels and
// states rels ("source>target", MENTIONED_WITH); entity keys are "person:<name>".
func statingDoc(id string, acl []string, rels ...string) ariadne.DocumentGraph {
	cid := id + "#0000"
	g := ariadne.DocumentGraph{GraphHash: "g-" + id}
	seen := map[string]bool{}
	var names []string
	for _, r := range rels {
		ends := strings.Split(r, ">")
		for _, n := range ends {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
				g.Entities = append(g.Entities, ariadne.Entity{Key: "person:" + n, Name: n, Type: "person"})
				g.Mentions = append(g.Mentions, ariadne.Mention{ChunkID: cid, EntityKey: "person:" + n, Surface: n})
			}
		}
		g.Relations = append(g.Relations, ariadne.Relation{Source: "person:" + ends[0], Target: "person:" + ends[1],
			Type: "MENTIONED_WITH", ChunkIDs: []string{cid}})
	}
	text := strings.Join(names, " and ") + " met."
	g.Doc = ariadne.Document{ID: id, Title: id, Type: "note", Lang: "en", ACL: acl, Body: text + "\n"}
	g.Chunks = []ariadne.Chunk{{ID: cid, DocID: id, Text: text, ACL: acl, Title: id, Lang: "en", End: len(text)}}
	return g
}

// TestIntegrationHubAsTheCallerSeesIt: an entity is a hub (an inner node no path crosses) only when
// the caller may read more than the hub bound of its relationships. Public documents relate
// a–x–b; a finance document relates x to c and d and states a–x too. With a bound of 2, a public
// caller (x: 2 readable relationships) gets the path a–x–b, a finance caller (4) does not —
// whether the documents are written in one batch or one after the other (the per-acl counts grown
// by writes, compared with a full recount) — and Edges, EntityDegrees give each caller its own
// degree. Before the counts per acl, the hub rule counted every relationship and the finance
// document took the public caller's path away. Deleting the finance document gives the finance
// caller the path back; an entity of an older graph without the counts falls back to its stored
// degree (every relationship) until RefreshStale counts them.
func TestIntegrationHubAsTheCallerSeesIt(t *testing.T) {
	ctx := context.Background()
	pub := statingDoc("notes/pub", []string{"all"}, "a>x", "x>b")
	fin := statingDoc("notes/fin", []string{"finance"}, "x>c", "x>d", "a>x")
	public, finance := []string{"all"}, []string{"all", "finance"}
	for _, tc := range []struct {
		name    string
		batches [][]ariadne.DocumentGraph
	}{
		{"one batch", [][]ariadne.DocumentGraph{{pub, fin}}},
		{"public then finance", [][]ariadne.DocumentGraph{{pub}, {fin}}},
		{"finance then public", [][]ariadne.DocumentGraph{{fin}, {pub}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openNamespaced(t, "hubacl")
			if err := s.EnsureSchema(ctx); err != nil {
				t.Fatal(err)
			}
			for _, b := range tc.batches {
				if _, err := s.WriteDocuments(ctx, b, nil, nil, testLabeler{}, "test"); err != nil {
					t.Fatal(err)
				}
			}
			checkHubPaths(t, s, "written", map[string]string{"public": "a-x-b", "finance": ""})
			checkDegrees(t, s, "written", public, "map[person:a:1 person:b:1 person:x:2]")
			checkDegrees(t, s, "written", finance, "map[person:a:1 person:b:1 person:x:4]")
			checkEdgeDegrees(t, s, "written", public, "person:a-1>person:x-2 person:x-2>person:b-1")
			checkAgainstFullRefresh(t, s, "written")

			if _, err := s.DeleteDocuments(ctx, map[string][]string{"notes/fin": {"notes/fin#0000"}}); err != nil {
				t.Fatal(err)
			}
			checkHubPaths(t, s, "finance deleted", map[string]string{"public": "a-x-b", "finance": "a-x-b"})
			checkDegrees(t, s, "finance deleted", finance, "map[person:a:1 person:b:1 person:x:2]")
			checkAgainstFullRefresh(t, s, "finance deleted")
		})
	}
	t.Run("older graph", func(t *testing.T) {
		s := openNamespaced(t, "hubold")
		if err := s.EnsureSchema(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.WriteDocuments(ctx, []ariadne.DocumentGraph{pub, fin}, nil, nil, testLabeler{}, "test"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.run(ctx, `MATCH (e:Entity) REMOVE e.degree_groups, e.degree_counts`, nil); err != nil {
			t.Fatal(err)
		}
		checkHubPaths(t, s, "without the counts", map[string]string{"public": "", "finance": ""})
		if n, err := s.RefreshStale(ctx); err != nil || n != 5 {
			t.Fatalf("RefreshStale = %d, %v; want 5", n, err)
		}
		checkHubPaths(t, s, "refreshed", map[string]string{"public": "a-x-b", "finance": ""})
	})
}

// checkHubPaths compares the paths from a to b (two hops, hub bound 2) each caller gets, as
// "a-x-b" per path, with want (caller → paths joined by spaces).
func checkHubPaths(t *testing.T, s *Store, step string, want map[string]string) {
	t.Helper()
	for caller, groups := range map[string][]string{"public": {"all"}, "finance": {"all", "finance"}} {
		paths, err := s.Paths(context.Background(), PathQuery{From: []string{"person:a"}, To: []string{"person:b"}, MaxHops: 2,
			Groups: groups, HubDegree: 2})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range paths {
			var names []string
			for _, n := range p.Nodes {
				names = append(names, strings.TrimPrefix(n.Key, "person:"))
			}
			got = append(got, strings.Join(names, "-"))
		}
		if g := strings.Join(got, " "); g != want[caller] {
			t.Errorf("%s: %s caller's paths %q, want %q", step, caller, g, want[caller])
		}
	}
}

func checkDegrees(t *testing.T, s *Store, step string, groups []string, want string) {
	t.Helper()
	got, err := s.EntityDegrees(context.Background(), []string{"person:a", "person:b", "person:x"}, groups)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != want {
		t.Errorf("%s: groups %v: degrees %v, want %s", step, groups, got, want)
	}
}

func checkEdgeDegrees(t *testing.T, s *Store, step string, groups []string, want string) {
	t.Helper()
	edges, err := s.Edges(context.Background(), []string{"person:x"}, groups, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range edges {
		got = append(got, fmt.Sprintf("%s-%d>%s-%d", e.From.Key, e.FromDeg, e.To.Key, e.ToDeg))
	}
	if g := strings.Join(got, " "); g != want {
		t.Errorf("%s: groups %v: edges %s, want %s", step, groups, g, want)
	}
}
