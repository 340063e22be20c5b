package vector

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// TestErrorMapping drives the real Weaviate client against a server that answers every status a
// Weaviate (or a proxy in front of it) may send, and checks the sentinel each one becomes, that
// transient ones are retryable and carry Retry-After, and that connection refused is unavailable.
func TestErrorMapping(t *testing.T) {
	tests := []struct {
		status     int
		retryAfter string
		want       error
		transient  bool
		wantWait   time.Duration
	}{
		{400, "", ariadne.ErrInvalid, false, 0},
		{401, "", ariadne.ErrUnauthorized, false, 0},
		{403, "", ariadne.ErrUnauthorized, false, 0},
		{404, "", nil, false, 0}, // a missing class is "nothing ingested": Count is 0, no error
		{408, "", ariadne.ErrUnavailable, true, 0},
		{422, "", ariadne.ErrInvalid, false, 0},
		{429, "7", ariadne.ErrUnavailable, true, 7 * time.Second},
		{500, "", ariadne.ErrUnavailable, true, 0},
		{503, "2", ariadne.ErrUnavailable, true, 2 * time.Second},
	}
	for _, tc := range tests {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/.well-known/ready") {
					return
				}
				if tc.retryAfter != "" {
					w.Header().Set("Retry-After", tc.retryAfter)
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(`{"error":[{"message":"scripted"}]}`))
			}))
			defer srv.Close()
			s, err := Open(context.Background(), Config{URL: srv.URL, Class: "Chunk"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Count(context.Background())
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Count: %v, want no error", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Count: %v, want %v", err, tc.want)
			}
			if got := retry.Transient(err); got != tc.transient {
				t.Errorf("Transient = %v, want %v", got, tc.transient)
			}
			var he *retry.HTTPStatusError
			if tc.transient && (!errors.As(err, &he) || he.StatusCode != tc.status || he.RetryAfter != tc.wantWait) {
				t.Errorf("HTTPStatusError = %+v, want status %d Retry-After %s", he, tc.status, tc.wantWait)
			}
		})
	}
	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		_, err = Open(context.Background(), Config{URL: "http://" + addr, Timeout: time.Second})
		if !errors.Is(err, ariadne.ErrUnavailable) || !retry.Transient(err) {
			t.Fatalf("Open on a closed port: %v, want a transient ErrUnavailable", err)
		}
	})
}
