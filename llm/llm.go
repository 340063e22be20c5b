// Package llm talks to chat models through the OpenAI-compatible /v1/chat/completions API and
// Ollama's /api/chat, with a per-request timeout and retries of 429/5xx and network faults
// (exponential backoff with jitter, honouring Retry-After; package retry).
//
// Both clients return the model's text. A request may ask for JSON output constrained by a JSON
// Schema (OpenAI `response_format: json_schema`, Ollama `format`); callers still validate what
// comes back, since not every compatible server enforces the schema.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/httpjson"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// Message is one chat turn.
type Message struct {
	Role    string `json:"role"` // "system", "user" or "assistant"
	Content string `json:"content"`
}

// Schema asks for JSON output that conforms to a JSON Schema.
type Schema struct {
	Name   string          // identifier, e.g. "extraction"
	Schema json.RawMessage // the JSON Schema document
}

// Request is one chat completion request.
type Request struct {
	Messages    []Message
	JSON        *Schema // nil for free text
	Temperature float64 // 0 for deterministic answers
	MaxTokens   int     // 0 for the server's default
}

// Config configures a chat client.
type Config struct {
	BaseURL    string        // OpenAI-compatible: ".../v1"; Ollama: "http://host:11434"
	Model      string        // e.g. "gpt-4o-mini", "llama3.1:8b"
	APIKey     string        // optional bearer token
	Timeout    time.Duration // per HTTP request; default 120s
	Retry      retry.Policy  // default retry.Default()
	OnRetry    func(retry.Attempt)
	Logger     *slog.Logger
	HTTPClient *http.Client
}

func (c *Config) setDefaults(kind string) error {
	if c.BaseURL == "" || c.Model == "" {
		return fmt.Errorf("llm: %s needs a base URL and a model: %w", kind, ariadne.ErrInvalid)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.Timeout <= 0 {
		c.Timeout = 120 * time.Second
	}
	if (c.Retry == retry.Policy{}) {
		c.Retry = retry.Default()
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: c.Timeout}
	}
	return nil
}

func (c *Config) do(ctx context.Context, name string, op func(context.Context) error) error {
	err := retry.Do(ctx, c.Retry, op, func(a retry.Attempt) {
		c.Logger.Warn("model request failed; retrying", "model", name, "attempt", a.Number, "wait", a.Wait, "err", a.Err)
		if c.OnRetry != nil {
			c.OnRetry(a)
		}
	})
	if err != nil && retry.Transient(err) {
		return fmt.Errorf("llm: %s: %w", name, errors.Join(ariadne.ErrUnavailable, err))
	}
	if err != nil {
		return fmt.Errorf("llm: %s: %w", name, err)
	}
	return nil
}

func bearer(key string) map[string]string {
	if key == "" {
		return nil
	}
	return map[string]string{"Authorization": "Bearer " + key}
}

// OpenAI is a client for an OpenAI-compatible chat completions API.
type OpenAI struct{ cfg Config }

// NewOpenAI returns a client; BaseURL includes the version path ("https://api.openai.com/v1").
func NewOpenAI(cfg Config) (*OpenAI, error) {
	if err := cfg.setDefaults("openai"); err != nil {
		return nil, err
	}
	return &OpenAI{cfg: cfg}, nil
}

// Name is "openai:<model>".
func (o *OpenAI) Name() string { return "openai:" + o.cfg.Model }

type openAIChatRequest struct {
	Model          string    `json:"model"`
	Messages       []Message `json:"messages"`
	Temperature    float64   `json:"temperature"`
	MaxTokens      int       `json:"max_tokens,omitempty"`
	ResponseFormat any       `json:"response_format,omitempty"`
}

type openAIChatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// Chat sends the request and returns the first choice's text.
func (o *OpenAI) Chat(ctx context.Context, req Request) (string, error) {
	body := openAIChatRequest{Model: o.cfg.Model, Messages: req.Messages, Temperature: req.Temperature, MaxTokens: req.MaxTokens}
	if req.JSON != nil {
		body.ResponseFormat = map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": req.JSON.Name, "schema": req.JSON.Schema, "strict": true}}
	}
	var out string
	err := o.cfg.do(ctx, o.Name(), func(ctx context.Context) error {
		var resp openAIChatResponse
		if err := httpjson.Post(ctx, o.cfg.HTTPClient, "openai chat", o.cfg.BaseURL+"/chat/completions", bearer(o.cfg.APIKey), body, &resp); err != nil {
			return err
		}
		if len(resp.Choices) == 0 {
			return fmt.Errorf("openai chat: answer has no choices")
		}
		out = resp.Choices[0].Message.Content
		return nil
	})
	return out, err
}

// Ollama is a client for Ollama's chat API.
type Ollama struct{ cfg Config }

// NewOllama returns a client; BaseURL is e.g. "http://127.0.0.1:11434".
func NewOllama(cfg Config) (*Ollama, error) {
	if err := cfg.setDefaults("ollama"); err != nil {
		return nil, err
	}
	return &Ollama{cfg: cfg}, nil
}

// Name is "ollama:<model>".
func (o *Ollama) Name() string { return "ollama:" + o.cfg.Model }

type ollamaChatRequest struct {
	Model    string          `json:"model"`
	Messages []Message       `json:"messages"`
	Stream   bool            `json:"stream"`
	Format   json.RawMessage `json:"format,omitempty"`
	Options  map[string]any  `json:"options,omitempty"`
}

type ollamaChatResponse struct {
	Message struct {
		Content string `json:"content"`
	} `json:"message"`
	Done bool `json:"done"`
}

// Chat sends the request (stream off) and returns the message text.
func (o *Ollama) Chat(ctx context.Context, req Request) (string, error) {
	body := ollamaChatRequest{Model: o.cfg.Model, Messages: req.Messages,
		Options: map[string]any{"temperature": req.Temperature}}
	if req.MaxTokens > 0 {
		body.Options["num_predict"] = req.MaxTokens
	}
	if req.JSON != nil {
		body.Format = req.JSON.Schema
	}
	var out string
	err := o.cfg.do(ctx, o.Name(), func(ctx context.Context) error {
		var resp ollamaChatResponse
		if err := httpjson.Post(ctx, o.cfg.HTTPClient, "ollama chat", o.cfg.BaseURL+"/api/chat", bearer(o.cfg.APIKey), body, &resp); err != nil {
			return err
		}
		out = resp.Message.Content
		return nil
	})
	return out, err
}
