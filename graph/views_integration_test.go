package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestIntegrationViewAliasLists: the surfaces a caller sees of an entity come from its alias lists
// (alias_acls, alias_surfaces), one pair per chunk ACL and spelling, kept by the full refresh and
// grown by batch writes to the same lists: every readable spelling is shown — also one that only
// a hub's 301st mention uses, which the 256-mention read could miss — and none of a chunk the
// caller may not read. The entity is undocumented, its name spelled only in a management chunk:
// others see it by an opaque key (a described entity exists only for its document's readers,
// TestIntegrationDescribedEntityVisibility).
func TestIntegrationViewAliasLists(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "al")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.run(ctx, `
CREATE (e:Entity {key: 'client:vega', name: 'Vega Trans LLC', type: 'Client', uid: 'u1', defined_aliases: ['VT'],
                  acl: ['all', 'delivery', 'management'], name_acl: ['management']})
CREATE (:Chunk {id: 'a#1', acl: ['management']})-[:MENTIONS {surfaces: ['Secret Name', 'Vega Trans LLC']}]->(e),
       (:Chunk {id: 'd#1', acl: ['delivery', 'all']})-[:MENTIONS {surfaces: ['Vega-D']}]->(e),
       (:Chunk {id: 'h#300', acl: ['all']})-[:MENTIONS {surfaces: ['Vega', 'VEGA Trans']}]->(e)
WITH e
UNWIND range(0, 299) AS i
CREATE (:Chunk {id: 'h#' + right('00' + toString(i), 3), acl: ['all']})-[:MENTIONS {surfaces: ['Vega']}]->(e)`, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.RefreshAll(ctx); err != nil {
		t.Fatal(err)
	}
	lists := func() string {
		t.Helper()
		res, err := s.run(ctx, `MATCH (e:Entity {key: 'client:vega'}) RETURN e.alias_acls AS acls, e.alias_surfaces AS surfaces`, nil)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%q %q", strs(get(res.Records[0], "acls")), strs(get(res.Records[0], "surfaces")))
	}
	if got, want := lists(), `["all|" "all|" "all|delivery|" "management|" "management|"] ["VEGA Trans" "Vega" "Vega-D" "Secret Name" "Vega Trans LLC"]`; got != want {
		t.Errorf("alias lists after a refresh:\n%s\nwant\n%s", got, want)
	}
	type view struct{ key, name, aliases string }
	check := func(step string, want map[string]view) {
		t.Helper()
		for groups, w := range want {
			vs, err := s.views(ctx, []string{"client:vega"}, strings.Split(groups, ","))
			if err != nil {
				t.Fatal(err)
			}
			v, ok := vs["client:vega"]
			if w.key == "" {
				if ok {
					t.Errorf("%s: groups %s see %+v, want nothing", step, groups, v.entity)
				}
				continue
			}
			got := view{v.entity.Key, v.entity.Name, strings.Join(v.entity.Aliases, ",")}
			if got != w {
				t.Errorf("%s: groups %s see %+v, want %+v", step, groups, got, w)
			}
		}
	}
	want := map[string]view{
		"all":            {UIDPrefix + "u1", "Vega-D", "VEGA Trans,Vega"},
		"delivery":       {UIDPrefix + "u1", "Vega-D", ""},
		"management":     {"client:vega", "Vega Trans LLC", "VT,Secret Name"},
		"all,management": {"client:vega", "Vega Trans LLC", "VT,Secret Name,VEGA Trans,Vega,Vega-D"},
		"sales":          {},
	}
	check("refreshed", want)

	// A batch adds a sales chunk with a new spelling: the lists grow by its pair, as a full
	// refresh would make them.
	if _, err := s.run(ctx, `MATCH (e:Entity {key: 'client:vega'})
CREATE (:Chunk {id: 'b#1', acl: ['sales']})-[:MENTIONS {surfaces: ['Vega S', 'Vega']}]->(e)`, nil); err != nil {
		t.Fatal(err)
	}
	row := map[string]any{"key": "client:vega", "mentions": []any{map[string]any{"surfaces": []any{"Vega S", "Vega"},
		"acl": []any{"sales"}, "chunk_id": "b#1", "acl_key": aclKey([]string{"sales"})}}}
	if _, err := s.write(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		return nil, exec(ctx, tx, s.cy(growEntitiesCypher), map[string]any{"rows": []any{row}})
	}); err != nil {
		t.Fatal(err)
	}
	grown := lists()
	want["sales"] = view{UIDPrefix + "u1", "Vega S", "Vega"}
	check("grown", want)
	if err := s.RefreshAll(ctx); err != nil {
		t.Fatal(err)
	}
	if full := lists(); full != grown || !strings.Contains(full, `"sales|"`) {
		t.Errorf("alias lists grown by a batch:\n%s\ndiffer from a full refresh:\n%s", grown, full)
	}

	// A chunk whose groups changed behind the lists' back (a hand edit; every write refreshes the
	// lists) does not open its old ACL's other spellings to its new readers: a#1, the management
	// ACL's kept chunk, becomes a sales chunk; sales may now read a#1's own spelling, never a#2's.
	if _, err := s.run(ctx, `MATCH (e:Entity {key: 'client:vega'})
CREATE (:Chunk {id: 'a#2', acl: ['management']})-[:MENTIONS {surfaces: ['Other Secret']}]->(e)`, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.RefreshAll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.run(ctx, `MATCH (c:Chunk {id: 'a#1'}) SET c.acl = ['sales']`, nil); err != nil {
		t.Fatal(err)
	}
	check("stale ACL", map[string]view{"sales": {UIDPrefix + "u1", "Secret Name", "Vega,Vega S"}, "delivery": want["delivery"]})
	if _, err := s.run(ctx, `MATCH (c:Chunk {id: 'a#1'}) SET c.acl = ['management'] WITH 1 AS x MATCH (c:Chunk {id: 'a#2'}) DETACH DELETE c`, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.RefreshAll(ctx); err != nil {
		t.Fatal(err)
	}

	// Without the lists (a graph written before them) the views read the mentions instead.
	if _, err := s.run(ctx, `MATCH (e:Entity) REMOVE e.alias_acls, e.alias_surfaces`, nil); err != nil {
		t.Fatal(err)
	}
	check("without lists", map[string]view{"delivery": {UIDPrefix + "u1", "Vega-D", ""}, "sales": want["sales"],
		"management": {"client:vega", "Vega Trans LLC", "VT,Secret Name"}})
	if n, err := s.RefreshStale(ctx); err != nil || n != 1 {
		t.Fatalf("RefreshStale = %d, %v; want 1", n, err)
	}
	if got := lists(); got != grown {
		t.Errorf("alias lists after RefreshStale %s, want %s", got, grown)
	}
}

// TestIntegrationDescribedEntityVisibility: an entity a document describes exists only for the
// document's readers, however many other chunks name it — a public chunk naming a management
// client links to it for management only, and its relations (typed by the client's page) with it
// — and a graph written before this rule (acl the union of the mentions') is refreshed by
// EnsureSchema.
func TestIntegrationDescribedEntityVisibility(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "dv")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.run(ctx, `
CREATE (e:Entity {key: 'clients/vega', name: 'Vega Trans LLC', type: 'client', doc_id: 'clients/vega', uid: 'u2',
                  acl: ['all', 'management'], name_acl: ['management']})
CREATE (e)-[:DESCRIBED_IN]->(:Document {id: 'clients/vega', acl: ['management']})
CREATE (p:Entity {key: 'people/ann', name: 'Ann Lee', type: 'person', doc_id: 'people/ann', uid: 'u3', acl: ['all'], name_acl: ['all']})
CREATE (p)-[:DESCRIBED_IN]->(:Document {id: 'people/ann', acl: ['all']})
CREATE (c:Chunk {id: 'people/ann#1', acl: ['all']})-[:MENTIONS {surfaces: ['Vega']}]->(e),
       (c)-[:MENTIONS {surfaces: ['Ann Lee']}]->(p),
       (p)-[:WORKS_WITH {chunk_ids: ['people/ann#1'], acl: ['all']}]->(e)`, nil); err != nil {
		t.Fatal(err)
	}
	// The old rule's acl (all, management) is what EnsureSchema finds and refreshes.
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := s.run(ctx, `MATCH (e:Entity {key: 'clients/vega'}) RETURN e.acl AS acl`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strs(get(res.Records[0], "acl")); strings.Join(got, ",") != "management" {
		t.Errorf("acl after EnsureSchema %q, want [management]", got)
	}
	for _, tc := range []struct {
		groups string
		view   string // clients/vega as the caller sees it
		edges  string
	}{
		{"all", "", ""},
		{"all,management", "clients/vega Vega Trans LLC client", "people/ann WORKS_WITH clients/vega"},
	} {
		groups := strings.Split(tc.groups, ",")
		vs, err := s.views(ctx, []string{"clients/vega"}, groups)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if v, ok := vs["clients/vega"]; ok {
			got = v.entity.Key + " " + v.entity.Name + " " + v.entity.Type
		}
		if got != tc.view {
			t.Errorf("groups %s see %q, want %q", tc.groups, got, tc.view)
		}
		edges, err := s.Edges(ctx, []string{"people/ann"}, groups, nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		var es []string
		for _, e := range edges {
			es = append(es, e.From.Key+" "+e.Type+" "+e.To.Key)
		}
		if strings.Join(es, "; ") != tc.edges {
			t.Errorf("groups %s see edges %q, want %q", tc.groups, es, tc.edges)
		}
	}
}

// TestIntegrationNameFromMentionNames: an undocumented entity named by the nominative recognition
// gave its inflected surfaces (MENTIONS names: «Мурманск» for «Мурманске») shows its key and name
// to the readers of the chunks whose mentions so name it, as if the chunk had written the name —
// and to no one else: a chunk that only writes an inflected form without that name leaves its
// readers the opaque view. The batch write grows name_acl as the full refresh computes it.
func TestIntegrationNameFromMentionNames(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "nm")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.run(ctx, `
CREATE (e:Entity {key: 'location:murmansk', name: 'Мурманск', type: 'Location', uid: 'u2', defined_aliases: []})
CREATE (:Chunk {id: 'a#1', acl: ['all']})-[:MENTIONS {surfaces: ['Мурманске'], names: ['Мурманск']}]->(e),
       (:Chunk {id: 'b#1', acl: ['management']})-[:MENTIONS {surfaces: ['Мурманска']}]->(e)`, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.RefreshAll(ctx); err != nil {
		t.Fatal(err)
	}
	nameACL := func() string {
		t.Helper()
		res, err := s.run(ctx, `MATCH (e:Entity {key: 'location:murmansk'}) RETURN e.name_acl AS n`, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := strs(get(res.Records[0], "n"))
		slices.Sort(n)
		return fmt.Sprint(n)
	}
	if got := nameACL(); got != "[all]" {
		t.Errorf("name_acl after a refresh: %s, want [all]", got)
	}
	for groups, want := range map[string][2]string{
		"all":        {"location:murmansk", "Мурманск"},
		"management": {UIDPrefix + "u2", "Мурманска"},
	} {
		vs, err := s.views(ctx, []string{"location:murmansk"}, []string{groups})
		if err != nil {
			t.Fatal(err)
		}
		if v := vs["location:murmansk"]; v.entity.Key != want[0] || v.entity.Name != want[1] {
			t.Errorf("groups %s see %s «%s», want %s «%s»", groups, v.entity.Key, v.entity.Name, want[0], want[1])
		}
	}
	// A batch adds a sales chunk that names it by its nominative: name_acl grows by sales, as a
	// full refresh makes it.
	if _, err := s.run(ctx, `MATCH (e:Entity {key: 'location:murmansk'})
CREATE (:Chunk {id: 'c#1', acl: ['sales']})-[:MENTIONS {surfaces: ['Мурманском'], names: ['Мурманск']}]->(e)`, nil); err != nil {
		t.Fatal(err)
	}
	row := map[string]any{"key": "location:murmansk", "mentions": []any{map[string]any{"surfaces": []any{"Мурманском"},
		"names": []any{"Мурманск"}, "acl": []any{"sales"}, "chunk_id": "c#1", "acl_key": aclKey([]string{"sales"})}}}
	if _, err := s.write(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		return nil, exec(ctx, tx, s.cy(growEntitiesCypher), map[string]any{"rows": []any{row}})
	}); err != nil {
		t.Fatal(err)
	}
	grown := nameACL()
	if err := s.RefreshAll(ctx); err != nil {
		t.Fatal(err)
	}
	if full := nameACL(); grown != "[all sales]" || full != grown {
		t.Errorf("name_acl grown by a batch %s, after a full refresh %s; want [all sales] both", grown, full)
	}
}
