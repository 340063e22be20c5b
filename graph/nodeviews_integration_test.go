package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ariadne-graphrag/ariadne"
)

// TestIntegrationNodeViewFirstSurface: an entity whose name the caller may not see is shown by
// the first surface of its smallest readable chunk id — from the per-ACL first mentions a refresh
// keeps (first_acls, first_chunks), or, without them, from every mention. The lists are a hint
// that is checked: one left stale by a write outside the store's statements (which refresh an
// entity whenever a mention goes) still gives a surface the caller may read.
func TestIntegrationNodeViewFirstSurface(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "nv")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.run(ctx, `
CREATE (e:Entity {key: 'client:vega', name: 'Vega Trans LLC', type: 'Client', uid: 'u1',
                  acl: ['all', 'delivery', 'management'], name_acl: []})
CREATE (:Chunk {id: 'a#1', acl: ['management']})-[:MENTIONS {surfaces: ['Secret Name']}]->(e),
       (:Chunk {id: 'b#1', acl: ['all']})-[:MENTIONS {surfaces: ['Vega']}]->(e),
       (:Chunk {id: 'c#1', acl: ['all']})-[:MENTIONS {surfaces: ['VEGA Trans']}]->(e),
       (:Chunk {id: 'd#1', acl: ['delivery', 'all']})-[:MENTIONS {surfaces: ['Vega-D']}]->(e),
       (:Chunk {id: 'e#1', acl: ['delivery']})-[:MENTIONS {surfaces: []}]->(e),
       (:Chunk {id: 'h#1', acl: ['hr']})-[:MENTIONS {surfaces: ['Vega Trans LLC']}]->(e)`, nil); err != nil {
		t.Fatal(err)
	}
	names := func(step string, want map[string]string) {
		t.Helper()
		for groups, name := range want {
			vs, err := s.nodeViews(ctx, []string{"client:vega"}, strings.Split(groups, ","))
			if err != nil {
				t.Fatal(err)
			}
			v, ok := vs["client:vega"]
			if !ok || v.entity.Name != name || v.entity.Key != UIDPrefix+"u1" {
				t.Errorf("%s: groups %s see %+v, want name %q under the opaque key", step, groups, v.entity, name)
			}
		}
	}
	want := map[string]string{"all": "Vega", "delivery": "Vega-D", "management": "Secret Name", "all,delivery": "Vega"}
	names("without first mentions", want)

	if err := s.RefreshAll(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := s.run(ctx, `MATCH (e:Entity {key: 'client:vega'}) RETURN e.first_acls AS acls, e.first_chunks AS chunks`, nil)
	if err != nil {
		t.Fatal(err)
	}
	acls, chunks := strs(get(res.Records[0], "acls")), strs(get(res.Records[0], "chunks"))
	if !slices.Equal(acls, []string{"all|", "all|delivery|", "hr|", "management|"}) || !slices.Equal(chunks, []string{"b#1", "d#1", "h#1", "a#1"}) {
		t.Errorf("first mentions %v %v, want [all| all|delivery| hr| management|] [b#1 d#1 h#1 a#1] (e#1 has no surface)", acls, chunks)
	}
	if got := aclKey([]string{"delivery", "all", "all"}); got != "all|delivery|" {
		t.Errorf("aclKey = %q, want the Cypher form all|delivery|", got)
	}
	names("with first mentions", want)

	// The first public mention goes without a refresh: its list entry points at nothing, and the
	// next readable entry (d#1) is shown — readable, though c#1 is now the smallest.
	if _, err := s.run(ctx, `MATCH (:Chunk {id: 'b#1'})-[m:MENTIONS]->() DELETE m`, nil); err != nil {
		t.Fatal(err)
	}
	names("stale lists", map[string]string{"all": "Vega-D", "delivery": "Vega-D", "management": "Secret Name"})
	// With the public entries all gone, an all caller gets the sort over every mention.
	if _, err := s.run(ctx, `MATCH (:Chunk {id: 'd#1'})-[m:MENTIONS]->() DELETE m`, nil); err != nil {
		t.Fatal(err)
	}
	names("no readable list entry", map[string]string{"all": "VEGA Trans", "management": "Secret Name"})
	if err := s.RefreshAll(ctx); err != nil {
		t.Fatal(err)
	}
	names("refreshed", map[string]string{"all": "VEGA Trans", "management": "Secret Name"})

	// The incremental refresh keeps the lists of an entity that has them or that only the batch
	// mentions, and gives none to an entity of a graph written before them. (client:new is as a
	// write of this version creates it: with its relationships counted per acl, none yet.)
	if _, err := s.run(ctx, `
CREATE (o:Entity {key: 'client:old', name: 'Old Co', type: 'Client', uid: 'u2', acl: ['all'], name_acl: []}),
       (n:Entity {key: 'client:new', name: 'New Co', type: 'Client', uid: 'u3', acl: ['all'], name_acl: [],
                  degree_groups: [], degree_counts: []})
CREATE (:Chunk {id: 'x#1', acl: ['all']})-[:MENTIONS {surfaces: ['Old']}]->(o),
       (z:Chunk {id: 'z#9', acl: ['all']})-[:MENTIONS {surfaces: ['Zed']}]->(o),
       (z)-[:MENTIONS {surfaces: ['Newish']}]->(n)`, nil); err != nil {
		t.Fatal(err)
	}
	row := func(key, surface string) map[string]any {
		return map[string]any{"key": key, "mentions": []any{map[string]any{"surfaces": []any{surface}, "acl": []any{"all"},
			"chunk_id": "z#9", "acl_key": aclKey([]string{"all"})}}}
	}
	if _, err := s.write(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		return nil, exec(ctx, tx, s.cy(growEntitiesCypher), map[string]any{"rows": []any{row("client:old", "Zed"), row("client:new", "Newish")}})
	}); err != nil {
		t.Fatal(err)
	}
	res, err = s.run(ctx, `MATCH (e:Entity) WHERE e.key IN ['client:old', 'client:new'] RETURN e.key AS key, e.first_chunks AS chunks ORDER BY key`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(get(res.Records[0], "chunks"), get(res.Records[1], "chunks")); got != "[z#9] <nil>" {
		t.Errorf("first chunks of client:new, client:old after a batch: %s, want [z#9] <nil>", got)
	}
	vs, err := s.nodeViews(ctx, []string{"client:old", "client:new"}, []string{"all"})
	if err != nil {
		t.Fatal(err)
	}
	if vs["client:old"].entity.Name != "Old" || vs["client:new"].entity.Name != "Newish" {
		t.Errorf("views %+v, want Old (its smallest chunk, by the sort) and Newish", vs)
	}

	// RefreshStale gives the lists to the entity left without them, and only to it.
	n, err := s.RefreshStale(ctx)
	if err != nil || n != 1 {
		t.Fatalf("RefreshStale = %d, %v; want 1 (client:old)", n, err)
	}
	res, err = s.run(ctx, `MATCH (e:Entity {key: 'client:old'}) RETURN e.first_acls AS acls, e.first_chunks AS chunks`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(get(res.Records[0], "acls"), get(res.Records[0], "chunks")); got != "[all|] [x#1]" {
		t.Errorf("client:old after RefreshStale: %s, want [all|] [x#1]", got)
	}
	if n, err := s.RefreshStale(ctx); err != nil || n != 0 {
		t.Errorf("RefreshStale again = %d, %v; want 0", n, err)
	}
}

// TestIntegrationDeletedSpellingRenames: an entity no page describes is named by the note that
// spelled it; when that note is deleted and the remaining note spells it otherwise, the entity
// takes the remaining spelling, so its readers still see its key and name instead of an opaque
// uid: (README trial: every caller saw the entity by uid: after the delete) — the public
// spelling, though restricted notes spell it otherwise more often.
func TestIntegrationDeletedSpellingRenames(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "nvren")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	const key = "organization:vostochnaya gavan"
	note := func(id, text, surface string, acl ...string) ariadne.DocumentGraph {
		cid := id + "#0000"
		if acl == nil {
			acl = []string{"all"}
		}
		return ariadne.DocumentGraph{
			Doc:      ariadne.Document{ID: id, Title: id, Type: "note", Lang: "ru", ACL: acl, Body: text + "\n"},
			Chunks:   []ariadne.Chunk{{ID: cid, DocID: id, Text: text, ACL: acl, Title: id, Lang: "ru", End: len(text)}},
			Entities: []ariadne.Entity{{Key: key, Name: "Восточная Гавань", Type: "organization"}},
			Mentions: []ariadne.Mention{{ChunkID: cid, EntityKey: key, Surface: surface}},
		}
	}
	a := note("notes/a", "Восточная Гавань открыла склад.", "Восточная Гавань")
	b := note("notes/b", "Vostochnaya Gavan ships to Kazan.", "Vostochnaya Gavan")
	// Two hr notes spell it a third way: more mentions than the public note, but restricted
	// chunks do not choose the name public readers see (security audit, stop 58).
	hr1 := note("notes/hr1", "ВГ Восточная уволила троих.", "ВГ Восточная", "hr")
	hr2 := note("notes/hr2", "ВГ Восточная молчит.", "ВГ Восточная", "hr")
	if _, err := s.WriteDocuments(ctx, []ariadne.DocumentGraph{a, b, hr1, hr2}, nil, nil, testLabeler{}, "test"); err != nil {
		t.Fatal(err)
	}
	view := func(step, wantKey, wantName string) {
		t.Helper()
		vs, err := s.nodeViews(ctx, []string{key}, []string{"all"})
		if err != nil {
			t.Fatal(err)
		}
		if v := vs[key].entity; v.Key != wantKey || v.Name != wantName {
			t.Errorf("%s: all sees %q %q, want %q %q", step, v.Key, v.Name, wantKey, wantName)
		}
	}
	view("both notes", key, "Восточная Гавань")
	if _, err := s.DeleteDocuments(ctx, map[string][]string{"notes/a": {"notes/a#0000"}}); err != nil {
		t.Fatal(err)
	}
	view("after deleting the note that spelled the name", key, "Vostochnaya Gavan")
	checkAgainstFullRefresh(t, s, "after the delete")
}

// TestIntegrationEntityNames: the names for warming the walk's cache, most connected first, then
// by name, distinct, cut at the limit — only those the groups may see (the entity and its name).
func TestIntegrationEntityNames(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "names")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.run(ctx, `
CREATE (:Entity {key: 'a', name: 'Zarya', degree: 5, acl: ['all'], name_acl: ['all']}),
       (:Entity {key: 'b', name: 'Kazan', degree: 1, acl: ['all'], name_acl: ['all']}),
       (:Entity {key: 'c', name: 'Orbita', degree: 1, acl: ['all'], name_acl: ['all']}),
       (:Entity {key: 'd', name: 'Kazan', degree: 0, acl: ['all'], name_acl: ['all']}),
       (:Entity {key: 'e', name: '', degree: 9, acl: ['all'], name_acl: ['all']}),
       (:Entity {key: 'f', name: 'Ghostwire', degree: 7, acl: ['management'], name_acl: ['management']}),
       (:Entity {key: 'g', name: 'Quillmark', degree: 6, acl: ['all', 'management'], name_acl: ['management']}),
       (:Entity {key: 'h', name: 'Boreas', degree: 9, degree_groups: ['all', '', 'management', ''], degree_counts: [1, 8],
                 acl: ['all'], name_acl: ['all']})`, nil); err != nil {
		t.Fatal(err)
	}
	public := []string{"all"}
	// Boreas has 8 relationships only management may read: for the public groups its degree is 1
	// (security audit, stop 60: the stored degree put it first).
	for limit, want := range map[int]string{0: "[]", 2: "[Zarya Boreas]", 10: "[Zarya Boreas Kazan Orbita]"} {
		if got, err := s.EntityNames(ctx, public, limit); err != nil || fmt.Sprint(got) != want {
			t.Errorf("EntityNames(public, %d) = %v, %v; want %s", limit, got, err, want)
		}
	}
	if got, err := s.EntityNames(ctx, []string{"all", "management"}, 3); err != nil || fmt.Sprint(got) != "[Boreas Ghostwire Quillmark]" {
		t.Errorf("EntityNames(management, 3) = %v, %v; want [Boreas Ghostwire Quillmark]", got, err)
	}
}
