package graph_test

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// begins records the BEGIN messages the driver sends (each transaction starts with one; its
// metadata carries "mode":"r" for a read transaction and no mode for a write).
type begins struct {
	mu   sync.Mutex
	msgs []string
}

func (b *begins) LogClientMessage(_ string, msg string, args ...any) {
	if strings.HasPrefix(msg, "BEGIN") {
		b.mu.Lock()
		b.msgs = append(b.msgs, fmt.Sprintf(msg, args...))
		b.mu.Unlock()
	}
}

func (b *begins) LogServerMessage(string, string, ...any) {}

// take returns the BEGIN messages since the last call.
func (b *begins) take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.msgs
	b.msgs = nil
	return out
}

// routingURI is the test Neo4j's Bolt URI with the neo4j:// routing scheme: the driver asks the
// server for a routing table (a single server lists itself as router, reader and writer).
func routingURI(t *testing.T) string {
	u := testenv.Neo4jURI()
	rest, ok := strings.CutPrefix(u, "bolt://")
	if !ok {
		t.Skipf("ARIADNE_NEO4J_URI %s is not bolt://; this test derives a neo4j:// URI from it", u)
	}
	return "neo4j://" + rest
}

// TestIntegrationNeo4jRoutingReads indexes the test corpus over bolt://, then runs every read
// path of the API over neo4j:// and checks that each gives the same values as over bolt:// and
// runs only in read transactions (so a Neo4j cluster or Aura serves it from a reader), while a
// write runs in a write transaction.
func TestIntegrationNeo4jRoutingReads(t *testing.T) {
	rig := testrig.New(t, "../internal/testrig/testdata/kb")
	ctx := context.Background()
	log := &begins{}
	rs, err := graph.Open(ctx, graph.Config{URI: routingURI(t), User: testenv.Neo4jUser(), Password: testenv.Neo4jPassword(),
		Namespace: rig.Graph.Namespace(), BoltLogger: log})
	if err != nil {
		t.Fatalf("open over neo4j://: %v", err)
	}
	t.Cleanup(func() { rs.Close(context.Background()) })
	bs := rig.Graph
	groups := []string{ariadne.PublicGroup}

	// check runs one read path over both schemes: equal non-empty values, only read transactions.
	check := func(name string, read func(*graph.Store) (any, error)) any {
		t.Helper()
		log.take()
		got, err := read(rs)
		if err != nil {
			t.Fatalf("%s over neo4j://: %v", name, err)
		}
		msgs := log.take()
		want, err := read(bs)
		if err != nil {
			t.Fatalf("%s over bolt://: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: neo4j:// gave %v, bolt:// %v", name, got, want)
		}
		if v := reflect.ValueOf(got); (v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.Len() == 0 {
			t.Errorf("%s: empty result; the test corpus should give one", name)
		}
		if len(msgs) == 0 {
			t.Errorf("%s: no transaction seen in the Bolt log", name)
		}
		for _, m := range msgs {
			if !strings.Contains(m, `"mode":"r"`) {
				t.Errorf("%s: transaction not in read mode: %s", name, m)
			}
		}
		return got
	}

	docs := check("Documents", func(s *graph.Store) (any, error) {
		d, _, err := s.Documents(ctx, groups, 5, 0)
		return d, err
	}).([]ariadne.DocumentInfo)
	docID := docs[0].ID
	chunks := check("Document", func(s *graph.Store) (any, error) {
		_, c, err := s.Document(ctx, docID, groups)
		return c, err
	}).([]ariadne.Chunk)
	check("DocumentACL", func(s *graph.Store) (any, error) {
		acl, _, err := s.DocumentACL(ctx, docID)
		return acl, err
	})
	check("DocumentChunkIDs", func(s *graph.Store) (any, error) { return s.DocumentChunkIDs(ctx, []string{docID}, groups) })
	ids := []string{chunks[0].ID}
	check("Chunks", func(s *graph.Store) (any, error) { return s.Chunks(ctx, ids, groups) })

	// Entities: those the most connected documents' chunks mention, until one has edges.
	var keys []string
	var edges []ariadne.Edge
	for _, d := range docs {
		_, cs, err := bs.Document(ctx, d.ID, groups)
		if err != nil {
			t.Fatal(err)
		}
		var cids []string
		for _, c := range cs {
			cids = append(cids, c.ID)
		}
		byChunk, err := bs.EntitiesOfChunks(ctx, cids, groups)
		if err != nil {
			t.Fatal(err)
		}
		for _, ks := range byChunk {
			keys = append(keys, ks...)
		}
		if edges, err = bs.Edges(ctx, keys, groups, nil, 50); err != nil {
			t.Fatal(err)
		}
		if len(edges) > 0 {
			ids = cids
			break
		}
	}
	if len(edges) == 0 {
		t.Fatal("no entity of the first documents has an edge")
	}
	// One order, and a smaller limit keeps a subset: the same edges however Neo4j's rows arrive.
	if !slices.IsSortedFunc(edges, func(a, b ariadne.Edge) int {
		return cmp.Or(cmp.Compare(a.From.Key, b.From.Key), cmp.Compare(a.To.Key, b.To.Key), cmp.Compare(a.Type, b.Type))
	}) {
		t.Errorf("edges not ordered by their ends' keys and type: %v", edges)
	}
	if len(edges) > 1 {
		fewer, err := bs.Edges(ctx, keys, groups, nil, len(edges)-1)
		if err != nil {
			t.Fatal(err)
		}
		if len(fewer) != len(edges)-1 {
			t.Errorf("limit %d gave %d edges", len(edges)-1, len(fewer))
		}
		for _, e := range fewer {
			if !slices.ContainsFunc(edges, func(x ariadne.Edge) bool { return reflect.DeepEqual(x, e) }) {
				t.Errorf("limit %d gave %v, not among the %d edges of the larger limit", len(edges)-1, e, len(edges))
			}
		}
	}
	from, to := edges[0].From.Key, edges[0].To.Key
	check("EntitiesOfChunks", func(s *graph.Store) (any, error) { return s.EntitiesOfChunks(ctx, ids, groups) })
	check("Edges", func(s *graph.Store) (any, error) { return s.Edges(ctx, keys, groups, nil, 50) })
	ent := check("Entity", func(s *graph.Store) (any, error) { return s.Entity(ctx, from, groups) }).(ariadne.Entity)
	check("EntityCandidates", func(s *graph.Store) (any, error) { return s.EntityCandidates(ctx, ent.Name, groups, 10) })
	check("Paths", func(s *graph.Store) (any, error) {
		return s.Paths(ctx, graph.PathQuery{From: []string{from}, To: []string{to}, MaxHops: 2, Groups: groups})
	})
	check("Expand", func(s *graph.Store) (any, error) {
		return s.Expand(ctx, graph.PathQuery{From: []string{from}, MaxHops: 2, Groups: groups})
	})
	check("Audit", func(s *graph.Store) (any, error) { return s.Audit(ctx) })
	check("QueryReadOnly", func(s *graph.Store) (any, error) {
		return s.QueryReadOnly(ctx, `MATCH (d:Document) RETURN count(d) AS n`, nil)
	})

	// A write through the same store runs in write transactions (no read mode).
	log.take()
	if err := rs.EnsureSchema(ctx); err != nil {
		t.Fatalf("EnsureSchema over neo4j://: %v", err)
	}
	msgs := log.take()
	if len(msgs) == 0 {
		t.Error("EnsureSchema: no transaction seen in the Bolt log")
	}
	for _, m := range msgs {
		if strings.Contains(m, `"mode":"r"`) {
			t.Errorf("EnsureSchema: write transaction in read mode: %s", m)
		}
	}
}
