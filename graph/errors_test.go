package graph

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"
	"github.com/sony/gobreaker/v2"

	"github.com/ariadne-graphrag/ariadne"
)

// TestTranslate maps the errors the Neo4j driver returns for each class of fault — the Bolt
// analogues of HTTP 400/401/404/408/422/429/500/503 and connection refused — to one sentinel.
func TestTranslate(t *testing.T) {
	neo := func(code string) error { return &neo4j.Neo4jError{Code: code, Msg: "scripted"} }
	tests := []struct {
		name    string
		err     error
		want    error
		message string // a part of the message that tells the operator what to do
	}{
		{"400 syntax", neo("Neo.ClientError.Statement.SyntaxError"), ariadne.ErrInvalid, ""},
		{"401 login", neo("Neo.ClientError.Security.Unauthorized"), ariadne.ErrUnauthorized, "ARIADNE_NEO4J_PASSWORD"},
		{"401 rate-limited login", neo("Neo.ClientError.Security.AuthenticationRateLimit"), ariadne.ErrUnauthorized, "ARIADNE_NEO4J_PASSWORD"},
		{"404 database", neo("Neo.ClientError.Database.DatabaseNotFound"), ariadne.ErrInvalid, "ARIADNE_NEO4J_DATABASE"},
		{"408 deadline", context.DeadlineExceeded, ariadne.ErrUnavailable, ""},
		{"422 constraint", neo("Neo.ClientError.Schema.ConstraintValidationFailed"), ariadne.ErrInvalid, ""},
		{"429 resource exhaustion", neo("Neo.TransientError.General.MemoryPoolOutOfMemoryError"), ariadne.ErrUnavailable, ""},
		{"500 database error", neo("Neo.DatabaseError.General.UnknownError"), ariadne.ErrUnavailable, ""},
		{"503 database unavailable", neo("Neo.TransientError.General.DatabaseUnavailable"), ariadne.ErrUnavailable, ""},
		{"503 leader switch", neo("Neo.ClientError.Cluster.NotALeader"), ariadne.ErrUnavailable, ""},
		{"connection refused", &neo4j.ConnectivityError{Inner: syscall.ECONNREFUSED}, ariadne.ErrUnavailable, ""},
		{"usage", &neo4j.UsageError{Message: "bad"}, ariadne.ErrInvalid, ""},
		{"retries exhausted", &neo4j.TransactionExecutionLimit{Cause: "timeout", Errors: []error{neo("Neo.TransientError.Transaction.DeadlockDetected")}}, ariadne.ErrUnavailable, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := translate("op", tc.err)
			if !errors.Is(got, tc.want) {
				t.Fatalf("translate(%v) = %v, want %v", tc.err, got, tc.want)
			}
			for _, other := range []error{ariadne.ErrInvalid, ariadne.ErrUnauthorized, ariadne.ErrUnavailable} {
				if other != tc.want && errors.Is(got, other) {
					t.Errorf("translate(%v) is also %v", tc.err, other)
				}
			}
			if tc.message != "" && !strings.Contains(got.Error(), tc.message) {
				t.Errorf("message %q does not mention %s", got, tc.message)
			}
		})
	}
	if translate("op", nil) != nil {
		t.Error("translate(nil) != nil")
	}
}

// TestReadBreaker: a read that finds Neo4j unreachable (after the driver's retries) opens the
// read breaker, so the next read fails at once with ErrUnavailable and says why, without
// contacting the server; after the open interval one read probes the server again.
func TestReadBreaker(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	driver, err := neo4j.NewDriverWithContext("bolt://"+addr, neo4j.NoAuth(), func(c *config.Config) {
		c.MaxTransactionRetryTime = 200 * time.Millisecond
	})
	if err != nil {
		t.Fatal(err)
	}
	defer driver.Close(context.Background())
	opened := 0
	s := &Store{driver: driver, names: namespaceNames("")}
	s.reads.Store(newReadBreaker(300*time.Millisecond, func() { opened++ }))
	ctx := context.Background()
	_, err = s.read(ctx, "RETURN 1", nil)
	if err = translate("first read", err); !errors.Is(err, ariadne.ErrUnavailable) || errors.Is(err, errReadsOpen) {
		t.Fatalf("first read: %v, want unreachable (not the breaker)", err)
	}
	if s.reads.Load().State() != gobreaker.StateOpen || opened != 1 {
		t.Fatalf("breaker %v after an unreachable read, opened %d times; want open, once", s.reads.Load().State(), opened)
	}
	_, err = s.read(ctx, "RETURN 1", nil)
	if err = translate("second read", err); !errors.Is(err, ariadne.ErrUnavailable) || !errors.Is(err, errReadsOpen) {
		t.Fatalf("second read: %v, want the breaker's refusal", err)
	}
	time.Sleep(350 * time.Millisecond)
	if s.reads.Load().State() != gobreaker.StateHalfOpen {
		t.Fatalf("breaker %v after its open interval, want half-open", s.reads.Load().State())
	}
	_, err = s.read(ctx, "RETURN 1", nil) // the probe: still refused, so open again
	if err = translate("probe", err); !errors.Is(err, ariadne.ErrUnavailable) || errors.Is(err, errReadsOpen) || s.reads.Load().State() != gobreaker.StateOpen {
		t.Fatalf("probe: %v, breaker %v; want unreachable and open again", err, s.reads.Load().State())
	}
	if opened != 2 {
		t.Fatalf("breaker opened %d times, want 2 (the failed probe opens it again)", opened)
	}
	// With the driver set to retry for a minute, the probe cuts the first read short.
	slow, err := neo4j.NewDriverWithContext("bolt://"+addr, neo4j.NoAuth(), func(c *config.Config) {
		c.MaxTransactionRetryTime = time.Minute
	})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close(context.Background())
	s = &Store{driver: slow, names: namespaceNames("")}
	s.reads.Store(newReadBreaker(time.Minute, nil))
	start := time.Now()
	_, err = s.read(ctx, "RETURN 1", nil)
	if err = translate("probed read", err); !errors.Is(err, ariadne.ErrUnavailable) || errors.Is(err, errReadsOpen) ||
		s.reads.Load().State() != gobreaker.StateOpen || time.Since(start) > 30*time.Second {
		t.Fatalf("probed read: %v after %s, breaker %v; want unreachable before the driver's minute of retries, and open", err, time.Since(start), s.reads.Load().State())
	}
	// A cancelled request says nothing about the server: it does not open a closed breaker.
	s.reads.Store(newReadBreaker(time.Minute, nil))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err = s.read(cctx, "RETURN 1", nil); err == nil || s.reads.Load().State() != gobreaker.StateClosed {
		t.Fatalf("cancelled read: %v, breaker %v; want an error and closed", err, s.reads.Load().State())
	}
}
