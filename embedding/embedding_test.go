package embedding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/retry"
)

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestLexicalMatchesSpellingsAcrossScripts(t *testing.T) {
	l := NewLexical(0)
	pairs := []struct {
		a, b string
		min  float64
	}{
		{"как получить впн", "VPN access policy", 0.3},
		{"политика вытеснения в редисе", "Redis eviction policy", 0.2},
		{"Омега Логистик", "Omega Logistic LLC", 0.6},
		{"кликхаус", "ClickHouse", 0.15},
	}
	for _, p := range pairs {
		if got := cosine(l.Embed(p.a), l.Embed(p.b)); got < p.min {
			t.Errorf("cos(%q, %q) = %.3f, want >= %.2f", p.a, p.b, got, p.min)
		}
	}
	// Lexical, not semantic: a translation with no shared spelling stays far.
	if got := cosine(l.Embed("отпуск"), l.Embed("vacation")); got > 0.15 {
		t.Errorf("cos(отпуск, vacation) = %.3f; the lexical embedder should not see synonyms", got)
	}
	if got := cosine(l.Embed("впн"), l.Embed("впн")); math.Abs(got-1) > 1e-6 {
		t.Errorf("a text is not identical to itself: %.6f", got)
	}
	if l.Name() != "lexical-ngram-v1/768" {
		t.Errorf("Name = %q", l.Name())
	}
	for _, x := range l.Embed("и в на the of") {
		if x != 0 {
			t.Fatal("function words alone should give the zero vector")
		}
	}
}

// fakeOpenAI answers /v1/embeddings with vectors that encode the request: [len(text), isQuery, 1].
func fakeOpenAI(t *testing.T, failFirst int, seen *[]openAIRequest) *httptest.Server {
	var calls atomic.Int32
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		if int(calls.Add(1)) <= failFirst {
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error":"overloaded"}`, http.StatusServiceUnavailable)
			return
		}
		var req openAIRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("bad request body: %v", err)
		}
		*seen = append(*seen, req)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		// answer out of order to check that indices are honoured
		for i := len(req.Input) - 1; i >= 0; i-- {
			q := float32(0)
			if req.InputType == "query" || strings.HasPrefix(req.Input[i], "query: ") {
				q = 1
			}
			data = append(data, item{Index: i, Embedding: []float32{float32(len([]rune(req.Input[i]))), q, 1}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
}

func TestOpenAIBatchesRetriesAndKeepsOrder(t *testing.T) {
	var seen []openAIRequest
	srv := fakeOpenAI(t, 1, &seen)
	defer srv.Close()
	e, err := NewOpenAI(RemoteConfig{BaseURL: srv.URL + "/v1", Model: "m", BatchSize: 2, Prefix: PrefixText,
		QueryPrefix: "query: ", PassagePrefix: "passage: ", Retry: retry.Policy{Initial: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a", "bb", "ccc", "passage: dddd", "eeeee"}
	vecs, err := e.EmbedPassages(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) || len(seen) != 3 || e.Retries() != 1 {
		t.Fatalf("%d vectors, %d requests, %d retries; want 5, 3, 1", len(vecs), len(seen), e.Retries())
	}
	// vector[0]/vector[2] recovers the length of the sent text: prefix + text, never prefixed twice.
	for i, want := range []int{10, 11, 12, 13, 14} {
		if got := int(math.Round(float64(vecs[i][0] / vecs[i][2]))); got != want {
			t.Errorf("input %d: server saw %d chars, want %d", i, got, want)
		}
	}
	if seen[0].Input[0] != "passage: a" || seen[1].Input[1] != "passage: dddd" {
		t.Errorf("prefixes wrong: %q", seen)
	}
	q, err := e.EmbedQuery(context.Background(), "вопрос")
	if err != nil || q[1] == 0 {
		t.Fatalf("query: %v %v", q, err)
	}
	if e.Dim() != 3 {
		t.Errorf("Dim = %d", e.Dim())
	}
}

func TestOpenAIInputTypeModeLeavesPrefixesToTheServer(t *testing.T) {
	var seen []openAIRequest
	srv := fakeOpenAI(t, 0, &seen)
	defer srv.Close()
	e, _ := NewOpenAI(RemoteConfig{BaseURL: srv.URL + "/v1", Model: "e5", Prefix: PrefixInputType})
	if _, err := e.EmbedQuery(context.Background(), "q"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.EmbedPassages(context.Background(), []string{"p"}); err != nil {
		t.Fatal(err)
	}
	if seen[0].InputType != "query" || seen[0].Input[0] != "q" || seen[1].InputType != "passage" || seen[1].Input[0] != "p" {
		t.Fatalf("requests: %+v", seen)
	}
}

func TestOpenAIWindowsLongInputs(t *testing.T) {
	var seen []openAIRequest
	srv := fakeOpenAI(t, 0, &seen)
	defer srv.Close()
	var logs bytes.Buffer
	e, _ := NewOpenAI(RemoteConfig{BaseURL: srv.URL + "/v1", Model: "m", MaxInputChars: 10, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	vecs, err := e.EmbedPassages(context.Background(), []string{"short", "one two three four five"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 2 || e.Windowed() != 1 || len(seen[0].Input) != 4 {
		t.Fatalf("vectors=%d windowed=%d sent=%q", len(vecs), e.Windowed(), seen[0].Input)
	}
	// The first long input is a warning; later ones are counted, not logged at info level.
	if _, err := e.EmbedPassages(context.Background(), []string{"six seven eight nine ten", "eleven twelve thirteen"}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "over the model's limit"); e.Windowed() != 3 || n != 1 {
		t.Errorf("windowed %d, logged %d times at info level, want 3 and once:\n%s", e.Windowed(), n, logs.String())
	}
}

func TestOpenAIFailsLoudly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"data": []map[string]any{{"index": 0, "embedding": []float32{1}}}})
	}))
	defer srv.Close()
	e, _ := NewOpenAI(RemoteConfig{BaseURL: srv.URL, Model: "m"})
	if _, err := e.EmbedPassages(context.Background(), []string{"a", "b"}); err == nil || !strings.Contains(err.Error(), "no embedding for input 1") {
		t.Fatalf("a missing vector must fail the batch, got %v", err)
	}
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusServiceUnavailable)
	}))
	defer down.Close()
	e2, _ := NewOpenAI(RemoteConfig{BaseURL: down.URL, Model: "m", Retry: retry.Policy{Initial: time.Millisecond, MaxAttempts: 2}})
	if _, err := e2.EmbedQuery(context.Background(), "q"); !errors.Is(err, ariadne.ErrUnavailable) {
		t.Fatalf("a server down past the retries must be ErrUnavailable, got %v", err)
	}
}

func TestOllama(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req ollamaRequest
		json.NewDecoder(r.Body).Decode(&req)
		if r.URL.Path != "/api/embed" || req.Model != "nomic-embed-text" {
			http.Error(w, "bad", 400)
			return
		}
		out := make([][]float32, len(req.Input))
		for i := range out {
			out[i] = []float32{3, 4}
		}
		json.NewEncoder(w).Encode(map[string]any{"embeddings": out})
	}))
	defer srv.Close()
	e, _ := NewOllama(RemoteConfig{BaseURL: srv.URL, Model: "nomic-embed-text"})
	vecs, err := e.EmbedPassages(context.Background(), []string{"x", "y"})
	if err != nil || len(vecs) != 2 || math.Abs(float64(vecs[0][0])-0.6) > 1e-6 {
		t.Fatalf("vecs=%v err=%v (want normalized [0.6 0.8])", vecs, err)
	}
	if e.Name() != "ollama:nomic-embed-text" {
		t.Errorf("Name = %q", e.Name())
	}
}
