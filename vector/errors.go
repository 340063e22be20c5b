package vector

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/fault"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// wrap translates a client error into Ariadne's sentinels, once, at the boundary:
//
//   - no response at all (refused, reset, timeout), 408, 429 and 5xx are ErrUnavailable, carried
//     as a retry.HTTPStatusError with the server's Retry-After (so the one retrying layer,
//     package retry, waits as long as Weaviate asks);
//   - 401 and 403 are ErrUnauthorized (Ariadne's Weaviate API key is wrong or missing), and so is
//     a gRPC call (batch writes) that Weaviate refused for its key (authRefused);
//   - every other 4xx is ErrInvalid (the request Ariadne sent was wrong).
//
// ctx is the context the call ran with, for the Retry-After its responses carried.
func (s *Store) wrap(ctx context.Context, op string, err error) error {
	var we *fault.WeaviateClientError
	status := 0
	if errors.As(err, &we) {
		status = we.StatusCode
		// The client wraps the server's status one level down for some calls (GraphQL).
		var inner *fault.WeaviateClientError
		if status <= 0 && errors.As(we.DerivedFromError, &inner) && inner.StatusCode > 0 {
			status = inner.StatusCode
		}
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden || (status <= 0 && authRefused(err)):
		return fmt.Errorf("vector: %s: %s: %w", op, keyRejected, errors.Join(ariadne.ErrUnauthorized, err))
	case status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500:
		he := &retry.HTTPStatusError{Service: "weaviate " + op, StatusCode: status, RetryAfter: retryAfterOf(ctx)}
		return fmt.Errorf("vector: %s: %w", op, errors.Join(ariadne.ErrUnavailable, he, err))
	case status >= 400:
		return fmt.Errorf("vector: %s: %w", op, errors.Join(ariadne.ErrInvalid, err))
	}
	return fmt.Errorf("vector: %s: %w", op, errors.Join(ariadne.ErrUnavailable, err))
}

// retryAfterKey keys the holder of the last Retry-After a call's responses carried.
type retryAfterKey struct{}

// withRetryAfter returns ctx with a holder that the transport fills with the Retry-After of the
// responses of calls made with it.
func withRetryAfter(ctx context.Context) context.Context {
	return context.WithValue(ctx, retryAfterKey{}, new(atomic.Int64))
}

func retryAfterOf(ctx context.Context) time.Duration {
	if h, ok := ctx.Value(retryAfterKey{}).(*atomic.Int64); ok {
		return time.Duration(h.Load())
	}
	return 0
}

// retryAfterTransport records the Retry-After header of 408, 429 and 5xx answers in the request
// context's holder (see withRetryAfter); the Weaviate client does not expose response headers.
type retryAfterTransport struct{ base http.RoundTripper }

func (t retryAfterTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil && (resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500) {
		if h, ok := req.Context().Value(retryAfterKey{}).(*atomic.Int64); ok {
			h.Store(int64(retry.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())))
		}
	}
	return resp, err
}

// noClass reports whether a GraphQL error says the class does not exist (nothing ingested yet).
func noClass(msg string) bool {
	return strings.Contains(msg, "Cannot query field") || strings.Contains(msg, "does not exist")
}
