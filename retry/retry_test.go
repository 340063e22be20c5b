package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"2", 2 * time.Second},
		{" 120 ", 2 * time.Minute},
		{"-1", 0},
		{"soon", 0},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
	}
	for _, tc := range tests {
		if got := ParseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestTransient(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"429", &HTTPStatusError{StatusCode: 429}, true},
		{"503 wrapped", fmt.Errorf("embed: %w", &HTTPStatusError{StatusCode: 503}), true},
		{"400", &HTTPStatusError{StatusCode: 400}, false},
		{"refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{"unavailable sentinel", fmt.Errorf("graph: %w", ariadne.ErrUnavailable), true},
		{"eof", io.ErrUnexpectedEOF, true},
		{"canceled", context.Canceled, false},
		{"invalid", ariadne.ErrInvalid, false},
		{"permanent unavailable", fmt.Errorf("agent: %w", Permanent(fmt.Errorf("index: %w", ariadne.ErrUnavailable))), false},
		{"permanent 503", Permanent(&HTTPStatusError{StatusCode: 503}), false},
	}
	for _, tc := range tests {
		if got := Transient(tc.err); got != tc.want {
			t.Errorf("%s: Transient = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDoReturnsPermanentAtOnce(t *testing.T) {
	calls := 0
	cause := fmt.Errorf("index being repaired: %w", ariadne.ErrUnavailable)
	err := Do(context.Background(), Policy{Initial: time.Millisecond, MaxAttempts: 5},
		func(context.Context) error { calls++; return Permanent(cause) }, nil)
	if calls != 1 || !errors.Is(err, ariadne.ErrUnavailable) || err.Error() != cause.Error() {
		t.Fatalf("calls=%d err=%v; want 1 call and the cause, still unavailable", calls, err)
	}
	if Permanent(nil) != nil {
		t.Fatal("Permanent(nil) is not nil")
	}
}

func TestDoRetriesTransientThenSucceeds(t *testing.T) {
	calls := 0
	var waits []time.Duration
	err := Do(context.Background(), Policy{Initial: time.Millisecond, Max: 5 * time.Millisecond, MaxAttempts: 5},
		func(context.Context) error {
			calls++
			if calls < 3 {
				return &HTTPStatusError{StatusCode: 502}
			}
			return nil
		}, func(a Attempt) { waits = append(waits, a.Wait) })
	if err != nil || calls != 3 || len(waits) != 2 {
		t.Fatalf("err=%v calls=%d waits=%v, want success on call 3 after 2 waits", err, calls, waits)
	}
}

func TestDoFailsFastOnPermanentError(t *testing.T) {
	calls := 0
	err := Do(context.Background(), Policy{Initial: time.Millisecond}, func(context.Context) error {
		calls++
		return fmt.Errorf("bad request: %w", ariadne.ErrInvalid)
	}, nil)
	if calls != 1 || !errors.Is(err, ariadne.ErrInvalid) {
		t.Fatalf("calls=%d err=%v, want one call and ErrInvalid", calls, err)
	}
}

func TestDoGivesUpAfterMaxAttempts(t *testing.T) {
	calls := 0
	err := Do(context.Background(), Policy{Initial: time.Millisecond, Max: time.Millisecond, MaxAttempts: 3},
		func(context.Context) error { calls++; return fmt.Errorf("store: %w", ariadne.ErrUnavailable) }, nil)
	if calls != 3 || !errors.Is(err, ariadne.ErrUnavailable) {
		t.Fatalf("calls=%d err=%v, want 3 calls and ErrUnavailable", calls, err)
	}
}

func TestDoHonoursRetryAfter(t *testing.T) {
	calls := 0
	var wait time.Duration
	start := time.Now()
	err := Do(context.Background(), Policy{Initial: time.Millisecond, Max: 10 * time.Millisecond, MaxAttempts: 3},
		func(context.Context) error {
			calls++
			if calls == 1 {
				return &HTTPStatusError{StatusCode: 429, RetryAfter: 1 * time.Second}
			}
			return nil
		}, func(a Attempt) { wait = a.Wait })
	if err != nil || calls != 2 {
		t.Fatalf("err=%v calls=%d", err, calls)
	}
	if wait < time.Second || time.Since(start) < time.Second {
		t.Fatalf("waited %v (loop %v), want at least the 1s Retry-After", wait, time.Since(start))
	}
}

func TestDoStopsWhenRetryAfterExceedsBudget(t *testing.T) {
	calls := 0
	err := Do(context.Background(), Policy{Initial: time.Millisecond, MaxElapsed: 500 * time.Millisecond},
		func(context.Context) error {
			calls++
			return &HTTPStatusError{StatusCode: 429, RetryAfter: 10 * time.Second}
		}, nil)
	var he *HTTPStatusError
	if calls != 1 || !errors.As(err, &he) {
		t.Fatalf("calls=%d err=%v, want an immediate stop with the 429", calls, err)
	}
}

func TestDoIsCancelledByContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := Do(ctx, Policy{Initial: 20 * time.Millisecond, Max: 20 * time.Millisecond, MaxAttempts: 100, MaxElapsed: time.Minute},
		func(context.Context) error { return &HTTPStatusError{StatusCode: 503} }, nil)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Fatalf("err=%v after %v, want DeadlineExceeded promptly", err, time.Since(start))
	}
}
