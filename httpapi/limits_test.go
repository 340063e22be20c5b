package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
)

// gateAnswerer holds every question until release is closed, and says when each one started.
type gateAnswerer struct {
	started chan struct{}
	release chan struct{}
}

func (g *gateAnswerer) Answer(ctx context.Context, _ agent.Request, _ func(agent.Event)) (agent.Answer, error) {
	g.started <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	return agent.Answer{Status: ariadne.StatusNotFound}, nil
}

func limitsEngine(t *testing.T, ans Answerer, lim Limits) *httptest.Server {
	t.Helper()
	keys, err := ParseKeys([]byte(testKeys))
	if err != nil {
		t.Fatal(err)
	}
	g := &fakeGraph{}
	e := New(Services{Answerer: ans, Retriever: &fakeRetriever{}, Entities: g, Library: g, Documents: &fakeDocuments{}, Keys: keys,
		Ready:   func(context.Context) map[string]Check { return map[string]Check{"neo4j": {OK: true}} },
		Metrics: NewMetrics(), Log: slog.New(slog.NewTextHandler(&LockedLog{}, nil))}, lim)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv
}

func send(t *testing.T, srv *httptest.Server, method, path, key, body string) (*http.Response, string) {
	t.Helper()
	r := &rig{srv: srv}
	ctype := ""
	if body != "" {
		ctype = "application/json"
	}
	return r.do(t, method, path, key, ctype, body)
}

// TestConcurrencyLimitSheds: with 2 query slots, a third question waits QueueWait and is then
// refused with 503 overloaded, Retry-After and the JSON error shape — while the probes and the
// other route classes still answer; once the slots are free, questions are answered again.
func TestConcurrencyLimitSheds(t *testing.T) {
	gate := &gateAnswerer{started: make(chan struct{}, 8), release: make(chan struct{})}
	srv := limitsEngine(t, gate, Limits{QueryConcurrency: 2, QueueWait: 50 * time.Millisecond})
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(srv.URL+"/v1/query", "application/json", strings.NewReader(`{"question":"who?"}`))
			if err == nil {
				codes[i] = resp.StatusCode
				resp.Body.Close()
			}
		}()
	}
	<-gate.started
	<-gate.started

	start := time.Now()
	resp, body := send(t, srv, "POST", "/v1/query", "", `{"question":"one more?"}`)
	waited := time.Since(start)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("third query: %d Retry-After %q %s, want 503 with Retry-After 1", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if code, msg := errorOf(t, body); code != "overloaded" || !strings.Contains(msg, "limit of 2 concurrent requests") {
		t.Errorf("error %q %q", code, msg)
	}
	if waited < 50*time.Millisecond || waited > 2*time.Second {
		t.Errorf("shed after %s, want just over the 50ms queue wait", waited)
	}
	// Search shares the query slots; reads and probes have their own.
	if resp, _ := send(t, srv, "POST", "/v1/search", "", `{"question":"x"}`); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("search while queries are full: %d, want 503", resp.StatusCode)
	}
	for _, p := range []string{"/healthz", "/readyz", "/v1/documents"} {
		if resp, body := send(t, srv, "GET", p, "", ""); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s while queries are full: %d %s", p, resp.StatusCode, body)
		}
	}
	close(gate.release)
	wg.Wait()
	if codes[0] != 200 || codes[1] != 200 {
		t.Errorf("the admitted queries answered %v, want 200 200", codes)
	}
	if resp, body := send(t, srv, "POST", "/v1/query", "", `{"question":"again?"}`); resp.StatusCode != http.StatusOK {
		t.Errorf("after the slots freed: %d %s", resp.StatusCode, body)
	}
}

// TestConcurrencyLimitWaits: a request that finds the slots full but gets one within QueueWait
// is served, not refused.
func TestConcurrencyLimitWaits(t *testing.T) {
	gate := &gateAnswerer{started: make(chan struct{}, 8), release: make(chan struct{})}
	srv := limitsEngine(t, gate, Limits{QueryConcurrency: 1, QueueWait: 3 * time.Second})
	done := make(chan int)
	go func() {
		resp, err := http.Post(srv.URL+"/v1/query", "application/json", strings.NewReader(`{"question":"first"}`))
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	<-gate.started
	time.AfterFunc(100*time.Millisecond, func() { close(gate.release) })
	if resp, body := send(t, srv, "POST", "/v1/query", "", `{"question":"second"}`); resp.StatusCode != http.StatusOK {
		t.Errorf("second query: %d %s, want 200 after waiting for the slot", resp.StatusCode, body)
	}
	if c := <-done; c != http.StatusOK {
		t.Errorf("first query: %d", c)
	}
}

// TestRateLimitPerKey: 1 request/s with bursts of 2 — the third request of one key in a burst is
// 429 rate_limited with Retry-After 1, while another key and the anonymous caller have buckets of
// their own.
func TestRateLimitPerKey(t *testing.T) {
	srv := limitsEngine(t, &fakeAnswerer{}, Limits{RatePerKey: 1, RateBurst: 2})
	var got []int
	for range 3 {
		resp, _ := send(t, srv, "GET", "/v1/documents", "reader-key", "")
		got = append(got, resp.StatusCode)
	}
	resp, body := send(t, srv, "GET", "/v1/documents", "reader-key", "")
	if want := []int{200, 200, 429}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("reader's burst: %v, want %v", got, want)
	}
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("over the rate: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if code, _ := errorOf(t, body); code != "rate_limited" {
		t.Errorf("code %q, want rate_limited", code)
	}
	for _, key := range []string{"writer-key", ""} {
		if resp, body := send(t, srv, "GET", "/v1/documents", key, ""); resp.StatusCode != http.StatusOK {
			t.Errorf("key %q after the reader's burst: %d %s", key, resp.StatusCode, body)
		}
	}
	// An unknown key is rejected by authentication before it takes a token.
	if resp, _ := send(t, srv, "GET", "/v1/documents", "nope", ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("unknown key: %d, want 401", resp.StatusCode)
	}
}

// TestKeyLimiter: the token bucket arithmetic on a fixed clock.
func TestKeyLimiter(t *testing.T) {
	k := newKeyLimiter(2, 3) // 2/s, burst 3
	t0 := time.Unix(1_700_000_000, 0)
	steps := []struct {
		at    time.Duration
		key   string
		ok    bool
		retry time.Duration
	}{
		{0, "a", true, 0},
		{0, "a", true, 0},
		{0, "a", true, 0},
		{0, "a", false, 500 * time.Millisecond}, // empty: one token every 500ms
		{0, "b", true, 0},                       // another key has its own bucket
		{250 * time.Millisecond, "a", false, 250 * time.Millisecond},
		{500 * time.Millisecond, "a", true, 0}, // the refused calls took nothing
		{500 * time.Millisecond, "a", false, 500 * time.Millisecond},
		{2 * time.Minute, "a", true, 0}, // refilled; idle buckets swept
	}
	for i, s := range steps {
		ok, retry := k.reserve(s.key, t0.Add(s.at))
		if ok != s.ok || retry != s.retry {
			t.Errorf("step %d (%s at %s): ok=%v retry=%s, want ok=%v retry=%s", i, s.key, s.at, ok, retry, s.ok, s.retry)
		}
	}
	if len(k.buckets) != 1 {
		t.Errorf("%d buckets after the sweep, want 1 (b was idle for over a minute)", len(k.buckets))
	}
}
