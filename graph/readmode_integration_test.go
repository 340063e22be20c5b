package graph

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
)

// TestIntegrationReadRefusesWrite proves that the read helper every read path uses opens read
// transactions that the server enforces: over neo4j:// a CREATE through read is refused
// (Neo.ClientError.Statement.AccessMode, ErrInvalid) and creates nothing, while the same
// statement through run (write) succeeds.
func TestIntegrationReadRefusesWrite(t *testing.T) {
	uri, ok := strings.CutPrefix(testenv.Neo4jURI(), "bolt://")
	if !ok {
		t.Skipf("ARIADNE_NEO4J_URI %s is not bolt://", testenv.Neo4jURI())
	}
	cfg := Config{URI: "neo4j://" + uri, User: testenv.Neo4jUser(), Password: testenv.Neo4jPassword(),
		Namespace: fmt.Sprintf("R%d", time.Now().UnixNano()%1e12)}
	testenv.Need(t, "Neo4j", func(ctx context.Context) error {
		s, err := Open(ctx, cfg)
		if err == nil {
			s.Close(ctx)
		}
		return err
	})
	ctx := context.Background()
	s, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.run(context.Background(), `MATCH (n:Document {id: 'read-mode-probe'}) DELETE n`, nil)
		s.Close(context.Background())
	})
	const create = `CREATE (:Document {id: 'read-mode-probe'})`
	_, err = s.read(ctx, create, nil)
	if err == nil || !errors.Is(translate("probe", err), ariadne.ErrInvalid) || !strings.Contains(err.Error(), "AccessMode") {
		t.Fatalf("CREATE in a read transaction: %v; want Neo.ClientError.Statement.AccessMode", err)
	}
	count := func() int {
		res, err := s.read(ctx, `MATCH (n:Document {id: 'read-mode-probe'}) RETURN count(n) AS n`, nil)
		if err != nil {
			t.Fatal(err)
		}
		return toInt(get(res.Records[0], "n"))
	}
	if n := count(); n != 0 {
		t.Fatalf("the refused CREATE left %d nodes", n)
	}
	if _, err := s.run(ctx, create, nil); err != nil {
		t.Fatalf("CREATE in a write transaction: %v", err)
	}
	if n := count(); n != 1 {
		t.Fatalf("after the write: %d nodes, want 1", n)
	}
}
