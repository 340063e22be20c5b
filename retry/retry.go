// Package retry runs operations against flaky dependencies with exponential backoff and jitter
// (github.com/cenkalti/backoff/v4), bounded by a number of attempts and a total deadline and
// cancelled by the caller's context.
//
// Only transient faults are retried: connection refused or reset, timeouts, HTTP 408, 429 and 5xx, and
// errors wrapping ariadne.ErrUnavailable. Everything else fails at once. A server's Retry-After
// (seconds or an HTTP date) is honoured: the next wait is never shorter than it asks.
//
// Retry at one layer only: a caller that retries with this package must not wrap a client that
// already retries the same fault (the Neo4j driver's ExecuteQuery retries its own transient errors).
package retry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/ariadne-graphrag/ariadne"
)

// Policy bounds a retry loop.
type Policy struct {
	Initial     time.Duration // first wait; default 200ms
	Max         time.Duration // cap on one wait; default 5s
	Multiplier  float64       // growth per attempt; default 2
	Jitter      float64       // randomization factor in [0,1): each wait is scaled by 1±Jitter; default 0.5
	MaxAttempts int           // total attempts including the first; default 5; 1 disables retries
	MaxElapsed  time.Duration // total time budget across attempts and waits; default 30s
}

// Default returns the policy used for model and embedding APIs: 5 attempts within 30s.
func Default() Policy {
	return Policy{Initial: 200 * time.Millisecond, Max: 5 * time.Second, Multiplier: 2, Jitter: 0.5,
		MaxAttempts: 5, MaxElapsed: 30 * time.Second}
}

func (p Policy) withDefaults() Policy {
	d := Default()
	if p.Initial <= 0 {
		p.Initial = d.Initial
	}
	if p.Max <= 0 {
		p.Max = d.Max
	}
	if p.Multiplier < 1 {
		p.Multiplier = d.Multiplier
	}
	if p.Jitter < 0 || p.Jitter >= 1 {
		p.Jitter = d.Jitter
	}
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.MaxElapsed <= 0 {
		p.MaxElapsed = d.MaxElapsed
	}
	return p
}

// Attempt describes one failed attempt that will be retried, for logs, metrics and traces.
type Attempt struct {
	Number int           // 1-based number of the attempt that failed
	Err    error         // its error
	Wait   time.Duration // how long the loop waits before the next attempt
}

// HTTPStatusError is a non-2xx answer from an HTTP API, with the server's Retry-After.
type HTTPStatusError struct {
	Service    string // e.g. "openai chat", "ollama embed"
	StatusCode int
	RetryAfter time.Duration // 0 when the server sent none
	Body       string        // the start of the response body, for the error message
}

func (e *HTTPStatusError) Error() string {
	msg := fmt.Sprintf("%s: HTTP %d %s", e.Service, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Transient reports whether the status is worth retrying (408, 429 or 5xx).
func (e *HTTPStatusError) Transient() bool {
	return e.StatusCode == http.StatusRequestTimeout || e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// NewHTTPStatusError builds an HTTPStatusError from a response, reading at most 512 bytes of its
// body and parsing Retry-After relative to now.
func NewHTTPStatusError(service string, resp *http.Response, body []byte, now time.Time) *HTTPStatusError {
	b := strings.TrimSpace(string(body))
	if len(b) > 512 {
		b = b[:512] + "…"
	}
	return &HTTPStatusError{Service: service, StatusCode: resp.StatusCode,
		RetryAfter: ParseRetryAfter(resp.Header.Get("Retry-After"), now), Body: b}
}

// ParseRetryAfter parses a Retry-After header: delay-seconds or an HTTP date. It returns 0 for an
// empty or unparseable value and for dates in the past.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Transient reports whether err is worth retrying: a transient HTTP status, a network error
// (refused, reset, timeout, unreachable), an unexpected EOF from a dropped connection, or an error
// wrapping ariadne.ErrUnavailable. Context cancellation is never transient.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var pe permanentError
	if errors.As(err, &pe) {
		return false
	}
	var he *HTTPStatusError
	if errors.As(err, &he) {
		return he.Transient()
	}
	if errors.Is(err, ariadne.ErrUnavailable) {
		return true
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return true
	}
	// Some clients flatten network errors into strings (gRPC, GraphQL transports).
	msg := err.Error()
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "connection reset") ||
		strings.Contains(msg, "EOF") || strings.Contains(msg, "Unavailable desc")
}

// permanentError marks an error that retrying now cannot fix (see Permanent).
type permanentError struct{ err error }

func (p permanentError) Error() string { return p.err.Error() }
func (p permanentError) Unwrap() error { return p.err }

// Permanent marks err as not worth retrying within one request, whatever it wraps: Transient
// reports false for it, so Do returns it at once. errors.Is and errors.As still see what err
// wraps (ariadne.ErrUnavailable stays a 503 for the API). For a state that lasts longer than a
// retry window, such as a vector index being repaired. Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// Describe names a transient fault in a few words, without addresses or server messages, for
// traces shown to API callers: "connection refused", "HTTP 503", "timeout", "connection reset",
// "unavailable" or "error".
func Describe(err error) string {
	var he *HTTPStatusError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &he):
		return fmt.Sprintf("HTTP %d", he.StatusCode)
	case errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout"):
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "connection refused"):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET) || strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "EOF"):
		return "connection reset"
	case errors.Is(err, ariadne.ErrUnavailable):
		return "unavailable"
	}
	return "error"
}

// retryAfterBackOff wraps an exponential backoff so that the next wait is at least the
// Retry-After of the last error.
type retryAfterBackOff struct {
	backoff.BackOff
	floor time.Duration
}

func (b *retryAfterBackOff) NextBackOff() time.Duration {
	d := b.BackOff.NextBackOff()
	if d == backoff.Stop {
		return d
	}
	if b.floor > d {
		d = b.floor
	}
	b.floor = 0
	return d
}

// Do calls op until it succeeds, returns a non-transient error, the attempts or the time budget
// run out, or ctx is done. notify (may be nil) is called before each wait. The returned error is
// op's last error, wrapped with the attempt count when retries were exhausted; it is ctx.Err()
// joined with the last error when the context ended the loop.
func Do(ctx context.Context, p Policy, op func(context.Context) error, notify func(Attempt)) error {
	p = p.withDefaults()
	exp := backoff.NewExponentialBackOff()
	exp.InitialInterval = p.Initial
	exp.MaxInterval = p.Max
	exp.Multiplier = p.Multiplier
	exp.RandomizationFactor = p.Jitter
	exp.MaxElapsedTime = p.MaxElapsed
	exp.Reset()
	ra := &retryAfterBackOff{BackOff: exp}
	var b backoff.BackOff = ra
	b = backoff.WithMaxRetries(b, uint64(p.MaxAttempts-1))
	b = backoff.WithContext(b, ctx)

	deadline := time.Now().Add(p.MaxElapsed)
	attempt := 0
	var last error
	err := backoff.RetryNotify(func() error {
		attempt++
		err := op(ctx)
		last = err
		if err == nil {
			return nil
		}
		if !Transient(err) {
			return backoff.Permanent(err)
		}
		var he *HTTPStatusError
		if errors.As(err, &he) && he.RetryAfter > 0 {
			if time.Now().Add(he.RetryAfter).After(deadline) {
				// Waiting as asked would overrun the budget: stop now rather than hammer the server.
				return backoff.Permanent(fmt.Errorf("retry-after %s exceeds the remaining budget: %w", he.RetryAfter, err))
			}
			ra.floor = he.RetryAfter
		}
		return err
	}, b, func(err error, wait time.Duration) {
		if notify != nil {
			notify(Attempt{Number: attempt, Err: err, Wait: wait})
		}
	})
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return errors.Join(ctx.Err(), last)
	}
	var perm *backoff.PermanentError
	if errors.As(err, &perm) {
		return perm.Err
	}
	if Transient(err) && attempt > 1 {
		return fmt.Errorf("gave up after %d attempts: %w", attempt, err)
	}
	return err
}
