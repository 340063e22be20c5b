package ner

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// fake is a sidecar double: it records the requests and answers with handle.
type fake struct {
	mu       sync.Mutex
	requests []request
	handle   func(n int, req request, w http.ResponseWriter)
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/health" {
		w.Write([]byte(`{"status": "ok", "model": "fake-ner 1.0"}`))
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/ner" {
		http.NotFound(w, r)
		return
	}
	var req request
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error": "bad json"}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	n := len(f.requests)
	f.mu.Unlock()
	f.handle(n, req, w)
}

func (f *fake) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// findAll is the fake's "model": every occurrence of each word, with byte offsets.
func findAll(text string, words map[string]string) []wireMention {
	var out []wireMention
	for w, label := range words {
		for i := 0; ; {
			j := strings.Index(text[i:], w)
			if j < 0 {
				break
			}
			out = append(out, wireMention{Start: i + j, End: i + j + len(w), Text: w, Label: label})
			i += j + len(w)
		}
	}
	return out
}

var words = map[string]string{"Екатеринбурге": LOC, "Квазар Лабс": ORG, "Jane Doe": PER}

func answer(w http.ResponseWriter, req request) {
	resp := response{Model: "fake-ner 1.0"}
	for _, t := range req.Texts {
		resp.Results = append(resp.Results, findAll(t, words))
	}
	json.NewEncoder(w).Encode(resp)
}

func fastRetry() retry.Policy {
	return retry.Policy{Initial: time.Millisecond, Max: 2 * time.Millisecond, MaxAttempts: 3, MaxElapsed: 5 * time.Second}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newClient(t *testing.T, f *fake, cfg Config) *Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL
	if (cfg.Retry == retry.Policy{}) {
		cfg.Retry = fastRetry()
	}
	cfg.Logger = quiet()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRecognizeByteOffsets(t *testing.T) {
	f := &fake{handle: func(_ int, req request, w http.ResponseWriter) { answer(w, req) }}
	c := newClient(t, f, Config{})
	if !strings.HasPrefix(c.Name(), "ner:http://127.0.0.1:") {
		t.Errorf("Name before a call = %q", c.Name())
	}
	texts := []string{"ООО «Квазар Лабс» открыло офис в Екатеринбурге.", "", "Jane Doe 🦔 met nobody."}
	got, err := c.Recognize(context.Background(), texts, Detect)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1] == nil || len(got[1]) != 0 {
		t.Fatalf("results = %#v", got)
	}
	var seen []string
	for i, ms := range got {
		for _, m := range ms {
			if texts[i][m.Start:m.End] != m.Text {
				t.Errorf("text %d: [%d:%d] = %q, mention %q", i, m.Start, m.End, texts[i][m.Start:m.End], m.Text)
			}
			seen = append(seen, m.Text+"/"+m.Label)
		}
	}
	if strings.Join(seen, " ") == "" || len(seen) != 3 {
		t.Errorf("mentions = %v", seen)
	}
	if f.count() != 1 || len(f.requests[0].Texts) != 2 {
		t.Errorf("requests = %+v (the empty text must not be sent)", f.requests)
	}
	if c.Name() != "ner:fake-ner 1.0" {
		t.Errorf("Name after a call = %q", c.Name())
	}
}

func TestRecognizeNothingToSend(t *testing.T) {
	f := &fake{handle: func(_ int, req request, w http.ResponseWriter) { answer(w, req) }}
	c := newClient(t, f, Config{})
	for _, texts := range [][]string{nil, {}, {"", ""}} {
		got, err := c.Recognize(context.Background(), texts, Russian)
		if err != nil || len(got) != len(texts) {
			t.Errorf("%q: %v, %v", texts, got, err)
		}
	}
	if f.count() != 0 {
		t.Errorf("%d requests for nothing", f.count())
	}
}

func TestRecognizeBatches(t *testing.T) {
	f := &fake{handle: func(_ int, req request, w http.ResponseWriter) { answer(w, req) }}
	c := newClient(t, f, Config{BatchSize: 32})
	texts := make([]string, 70)
	for i := range texts {
		texts[i] = "Jane Doe, текст " + strings.Repeat("я", i)
	}
	got, err := c.Recognize(context.Background(), texts, English)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, r := range f.requests {
		sizes = append(sizes, len(r.Texts))
		if r.Lang != English {
			t.Errorf("lang %q sent", r.Lang)
		}
	}
	if len(sizes) != 3 || sizes[0] != 32 || sizes[1] != 32 || sizes[2] != 6 {
		t.Errorf("batch sizes %v, want [32 32 6]", sizes)
	}
	for i, ms := range got {
		if len(ms) != 1 || ms[0].Text != "Jane Doe" || ms[0].Start != 0 {
			t.Fatalf("text %d: %+v (results out of order?)", i, ms)
		}
	}

	// The byte budget splits too: three 600 KB texts with a 1 MiB budget go one per request.
	f2 := &fake{handle: func(_ int, req request, w http.ResponseWriter) { answer(w, req) }}
	c2 := newClient(t, f2, Config{})
	big := strings.Repeat("a", 60_000) // 60 KB; budget 100 KB → one per request
	c2.cfg.MaxBatchSize = 100_000
	if _, err := c2.Recognize(context.Background(), []string{big, big, big}, Detect); err != nil {
		t.Fatal(err)
	}
	if f2.count() != 3 {
		t.Errorf("%d requests for 3 texts over the byte budget, want 3", f2.count())
	}
}

func TestRecognizeInvalidInput(t *testing.T) {
	f := &fake{handle: func(_ int, req request, w http.ResponseWriter) { answer(w, req) }}
	c := newClient(t, f, Config{})
	if _, err := c.Recognize(context.Background(), []string{"x"}, "de"); !errors.Is(err, ariadne.ErrInvalid) {
		t.Errorf("lang de: %v", err)
	}
	long := strings.Repeat("я", serverMaxChars+1)
	if _, err := c.Recognize(context.Background(), []string{"ok", long}, Detect); !errors.Is(err, ariadne.ErrInvalid) {
		t.Errorf("long text: %v", err)
	}
	if f.count() != 0 {
		t.Errorf("invalid input was sent (%d requests)", f.count())
	}
	for _, u := range []string{"127.0.0.1:8093", "ftp://x", "http://"} {
		if _, err := New(Config{BaseURL: u}); !errors.Is(err, ariadne.ErrInvalid) {
			t.Errorf("New(%q): %v", u, err)
		}
	}
}

func TestRecognizeInvalidUTF8KeepsOffsets(t *testing.T) {
	f := &fake{handle: func(_ int, req request, w http.ResponseWriter) {
		if strings.ContainsRune(req.Texts[0], '\uFFFD') {
			t.Errorf("invalid bytes reached the sidecar as U+FFFD: %q", req.Texts[0])
		}
		answer(w, req)
	}}
	c := newClient(t, f, Config{})
	text := "\xff\xfeJane Doe в Екатеринбурге \xc3"
	got, err := c.Recognize(context.Background(), []string{text}, Detect)
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0]) != 2 {
		t.Fatalf("mentions %+v", got[0])
	}
	for _, m := range got[0] {
		if text[m.Start:m.End] != m.Text {
			t.Errorf("[%d:%d] = %q, mention %q", m.Start, m.End, text[m.Start:m.End], m.Text)
		}
	}
}

func TestRecognizeDropsMismatchedOffsets(t *testing.T) {
	f := &fake{handle: func(_ int, req request, w http.ResponseWriter) {
		t := req.Texts[0]
		good := findAll(t, words)
		bad := []wireMention{
			{Start: 1, End: 5, Text: "Jane", Label: PER},                            // character, not byte, offsets
			{Start: 5, End: 2, Text: "", Label: ORG},                                // inverted
			{Start: -1, End: 3, Text: "x", Label: LOC},                              // negative
			{Start: 0, End: len(t) + 10, Text: t, Label: LOC},                       // past the end
			{Start: good[0].Start, End: good[0].End, Text: good[0].Text, Label: ""}, // no label
		}
		json.NewEncoder(w).Encode(response{Results: [][]wireMention{append(good, bad...)}, Model: "m"})
	}}
	c := newClient(t, f, Config{})
	got, err := c.Recognize(context.Background(), []string{"Я, Jane Doe"}, Detect)
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0]) != 1 || got[0][0].Text != "Jane Doe" {
		t.Errorf("kept %+v", got[0])
	}
	if c.Dropped() != 5 {
		t.Errorf("Dropped = %d, want 5", c.Dropped())
	}
}

func TestRecognizeRetriesTransientFaults(t *testing.T) {
	f := &fake{handle: func(n int, req request, w http.ResponseWriter) {
		if n == 1 {
			http.Error(w, `{"error": "busy"}`, http.StatusServiceUnavailable)
			return
		}
		answer(w, req)
	}}
	c := newClient(t, f, Config{})
	got, err := c.Recognize(context.Background(), []string{"Jane Doe"}, English)
	if err != nil || len(got[0]) != 1 {
		t.Fatalf("%v, %v", got, err)
	}
	if c.Retries() != 1 || f.count() != 2 {
		t.Errorf("retries %d, requests %d; want 1, 2", c.Retries(), f.count())
	}
}

func TestRecognizeUnavailable(t *testing.T) {
	f := &fake{handle: func(_ int, _ request, w http.ResponseWriter) {
		http.Error(w, `{"error": "down"}`, http.StatusInternalServerError)
	}}
	c := newClient(t, f, Config{})
	_, err := c.Recognize(context.Background(), []string{"Jane Doe"}, English)
	if !errors.Is(err, ariadne.ErrUnavailable) {
		t.Errorf("500s: %v", err)
	}
	if f.count() != 3 {
		t.Errorf("%d attempts, want 3 (MaxAttempts)", f.count())
	}

	// Nothing listening: connection refused, retried, then unavailable.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c2, _ := New(Config{BaseURL: "http://" + addr, Retry: fastRetry(), Logger: quiet()})
	if _, err := c2.Recognize(context.Background(), []string{"Jane Doe"}, English); !errors.Is(err, ariadne.ErrUnavailable) {
		t.Errorf("refused: %v", err)
	}
	if c2.Retries() != 2 {
		t.Errorf("refused: %d retries, want 2", c2.Retries())
	}
	if err := c2.Health(context.Background()); !errors.Is(err, ariadne.ErrUnavailable) {
		t.Errorf("Health refused: %v", err)
	}
}

func TestRecognizeTimeout(t *testing.T) {
	release := make(chan struct{})
	f := &fake{handle: func(_ int, req request, w http.ResponseWriter) {
		select {
		case <-release:
		case <-time.After(2 * time.Second):
		}
		answer(w, req)
	}}
	c := newClient(t, f, Config{Timeout: 50 * time.Millisecond})
	defer close(release)
	start := time.Now()
	_, err := c.Recognize(context.Background(), []string{"Jane Doe"}, English)
	if !errors.Is(err, ariadne.ErrUnavailable) {
		t.Errorf("timeout: %v", err)
	}
	if f.count() != 3 || time.Since(start) > 1500*time.Millisecond {
		t.Errorf("%d attempts in %s; want 3, each cut at 50ms", f.count(), time.Since(start))
	}
}

func TestRecognizeCallerCancels(t *testing.T) {
	f := &fake{handle: func(_ int, req request, w http.ResponseWriter) {
		time.Sleep(100 * time.Millisecond)
		answer(w, req)
	}}
	c := newClient(t, f, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := c.Recognize(ctx, []string{"Jane Doe"}, English)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ariadne.ErrUnavailable) {
		t.Errorf("caller's deadline: %v (want DeadlineExceeded, not ErrUnavailable)", err)
	}
}

func TestRecognizeRejected(t *testing.T) {
	f := &fake{handle: func(_ int, _ request, w http.ResponseWriter) {
		http.Error(w, `{"error": "text 0 has 200000 characters; at most 100000"}`, http.StatusBadRequest)
	}}
	c := newClient(t, f, Config{})
	_, err := c.Recognize(context.Background(), []string{"Jane Doe"}, English)
	if !errors.Is(err, ariadne.ErrInvalid) || !strings.Contains(err.Error(), "at most 100000") {
		t.Errorf("400: %v", err)
	}
	if f.count() != 1 {
		t.Errorf("a 400 was retried (%d requests)", f.count())
	}
}

func TestRecognizeBadAnswers(t *testing.T) {
	for name, body := range map[string]string{
		"not json":      `<html>oops</html>`,
		"wrong count":   `{"results": [[], []], "model": "m"}`,
		"no results":    `{"model": "m"}`,
		"wrong shape":   `{"results": {"a": 1}}`,
		"wrong offsets": `{"results": [[{"start": "0", "end": 4, "text": "Jane", "label": "PER"}]]}`,
	} {
		f := &fake{handle: func(_ int, _ request, w http.ResponseWriter) { w.Write([]byte(body)) }}
		c := newClient(t, f, Config{})
		if _, err := c.Recognize(context.Background(), []string{"Jane Doe"}, English); !errors.Is(err, ariadne.ErrUnavailable) {
			t.Errorf("%s: %v", name, err)
		}
		if f.count() != 1 {
			t.Errorf("%s: retried (%d requests)", name, f.count())
		}
	}
	// A 404 (not a NER sidecar at that address) is unavailable, not retried.
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	c, _ := New(Config{BaseURL: srv.URL, Retry: fastRetry(), Logger: quiet()})
	if _, err := c.Recognize(context.Background(), []string{"Jane Doe"}, English); !errors.Is(err, ariadne.ErrUnavailable) {
		t.Errorf("404: %v", err)
	}
}

func TestHealth(t *testing.T) {
	f := &fake{handle: func(_ int, req request, w http.ResponseWriter) { answer(w, req) }}
	c := newClient(t, f, Config{})
	if err := c.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c.Name() != "ner:fake-ner 1.0" {
		t.Errorf("Name = %q", c.Name())
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"status": "loading"}`))
	}))
	defer srv.Close()
	c2, _ := New(Config{BaseURL: srv.URL})
	if err := c2.Health(context.Background()); !errors.Is(err, ariadne.ErrUnavailable) {
		t.Errorf("status loading: %v", err)
	}
}

func TestValidUTF8(t *testing.T) {
	for in, want := range map[string]string{"": "", "ok": "ok", "я\xffя": "я я", "\xc3": " ", "\xe2\x82": "  "} {
		if got := validUTF8(in); got != want || len(got) != len(in) {
			t.Errorf("validUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRecognizeNoCacheAsksTheSidecarToSkipItsCache(t *testing.T) {
	for _, tc := range []struct {
		noCache bool
		want    *bool
	}{{false, nil}, {true, new(bool)}} {
		f := &fake{handle: func(_ int, req request, w http.ResponseWriter) { answer(w, req) }}
		c := newClient(t, f, Config{NoCache: tc.noCache})
		if _, err := c.Recognize(context.Background(), []string{"Jane Doe"}, English); err != nil {
			t.Fatal(err)
		}
		if got := f.requests[0].Cache; (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("NoCache %v: request cache %v, want %v", tc.noCache, got, tc.want)
		}
	}
}

// WithCacheScope names the readers of the texts, which the sidecar's cache keys its entries by;
// without it the scope is the public one ("").
func TestRecognizeSendsTheCacheScope(t *testing.T) {
	f := &fake{handle: func(_ int, req request, w http.ResponseWriter) { answer(w, req) }}
	c := newClient(t, f, Config{})
	for _, ctx := range []context.Context{WithCacheScope(context.Background(), "management"), context.Background()} {
		if _, err := c.Recognize(ctx, []string{"Jane Doe"}, English); err != nil {
			t.Fatal(err)
		}
	}
	if got := []string{f.requests[0].Scope, f.requests[1].Scope}; got[0] != "management" || got[1] != "" {
		t.Errorf("scopes sent %q, want [management \"\"]", got)
	}
}

// The sidecar's "normal" (Russian mentions) is read when it is there; an older sidecar that does
// not send it, and English mentions, leave Normal empty.
func TestRecognizeNormalForms(t *testing.T) {
	text := "Кнутов Зорислав Игоревич прилетел в Мурманске."
	person, place := "Кнутов Зорислав Игоревич", "Мурманске"
	ps, pl := strings.Index(text, person), strings.Index(text, place)
	tests := []struct {
		name string
		body string
		want []Mention
	}{
		{"with normal", `{"results": [[` +
			`{"start": ` + itoa(ps) + `, "end": ` + itoa(ps+len(person)) + `, "text": "` + person + `", "label": "PER", "source_label": "PER", "normal": "Зорислав Кнутов"},` +
			`{"start": ` + itoa(pl) + `, "end": ` + itoa(pl+len(place)) + `, "text": "` + place + `", "label": "LOC", "source_label": "LOC", "normal": "Мурманск"}]], "model": "m"}`,
			[]Mention{{ps, ps + len(person), person, PER, "PER", "Зорислав Кнутов"}, {pl, pl + len(place), place, LOC, "LOC", "Мурманск"}}},
		{"without normal (an older sidecar)", `{"results": [[` +
			`{"start": ` + itoa(pl) + `, "end": ` + itoa(pl+len(place)) + `, "text": "` + place + `", "label": "LOC", "source_label": "LOC"}]], "model": "m"}`,
			[]Mention{{pl, pl + len(place), place, LOC, "LOC", ""}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{handle: func(_ int, _ request, w http.ResponseWriter) { io.WriteString(w, tc.body) }}
			got, err := newClient(t, f, Config{}).Recognize(context.Background(), []string{text}, Russian)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || len(got[0]) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i, m := range got[0] {
				if m != tc.want[i] {
					t.Errorf("mention %d = %+v, want %+v", i, m, tc.want[i])
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
