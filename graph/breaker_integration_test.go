package graph

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/sony/gobreaker/v2"
)

// TestIntegrationPingClosesReadBreaker: with Neo4j unreachable (a stopped proxy in front of the
// real server) a read opens the breaker and the next read is refused by it; once Neo4j answers
// again, a successful Ping closes the breaker, so the next read reaches Neo4j at once instead of
// after the rest of the open interval (a minute here), and the breaker reported the opening once.
func TestIntegrationPingClosesReadBreaker(t *testing.T) {
	host, ok := strings.CutPrefix(testenv.Neo4jURI(), "bolt://")
	if !ok {
		t.Skipf("ARIADNE_NEO4J_URI %s is not bolt://", testenv.Neo4jURI())
	}
	testenv.Need(t, "Neo4j", testenv.TCP(host))
	bolt := testenv.NewProxy(t, host)
	ctx := context.Background()
	s, err := Open(ctx, Config{URI: "bolt://" + bolt.Addr(), User: testenv.Neo4jUser(), Password: testenv.Neo4jPassword(),
		MaxTransactionRetry: time.Second, ReadOpen: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	bolt.Stop()
	if _, err := s.read(ctx, "RETURN 1 AS one", nil); !errors.Is(translate("read", err), ariadne.ErrUnavailable) {
		t.Fatalf("read with Neo4j away: %v, want unavailable", err)
	}
	if _, err := s.read(ctx, "RETURN 1 AS one", nil); !errors.Is(translate("read", err), errReadsOpen) {
		t.Fatalf("second read: %v, want the open breaker's refusal", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, ariadne.ErrUnavailable) || s.reads.Load().State() != gobreaker.StateOpen {
		t.Fatalf("ping with Neo4j away: %v, breaker %v; want unavailable and still open", err, s.reads.Load().State())
	}
	select {
	case <-s.ReadsBroke():
	default:
		t.Fatal("ReadsBroke did not say the breaker opened")
	}
	bolt.Start()
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping with Neo4j back: %v", err)
	}
	res, err := s.read(ctx, "RETURN 1 AS one", nil)
	if err != nil || len(res.Records) != 1 || s.reads.Load().State() != gobreaker.StateClosed {
		t.Fatalf("read after the ping: %v, breaker %v; want a row and closed", err, s.reads.Load().State())
	}
}
