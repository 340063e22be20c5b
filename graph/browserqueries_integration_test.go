package graph

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

// browserQuery returns the statement numbered n in deploy/neo4j/browser-queries.cypher, without
// its comment lines.
func browserQuery(t *testing.T, n string) string {
	t.Helper()
	raw, err := os.ReadFile("../deploy/neo4j/browser-queries.cypher")
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(string(raw), ";\n") {
		var lines []string
		numbered := false
		for _, l := range strings.Split(part, "\n") {
			if strings.HasPrefix(l, "// "+n+". ") {
				numbered = true
			}
			if !strings.HasPrefix(strings.TrimSpace(l), "//") {
				lines = append(lines, l)
			}
		}
		if numbered {
			return strings.TrimSpace(strings.Join(lines, "\n"))
		}
	}
	t.Fatalf("no query %s in browser-queries.cypher", n)
	return ""
}

// TestIntegrationBrowserPathQueryPicksBestMatch: query 2 of the Browser queries takes, for each
// name, the entity the fulltext index scores highest, not the best connected one that shares a
// word with it: 'Polar Star LLC' is Polar Star LLC, not the hub "LLC" that recognition made of a
// bare legal form (which the first version, ordering by degree, picked); equal scores go to the
// entity with more relations.
func TestIntegrationBrowserPathQueryPicksBestMatch(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "bq")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.run(ctx, `
CREATE (p:Entity {key: 'organization:polar star', name: 'Polar Star LLC', degree: 1}),
       (l:Entity {key: 'organization:lk', name: 'LLC', degree: 4}),
       (a:Entity {key: 'location:arhangelsk', name: 'Arkhangelsk', degree: 2}),
       (n:Entity {key: 'organization:northvind', name: 'Northwind LLC', degree: 1}),
       (x:Entity {key: 'location:oslo', name: 'Oslo', degree: 2}),
       (y:Entity {key: 'location:bergen', name: 'Bergen', degree: 1}),
       (o:Entity {key: 'location:oslo fjord', name: 'Oslo Fjord', degree: 5}),
       (m1:Entity {key: 'location:merkuri', name: 'Mercury', degree: 1}),
       (m2:Entity {key: 'organization:merkuri', name: 'Mercury', degree: 3}),
       (p)-[:MENTIONED_WITH {chunk_ids: ['c1'], acl: ['all']}]->(a),
       (l)-[:MENTIONED_WITH {chunk_ids: ['c2'], acl: ['all']}]->(a),
       (l)-[:MENTIONED_WITH {chunk_ids: ['c3'], acl: ['all']}]->(x),
       (l)-[:MENTIONED_WITH {chunk_ids: ['c4'], acl: ['all']}]->(n),
       (x)-[:MENTIONED_WITH {chunk_ids: ['c5'], acl: ['all']}]->(y),
       (o)-[:MENTIONED_WITH {chunk_ids: ['c6'], acl: ['all']}]->(y),
       (m1)-[:MENTIONED_WITH {chunk_ids: ['c7'], acl: ['all']}]->(y),
       (m2)-[:MENTIONED_WITH {chunk_ids: ['c8'], acl: ['all']}]->(y)`, nil); err != nil {
		t.Fatal(err)
	}
	q := browserQuery(t, "2")
	for _, tc := range []struct{ from, to, want string }{
		{"Polar Star LLC", "Arkhangelsk", "organization:polar star > location:arhangelsk"},
		{"Arkhangelsk", "Polar Star LLC", "location:arhangelsk > organization:polar star"},
		// 'Oslo' scores Oslo above the better connected Oslo Fjord.
		{"Oslo", "Bergen", "location:oslo > location:bergen"},
		// Two entities named alike score alike: the one with more relations.
		{"Mercury", "Bergen", "organization:merkuri > location:bergen"},
	} {
		rows, err := s.QueryReadOnly(ctx, q, map[string]any{"from": tc.from, "to": tc.to})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			var keys []string
			for _, n := range r["p"].(dbtype.Path).Nodes {
				keys = append(keys, n.Props["key"].(string))
			}
			got = append(got, strings.Join(keys, " > "))
		}
		if strings.Join(got, "; ") != tc.want {
			t.Errorf("from %q to %q: paths %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}
}
