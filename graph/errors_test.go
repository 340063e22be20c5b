package graph

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

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
