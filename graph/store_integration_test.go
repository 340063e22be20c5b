package graph

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne/internal/testenv"
)

// openTestStore connects to the real Neo4j of deploy/local.sh, or skips/fails (see testenv).
func openTestStore(t *testing.T) *Store {
	t.Helper()
	testenv.Need(t, "Neo4j", func(ctx context.Context) error {
		s, err := Open(ctx, Config{URI: testenv.Neo4jURI(), User: testenv.Neo4jUser(), Password: testenv.Neo4jPassword()})
		if err != nil {
			return err
		}
		return s.Close(ctx)
	})
	s, err := Open(context.Background(), Config{URI: testenv.Neo4jURI(), User: testenv.Neo4jUser(), Password: testenv.Neo4jPassword()})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// openNamespaced opens a store in a namespace of its own (T<time><suffix>), dropped at the end.
func openNamespaced(t *testing.T, suffix string) *Store {
	t.Helper()
	openTestStore(t) // skips or fails (testenv) when Neo4j is down
	ns := fmt.Sprintf("T%d%s", time.Now().UnixNano()%1e9, suffix)
	s, err := Open(context.Background(), Config{URI: testenv.Neo4jURI(), User: testenv.Neo4jUser(), Password: testenv.Neo4jPassword(), Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.DropNamespace(context.Background()); s.Close(context.Background()) })
	return s
}

func TestIntegrationBoltRoundTrip(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	marker := fmt.Sprintf("roundtrip-%d", time.Now().UnixNano())
	t.Cleanup(func() {
		s.run(context.Background(), `MATCH (n:AriadneSmoke {marker: $marker}) DETACH DELETE n`, map[string]any{"marker": marker})
	})
	if _, err := s.run(ctx, `CREATE (:AriadneSmoke {marker: $marker, name: $name, n: $n})`,
		map[string]any{"marker": marker, "name": "Омега-Логистик / Omega Logistic", "n": 42}); err != nil {
		t.Fatalf("write: %v", err)
	}
	res, err := s.run(ctx, `MATCH (n:AriadneSmoke {marker: $marker}) RETURN n.name AS name, n.n AS n`,
		map[string]any{"marker": marker})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if len(res.Records) != 1 {
		t.Fatalf("read %d records, want 1", len(res.Records))
	}
	name, _ := res.Records[0].Get("name")
	n, _ := res.Records[0].Get("n")
	if name != "Омега-Логистик / Omega Logistic" || n != int64(42) {
		t.Fatalf("read back name=%v n=%v, want the Cyrillic/Latin name and 42", name, n)
	}
}

func TestIntegrationNeo4jBrowserServed(t *testing.T) {
	url := testenv.Neo4jHTTP() + "/browser/"
	testenv.Need(t, "Neo4j HTTP", testenv.HTTPGet(testenv.Neo4jHTTP()))
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d, want 200", url, resp.StatusCode)
	}
	if !strings.Contains(strings.ToLower(string(body)), "neo4j browser") {
		t.Fatalf("GET %s: body does not look like Neo4j Browser: %.200s", url, body)
	}
}

// TestIntegrationSourcesMigration: documents stored before sources become the default source's
// in EnsureSchema; ClaimDocuments reports ids another source holds and leaves them alone; Sources
// counts only what the caller may read and omits a source with nothing readable.
func TestIntegrationSourcesMigration(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "src")
	// A graph from before sources: documents with chunks and no source property.
	if _, err := s.run(ctx, `
CREATE (d:Document {id: 'old/public', acl: ['all'], content_hash: 'h1'})-[:HAS_CHUNK]->(:Chunk {id: 'old/public#0', acl: ['all']}),
       (d)-[:HAS_CHUNK]->(:Chunk {id: 'old/public#1', acl: ['all']}),
       (m:Document {id: 'old/board', acl: ['management'], content_hash: 'h2'})-[:HAS_CHUNK]->(:Chunk {id: 'old/board#0', acl: ['management']})`, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	states, err := s.DocumentStates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if states["old/public"].Source != "default" || states["old/board"].Source != "default" {
		t.Errorf("migrated states %+v", states)
	}
	conflicts, err := s.ClaimDocuments(ctx, "wiki", []string{"old/public", "wiki/new"})
	if err != nil {
		t.Fatal(err)
	}
	if len(conflicts) != 1 || conflicts[0].DocID != "old/public" || conflicts[0].Source != "default" {
		t.Errorf("conflicts %+v", conflicts)
	}
	if again, err := s.ClaimDocuments(ctx, "wiki", []string{"wiki/new"}); err != nil || len(again) != 0 {
		t.Errorf("claiming its own id again: %v %v", again, err)
	}
	if err := s.MarkSourceSynced(ctx, "default"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		groups []string
		want   string
	}{
		{[]string{"all"}, "default:1/2"},
		{[]string{"management"}, "default:1/1"},
		{[]string{"all", "management"}, "default:2/3"},
		{[]string{"sales"}, ""},
	} {
		srcs, err := s.Sources(ctx, tc.groups)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range srcs {
			got = append(got, fmt.Sprintf("%s:%d/%d", x.Name, x.Documents, x.Chunks))
			if x.LastSync != "" { // documents written before written_at was kept: no time, not the run's
				t.Errorf("%s: last sync %q from a run, want none for documents without a write time", x.Name, x.LastSync)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("groups %v: sources %v, want %q", tc.groups, got, tc.want)
		}
	}
}
