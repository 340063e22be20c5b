package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
)

// testLabeler types the test's entities without the ontology: person → Person, location →
// Location; every relationship type is allowed.
type testLabeler struct{}

func (testLabeler) Label(t string) (string, error) {
	return strings.ToUpper(t[:1]) + t[1:], nil
}
func (testLabeler) AllowedRelation(string) bool { return true }

// sameSentence is one document of one chunk, readable by acl, that says what the tester's two
// files said: one sentence naming a person and a city, which recognition relates.
func sameSentence(id string, acl []string) ariadne.DocumentGraph {
	const text = "Sergey Pakhomov moved to Moscow."
	d := ariadne.Document{ID: id, Title: id, Type: "note", Lang: "en", ACL: acl, Body: text + "\n"}
	cid := id + "#0000"
	return ariadne.DocumentGraph{
		Doc:    d,
		Chunks: []ariadne.Chunk{{ID: cid, DocID: id, Text: text, ACL: acl, Title: id, Lang: "en", End: len(text)}},
		Entities: []ariadne.Entity{{Key: "person:sergey pakhomov", Name: "Sergey Pakhomov", Type: "person"},
			{Key: "location:moscow", Name: "Moscow", Type: "location"}},
		Mentions: []ariadne.Mention{{ChunkID: cid, EntityKey: "person:sergey pakhomov", Surface: "Sergey Pakhomov"},
			{ChunkID: cid, EntityKey: "location:moscow", Surface: "Moscow"}},
		Relations: []ariadne.Relation{{Source: "location:moscow", Target: "person:sergey pakhomov", Type: "MENTIONED_WITH",
			ChunkIDs: []string{cid}}},
		GraphHash: "g-" + id,
	}
}

// TestIntegrationRelationACLIsUnionOfChunks: a relation two documents state — one public, one
// for management — has the acl [all management] and both chunk ids whether the documents are
// written in one batch or one after the other in either order, an anonymous caller sees it with
// the public chunk only, and the batch writes leave the same entities and relations as a full
// recompute (RefreshAll). Deleting the public document leaves the relation to management alone.
// The first version read r.acl in a WITH before its SET: with both documents in one batch, both
// rows read the acl from before the batch and the relation kept only the last row's groups
// ([management]), so the public chunk's readers did not see a relation it states.
func TestIntegrationRelationACLIsUnionOfChunks(t *testing.T) {
	ctx := context.Background()
	pub := sameSentence("notes/a", []string{"all"})
	mgmt := sameSentence("notes/b", []string{"management"})
	for _, tc := range []struct {
		name    string
		batches [][]ariadne.DocumentGraph
	}{
		{"one batch", [][]ariadne.DocumentGraph{{pub, mgmt}}},
		{"one batch, restricted first", [][]ariadne.DocumentGraph{{mgmt, pub}}},
		{"public then restricted", [][]ariadne.DocumentGraph{{pub}, {mgmt}}},
		{"restricted then public", [][]ariadne.DocumentGraph{{mgmt}, {pub}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openNamespaced(t, "racl")
			if err := s.EnsureSchema(ctx); err != nil {
				t.Fatal(err)
			}
			for _, b := range tc.batches {
				if _, err := s.WriteDocuments(ctx, b, nil, nil, testLabeler{}, "test"); err != nil {
					t.Fatal(err)
				}
			}
			checkRelation(t, s, "written", "[all management] [notes/a#0000 notes/b#0000]")
			checkEdges(t, s, "written", []string{"all"}, "[location:moscow-MENTIONED_WITH->person:sergey pakhomov [notes/a#0000]]")
			checkEntityACLs(t, s, "written", "location:moscow [all management] [all management]; person:sergey pakhomov [all management] [all management]")
			checkAgainstFullRefresh(t, s, "written")

			if _, err := s.DeleteDocuments(ctx, map[string][]string{"notes/a": {"notes/a#0000"}}); err != nil {
				t.Fatal(err)
			}
			checkRelation(t, s, "public deleted", "[management] [notes/b#0000]")
			checkEdges(t, s, "public deleted", []string{"all"}, "[]")
			checkEdges(t, s, "public deleted", []string{"management"}, "[location:moscow-MENTIONED_WITH->person:sergey pakhomov [notes/b#0000]]")
			checkEntityACLs(t, s, "public deleted", "location:moscow [management] [management]; person:sergey pakhomov [management] [management]")
			checkAgainstFullRefresh(t, s, "public deleted")
		})
	}
}

// TestIntegrationUpsertRelationsRowsOfOneRelation runs upsertRelationsCypher itself with three
// rows of one relation (writeParams gives it one, so WriteDocuments cannot show this): each row
// must add its groups to the acl the row before it wrote, as each adds its chunk ids.
func TestIntegrationUpsertRelationsRowsOfOneRelation(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "rrow")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.run(ctx, `CREATE (:Entity {key: 'x'}), (:Entity {key: 'y'})`, nil); err != nil {
		t.Fatal(err)
	}
	row := func(cid string, acl ...string) map[string]any {
		return map[string]any{"source": "x", "target": "y", "type": "MENTIONED_WITH", "chunk_ids": []string{cid}, "acl": acl}
	}
	rows := []map[string]any{row("c1", "all"), row("c2", "management"), row("c3", "sales", "all")}
	if _, err := s.write(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		return nil, exec(ctx, tx, s.cy(upsertRelationsCypher), map[string]any{"relations": rows})
	}); err != nil {
		t.Fatal(err)
	}
	checkRelation(t, s, "three rows", "[all management sales] [c1 c2 c3]")
	res, err := s.run(ctx, `MATCH (e:Entity) RETURN e.key AS key, e.degree AS degree ORDER BY key`, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		if d, _ := get(r, "degree").(int64); d != 1 {
			t.Errorf("%s: degree %v, want 1 (one relation)", str(get(r, "key")), get(r, "degree"))
		}
	}
}

// checkRelation compares the namespace's one relation's sorted acl and chunk ids with want.
func checkRelation(t *testing.T, s *Store, step, want string) {
	t.Helper()
	res, err := s.run(context.Background(), `MATCH (:Entity)-[r]->(:Entity) RETURN r.acl AS acl, r.chunk_ids AS chunk_ids`, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Records {
		got = append(got, fmt.Sprint(sortedStrs(get(r, "acl")), " ", sortedStrs(get(r, "chunk_ids"))))
	}
	if strings.Join(got, "; ") != want {
		t.Errorf("%s: relation acl and chunk ids %q, want %q", step, got, want)
	}
}

// checkEdges compares what a caller of groups sees of the relation (Edges) with want.
func checkEdges(t *testing.T, s *Store, step string, groups []string, want string) {
	t.Helper()
	es, err := s.Edges(context.Background(), []string{"location:moscow", "person:sergey pakhomov"}, groups, nil, 50)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, e := range es {
		got = append(got, fmt.Sprintf("%s-%s->%s %v", e.From.Key, e.Type, e.To.Key, e.ChunkIDs))
	}
	if fmt.Sprint(got) != want {
		t.Errorf("%s: groups %v see %v, want %s", step, groups, got, want)
	}
}

// checkEntityACLs compares each entity's sorted acl and name_acl with want.
func checkEntityACLs(t *testing.T, s *Store, step, want string) {
	t.Helper()
	res, err := s.run(context.Background(), `MATCH (e:Entity) RETURN e.key AS key, e.acl AS acl, e.name_acl AS name_acl ORDER BY key`, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Records {
		got = append(got, fmt.Sprint(str(get(r, "key")), " ", sortedStrs(get(r, "acl")), " ", sortedStrs(get(r, "name_acl"))))
	}
	if strings.Join(got, "; ") != want {
		t.Errorf("%s: entities %q, want %q", step, strings.Join(got, "; "), want)
	}
}

// checkAgainstFullRefresh: what the batch writes left (entity acl, name_acl, aliases, alias and
// first-mention lists, degree; relation acl and chunk ids; mentions) equals a recompute from the
// chunks (RefreshAll).
func checkAgainstFullRefresh(t *testing.T, s *Store, step string) {
	t.Helper()
	ctx := context.Background()
	before, err := s.Digest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RefreshAll(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := s.Digest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ name, got, want string }{
		{"entities", before.Entities, after.Entities}, {"relations", before.Relations, after.Relations},
		{"mentions", before.Mentions, after.Mentions},
	} {
		if p.got != p.want {
			t.Errorf("%s: %s after the writes differ from a full refresh", step, p.name)
		}
	}
	if !slices.Equal([]int{before.Counts.Entities, before.Counts.Relations}, []int{after.Counts.Entities, after.Counts.Relations}) {
		t.Errorf("%s: counts %+v, after a full refresh %+v", step, before.Counts, after.Counts)
	}
}

// TestIntegrationRelationACLRepair: a graph written by the versions with the bug above (a
// relation two documents of one batch stated, with the acl of one's chunks) is repaired the first
// time a program's Store runs EnsureSchema (every sync, POST and DELETE runs it); correct
// relations, with one chunk or several, are left alone; the same Store does not scan again.
func TestIntegrationRelationACLRepair(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "rrep")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.run(ctx, `
CREATE (:Chunk {id: 'a#0', acl: ['all']}), (:Chunk {id: 'b#0', acl: ['management']}), (:Chunk {id: 'c#0', acl: ['sales']})
CREATE (x:Entity {key: 'x'}), (y:Entity {key: 'y'}), (z:Entity {key: 'z'}),
       (x)-[:MENTIONED_WITH {chunk_ids: ['a#0', 'b#0'], acl: ['management']}]->(y),
       (y)-[:RELATED_TO {chunk_ids: ['a#0', 'c#0'], acl: ['sales', 'all']}]->(z),
       (x)-[:RELATED_TO {chunk_ids: ['c#0'], acl: ['sales']}]->(z)`, nil); err != nil {
		t.Fatal(err)
	}
	relations := func(s *Store) string {
		t.Helper()
		res, err := s.run(ctx, `MATCH (a:Entity)-[r]->(b:Entity) RETURN a.key + '-' + type(r) + '->' + b.key AS rel, r.acl AS acl ORDER BY rel`, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Records {
			out = append(out, fmt.Sprint(str(get(r, "rel")), " ", sortedStrs(get(r, "acl"))))
		}
		return strings.Join(out, "; ")
	}
	broken := "x-MENTIONED_WITH->y [management]; x-RELATED_TO->z [sales]; y-RELATED_TO->z [all sales]"
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if got := relations(s); got != broken {
		t.Errorf("the Store that already checked scanned again: %s", got)
	}
	// Another program opens the namespace.
	other, err := Open(ctx, Config{URI: testenv.Neo4jURI(), User: testenv.Neo4jUser(), Password: testenv.Neo4jPassword(), Namespace: s.Namespace()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if err := other.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	want := "x-MENTIONED_WITH->y [all management]; x-RELATED_TO->z [sales]; y-RELATED_TO->z [all sales]"
	if got := relations(other); got != want {
		t.Errorf("after a new Store's EnsureSchema: %s\nwant %s", got, want)
	}
}
