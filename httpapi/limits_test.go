package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
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
		Metrics: NewMetrics(), Log: slog.New(slog.NewTextHandler(&testenv.LockedLog{}, nil))}, lim)
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

	// peek looks without taking; a refilling bucket is not swept (it would forget a limit).
	slow := newKeyLimiter(1.0/60, 2) // one token a minute
	for i, s := range []struct {
		at        time.Duration
		peek      bool
		ok        bool
		wantRetry time.Duration
	}{
		{0, true, true, 0},  // no bucket yet
		{0, false, true, 0}, // take 1 of 2
		{0, false, true, 0}, // take 2 of 2
		{0, true, false, time.Minute},
		{30 * time.Second, true, false, 30 * time.Second},
		{61 * time.Second, true, true, 0}, // one token back
	} {
		var ok bool
		var retry time.Duration
		if s.peek {
			ok, retry = slow.peek("a", t0.Add(s.at))
		} else {
			ok, retry = slow.reserve("a", t0.Add(s.at))
		}
		if ok != s.ok || retry.Round(time.Second) != s.wantRetry {
			t.Errorf("slow step %d: ok=%v retry=%s, want ok=%v retry=%s", i, ok, retry, s.ok, s.wantRetry)
		}
	}
	slow.reserve("a", t0.Add(61*time.Second))  // empty again
	slow.reserve("b", t0.Add(150*time.Second)) // sweeps: a is idle for 89 s, with 1.5 of 2 tokens
	if _, kept := slow.buckets["a"]; !kept {
		t.Error("a refilling bucket was swept: its caller would get a full bucket back")
	}
	slow.reserve("b", t0.Add(5*time.Minute)) // a is full now
	if _, kept := slow.buckets["a"]; kept {
		t.Error("a full idle bucket was kept")
	}
}

// serveFrom sends one request to e as if from the client address addr, with extra headers.
func serveFrom(e http.Handler, addr, method, path string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	req.RemoteAddr = addr
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	e.ServeHTTP(w, req)
	return w
}

func limitsHandler(t *testing.T, lim Limits) http.Handler {
	t.Helper()
	keys, err := ParseKeys([]byte(testKeys))
	if err != nil {
		t.Fatal(err)
	}
	g := &fakeGraph{}
	return New(Services{Answerer: &fakeAnswerer{}, Retriever: &fakeRetriever{}, Entities: g, Library: g, Documents: &fakeDocuments{}, Keys: keys,
		Metrics: NewMetrics(), Log: slog.New(slog.DiscardHandler)}, lim)
}

// TestFailedAuthLimit: 3 failed authentications a minute per address — the fourth guess, and
// then even the right key, from that address is 429 rate_limited with Retry-After (20 s: one
// token every 60/3 s), while requests without a key and other addresses are served; a forged
// X-Forwarded-For does not give a client a fresh bucket.
func TestFailedAuthLimit(t *testing.T) {
	e := limitsHandler(t, Limits{FailedAuthPerMinute: 3})
	const attacker, other = "192.0.2.1:40000", "192.0.2.2:40000"
	var got []int
	for _, auth := range []string{"Bearer guess-1", "Basic dXNlcjpwYXNz", "Bearer guess-3", "Bearer guess-4"} {
		got = append(got, serveFrom(e, attacker, "GET", "/v1/documents", "Authorization", auth).Code)
	}
	if want := []int{401, 401, 401, 429}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("guesses: %v, want %v", got, want)
	}
	w := serveFrom(e, attacker, "GET", "/v1/documents", "Authorization", "Bearer reader-key")
	if w.Code != 429 || w.Header().Get("Retry-After") != "20" {
		t.Fatalf("the right key after the guesses: %d Retry-After %q, want 429 20", w.Code, w.Header().Get("Retry-After"))
	}
	if code, msg := errorOf(t, w.Body.String()); code != "rate_limited" || msg != failedAuthMessage {
		t.Errorf("%s %q", code, msg)
	}
	if w := serveFrom(e, attacker, "GET", "/v1/documents", "X-Forwarded-For", "203.0.113.9", "Authorization", "Bearer guess-5"); w.Code != 429 {
		t.Errorf("a forged X-Forwarded-For: %d, want 429 (no proxy is trusted)", w.Code)
	}
	if w := serveFrom(e, attacker, "GET", "/v1/documents"); w.Code != 200 {
		t.Errorf("no key from the same address: %d, want 200", w.Code)
	}
	if w := serveFrom(e, other, "GET", "/v1/documents", "Authorization", "Bearer reader-key"); w.Code != 200 {
		t.Errorf("the right key from another address: %d, want 200", w.Code)
	}
	if w := serveFrom(e, other, "GET", "/v1/documents", "Authorization", "Bearer guess"); w.Code != 401 {
		t.Errorf("a guess from another address: %d, want 401", w.Code)
	}

	// Off: every guess is answered.
	e = limitsHandler(t, Limits{FailedAuthPerMinute: -1})
	for i := range 30 {
		if w := serveFrom(e, attacker, "GET", "/v1/documents", "Authorization", "Bearer guess"); w.Code != 401 {
			t.Fatalf("guess %d with the limit off: %d", i, w.Code)
		}
	}
}

// TestTrustedProxies: behind a trusted proxy the client address is the one X-Forwarded-For
// gives, so two clients behind it have buckets of their own; a peer that is not trusted cannot
// set it.
func TestTrustedProxies(t *testing.T) {
	e := limitsHandler(t, Limits{FailedAuthPerMinute: 1, TrustedProxies: []string{"10.0.0.0/8"}})
	const proxy = "10.1.2.3:5555"
	if w := serveFrom(e, proxy, "GET", "/v1/documents", "X-Forwarded-For", "198.51.100.7", "Authorization", "Bearer guess"); w.Code != 401 {
		t.Fatalf("first guess: %d", w.Code)
	}
	if w := serveFrom(e, proxy, "GET", "/v1/documents", "X-Forwarded-For", "198.51.100.7", "Authorization", "Bearer guess"); w.Code != 429 {
		t.Fatalf("second guess of the same client: %d, want 429", w.Code)
	}
	if w := serveFrom(e, proxy, "GET", "/v1/documents", "X-Forwarded-For", "198.51.100.8", "Authorization", "Bearer guess"); w.Code != 401 {
		t.Errorf("another client behind the proxy: %d, want 401", w.Code)
	}
	for _, bad := range []string{"not-an-address", "10.0.0.0/33"} {
		if err := CheckTrustedProxies([]string{"127.0.0.1", "::1", "10.0.0.0/8", bad}); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("CheckTrustedProxies with %q: %v", bad, err)
		}
	}
}

// TestRateLimitAnonymous: anonymous callers are limited per client address (not all in one
// bucket), and told so in words for them.
func TestRateLimitAnonymous(t *testing.T) {
	e := limitsHandler(t, Limits{RatePerKey: 1, RateBurst: 1})
	if w := serveFrom(e, "192.0.2.1:1", "GET", "/v1/documents"); w.Code != 200 {
		t.Fatalf("first: %d", w.Code)
	}
	w := serveFrom(e, "192.0.2.1:1", "GET", "/v1/documents")
	if code, msg := errorOf(t, w.Body.String()); w.Code != 429 || code != "rate_limited" ||
		msg != "too many requests without an API key from this address; retry after the time in Retry-After" {
		t.Fatalf("second: %d %s", w.Code, w.Body.String())
	}
	if w := serveFrom(e, "192.0.2.2:1", "GET", "/v1/documents"); w.Code != 200 {
		t.Errorf("another address: %d, want 200 (a bucket of its own)", w.Code)
	}
	if w := serveFrom(e, "192.0.2.1:1", "GET", "/v1/documents", "Authorization", "Bearer reader-key"); w.Code != 200 {
		t.Errorf("a key from the same address: %d, want 200", w.Code)
	}
	w = serveFrom(e, "192.0.2.3:1", "GET", "/v1/documents", "Authorization", "Bearer reader-key")
	if code, msg := errorOf(t, w.Body.String()); w.Code != 429 || code != "rate_limited" || msg != "too many requests for this API key; retry after the time in Retry-After" {
		t.Errorf("the same key from another address: %d %s", w.Code, w.Body.String())
	}
}
