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
