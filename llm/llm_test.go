package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/retry"
)

func TestOpenAIChatRetries429WithRetryAfterThenSucceeds(t *testing.T) {
	var calls atomic.Int32
	var got openAIChatRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "bad", 400)
			return
		}
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"error":"rate limited"}`, http.StatusTooManyRequests)
			return
		}
		json.NewDecoder(r.Body).Decode(&got)
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]any{"content": "ok"}}}})
	}))
	defer srv.Close()
	var retries []retry.Attempt
	c, err := NewOpenAI(Config{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "k",
		OnRetry: func(a retry.Attempt) { retries = append(retries, a) }})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	text, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hi"}},
		JSON: &Schema{Name: "x", Schema: json.RawMessage(`{"type":"object"}`)}})
	if err != nil || text != "ok" {
		t.Fatalf("Chat = %q, %v", text, err)
	}
	if len(retries) != 1 || retries[0].Wait < time.Second || time.Since(start) < time.Second {
		t.Fatalf("retries %+v after %v; want one retry that waited >= Retry-After 1s", retries, time.Since(start))
	}
	if got.Model != "m" || got.ResponseFormat == nil {
		t.Errorf("request not as sent: %+v", got)
	}
}

func TestOpenAIChatFailsFastOn400AndUnavailableOn5xx(t *testing.T) {
	code := http.StatusBadRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "x", code) }))
	defer srv.Close()
	c, _ := NewOpenAI(Config{BaseURL: srv.URL, Model: "m", Retry: retry.Policy{Initial: time.Millisecond, MaxAttempts: 2}})
	if _, err := c.Chat(context.Background(), Request{}); err == nil || errors.Is(err, ariadne.ErrUnavailable) {
		t.Fatalf("400: err = %v, want a non-unavailable error", err)
	}
	code = http.StatusBadGateway
	if _, err := c.Chat(context.Background(), Request{}); !errors.Is(err, ariadne.ErrUnavailable) {
		t.Fatalf("502: err = %v, want ErrUnavailable", err)
	}
}

func TestOllamaChat(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req ollamaChatRequest
		json.NewDecoder(r.Body).Decode(&req)
		if r.URL.Path != "/api/chat" || req.Stream || string(req.Format) != `{"type":"object"}` {
			http.Error(w, "bad", 400)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"message": map[string]any{"role": "assistant", "content": "привет"}, "done": true})
	}))
	defer srv.Close()
	c, _ := NewOllama(Config{BaseURL: srv.URL, Model: "llama3.1:8b"})
	text, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hi"}},
		JSON: &Schema{Name: "x", Schema: json.RawMessage(`{"type":"object"}`)}})
	if err != nil || text != "привет" {
		t.Fatalf("Chat = %q, %v", text, err)
	}
}
