// Package llm talks to chat models through the OpenAI-compatible /v1/chat/completions API and
// Ollama's /api/chat, with a per-request timeout and retries of 429/5xx and network faults
// (exponential backoff with jitter, honouring Retry-After; package retry).
//
// Both clients return the model's text. A request may ask for JSON output constrained by a JSON
// Schema; servers differ in how they take it (see JSONMode): OpenAI, vLLM and llama.cpp's server
// take `response_format: json_schema`, llama-cpp-python's `json_object` with a `schema`, llama.cpp
// servers a GBNF `grammar`, Ollama `format`. Config.JSONMode picks one, or (auto) tries them in
// order and remembers the first the server accepts. Callers still validate what comes back, since
// not every compatible server enforces the schema.
//
// A request the server rejects as invalid (HTTP 400/404/415/422, or a 500 that is a validation
// error about the JSON constraint) is not retried and wraps ariadne.ErrInvalid; timeouts,
// refused connections, 429 (after Retry-After) and other 5xx are retried and end as
// ariadne.ErrUnavailable. Config.OnUsage receives each answer's prompt and completion tokens.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
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
	// JSONMode is how requests with a Schema ask for JSON (default auto: detect; see JSONMode).
	JSONMode JSONMode
	// OnUsage, when set, is called after every answer with the model's name and the prompt and
	// completion tokens the server counted (OpenAI usage; Ollama prompt_eval_count/eval_count).
	OnUsage func(model string, prompt, completion int)
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
	mode, err := ParseJSONMode(string(c.JSONMode))
	if err != nil {
		return err
	}
	c.JSONMode = mode
	return nil
}

func (c *Config) usage(prompt, completion int) {
	if c.OnUsage != nil {
		c.OnUsage(c.Model, prompt, completion)
	}
}

// call sends one request through send: as free text when schema is nil, else in the configured
// JSON mode, or with auto detection (d) when the mode is auto.
func (c *Config) call(ctx context.Context, name string, d *detector, schema *Schema, send func(context.Context, JSONMode) error) error {
	switch {
	case schema == nil:
		return c.do(ctx, name, func(ctx context.Context) error { return send(ctx, "") })
	case c.JSONMode == JSONAuto:
		return d.chat(ctx, c, name, send)
	default:
		return c.do(ctx, name, func(ctx context.Context) error { return send(ctx, c.JSONMode) })
	}
}

// detector runs auto detection: it tries the modes in order until the server accepts one, and
// remembers that one for later calls.
type detector struct {
	order []JSONMode
	found atomic.Pointer[JSONMode]
}

// chat sends one request per mode (send returns a *RejectedError when the server refused the
// form) and returns the first accepted answer's error state.
func (d *detector) chat(ctx context.Context, cfg *Config, name string, send func(context.Context, JSONMode) error) error {
	if m := d.found.Load(); m != nil {
		return cfg.do(ctx, name, func(ctx context.Context) error { return send(ctx, *m) })
	}
	var last *RejectedError
	for _, mode := range d.order {
		err := cfg.do(ctx, name, func(ctx context.Context) error { return send(ctx, mode) })
		var rej *RejectedError
		if errors.As(err, &rej) && rej.Mode == mode {
			cfg.Logger.Info("model server rejected a JSON mode; trying the next", "model", name, "json_mode", mode, "answer", truncate(rej.Status.Error(), 200))
			last = rej
			continue
		}
		if err == nil {
			m := mode
			if d.found.CompareAndSwap(nil, &m) {
				cfg.Logger.Info("model server accepts JSON mode", "model", name, "json_mode", mode)
			}
		}
		return err
	}
	return noModeError(name, d.order, last)
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
type OpenAI struct {
	cfg  Config
	auto detector
}

// NewOpenAI returns a client; BaseURL includes the version path ("https://api.openai.com/v1").
func NewOpenAI(cfg Config) (*OpenAI, error) {
	if err := cfg.setDefaults("openai"); err != nil {
		return nil, err
	}
	return &OpenAI{cfg: cfg, auto: detector{order: []JSONMode{JSONModeSchema, JSONModeObject, JSONModeGrammar}}}, nil
}

// Name is "openai:<model>".
func (o *OpenAI) Name() string { return "openai:" + o.cfg.Model }

// JSONMode is the mode requests with a Schema use: the configured one, or for auto the one
// detection settled on ("auto" until a request with a Schema succeeded).
func (o *OpenAI) JSONMode() JSONMode {
	if o.cfg.JSONMode == JSONAuto {
		if m := o.auto.found.Load(); m != nil {
			return *m
		}
	}
	return o.cfg.JSONMode
}

type openAIChatRequest struct {
	Model          string    `json:"model"`
	Messages       []Message `json:"messages"`
	Temperature    float64   `json:"temperature"`
	MaxTokens      int       `json:"max_tokens,omitempty"`
	ResponseFormat any       `json:"response_format,omitempty"`
	Grammar        string    `json:"grammar,omitempty"`
}

type openAIChatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// constrain sets the request's JSON constraint for mode.
func (o *OpenAI) constrain(body *openAIChatRequest, s *Schema, mode JSONMode) error {
	body.ResponseFormat, body.Grammar = nil, ""
	switch mode {
	case JSONModeSchema:
		body.ResponseFormat = map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": s.Name, "schema": s.Schema, "strict": true}}
	case JSONModeObject:
		body.ResponseFormat = map[string]any{"type": "json_object", "schema": s.Schema}
	case JSONModeGrammar:
		g, err := Grammar(s.Schema)
		if err != nil {
			return err
		}
		body.Grammar = g
	}
	return nil
}

// Chat sends the request and returns the first choice's text.
func (o *OpenAI) Chat(ctx context.Context, req Request) (string, error) {
	body := openAIChatRequest{Model: o.cfg.Model, Messages: req.Messages, Temperature: req.Temperature, MaxTokens: req.MaxTokens}
	var out string
	send := func(ctx context.Context, mode JSONMode) error {
		b := body
		if req.JSON != nil {
			if err := o.constrain(&b, req.JSON, mode); err != nil {
				return err
			}
		}
		var resp openAIChatResponse
		if err := httpjson.Post(ctx, o.cfg.HTTPClient, "openai chat", o.cfg.BaseURL+"/chat/completions", bearer(o.cfg.APIKey), b, &resp); err != nil {
			return rejection(err, mode)
		}
		if resp.Usage != nil {
			o.cfg.usage(resp.Usage.PromptTokens, resp.Usage.CompletionTokens)
		}
		if len(resp.Choices) == 0 {
			return fmt.Errorf("openai chat: answer has no choices")
		}
		out = resp.Choices[0].Message.Content
		return nil
	}
	err := o.cfg.call(ctx, o.Name(), &o.auto, req.JSON, send)
	return out, err
}

// Ollama is a client for Ollama's chat API.
type Ollama struct {
	cfg  Config
	auto detector
}

// NewOllama returns a client; BaseURL is e.g. "http://127.0.0.1:11434". Its JSON modes are
// json_schema (format: the schema) and json_object (format: "json"); grammar is not available.
func NewOllama(cfg Config) (*Ollama, error) {
	if err := cfg.setDefaults("ollama"); err != nil {
		return nil, err
	}
	if cfg.JSONMode == JSONModeGrammar {
		return nil, fmt.Errorf("llm: ollama takes no GBNF grammar (JSON modes: auto, json_schema, json_object, none): %w", ariadne.ErrInvalid)
	}
	return &Ollama{cfg: cfg, auto: detector{order: []JSONMode{JSONModeSchema, JSONModeObject}}}, nil
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
	Done            bool `json:"done"`
	PromptEvalCount int  `json:"prompt_eval_count"`
	EvalCount       int  `json:"eval_count"`
}

// Chat sends the request (stream off) and returns the message text.
func (o *Ollama) Chat(ctx context.Context, req Request) (string, error) {
	body := ollamaChatRequest{Model: o.cfg.Model, Messages: req.Messages,
		Options: map[string]any{"temperature": req.Temperature}}
	if req.MaxTokens > 0 {
		body.Options["num_predict"] = req.MaxTokens
	}
	var out string
	send := func(ctx context.Context, mode JSONMode) error {
		b := body
		switch {
		case req.JSON == nil:
		case mode == JSONModeSchema:
			b.Format = req.JSON.Schema
		case mode == JSONModeObject:
			b.Format = json.RawMessage(`"json"`)
		}
		var resp ollamaChatResponse
		if err := httpjson.Post(ctx, o.cfg.HTTPClient, "ollama chat", o.cfg.BaseURL+"/api/chat", bearer(o.cfg.APIKey), b, &resp); err != nil {
			return rejection(err, mode)
		}
		o.cfg.usage(resp.PromptEvalCount, resp.EvalCount)
		out = resp.Message.Content
		return nil
	}
	err := o.cfg.call(ctx, o.Name(), &o.auto, req.JSON, send)
	return out, err
}

// FenceSafe keeps data from opening or closing a prompt's fence: every run of three angle
// brackets ("<<<", ">>>") in it is broken with a space, so "FRAGMENT 2>>>" inside a fragment, a
// title or a question cannot end the fence it sits in. The answer, router, judge and extraction
// prompts all fence document text this way.
func FenceSafe(s string) string {
	return strings.NewReplacer("<<<", "<< <", ">>>", "> >>").Replace(s)
}
