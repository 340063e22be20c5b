// Package ner finds named entities (persons, organisations, locations, other names) in Russian and
// English text with the local NER sidecar (deploy/ner/server.py, started by `make up` on
// $ARIADNE_NER_URL, default http://127.0.0.1:8093).
//
// Mentions carry UTF-8 byte offsets into the text they were found in, so text[m.Start:m.End] ==
// m.Text; the client checks that for every mention and drops (and counts) those that do not match.
// Requests are batched, bounded by a timeout each, and transient faults (connection refused,
// timeouts, 429, 5xx) are retried here with package retry — callers must not retry again. Errors
// wrap ariadne.ErrInvalid when the input was rejected and ariadne.ErrUnavailable when the sidecar
// could not give an answer.
package ner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/httpjson"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// Labels the sidecar returns.
const (
	PER  = "PER"  // a person
	ORG  = "ORG"  // an organisation
	LOC  = "LOC"  // a place: city, country, region, facility
	MISC = "MISC" // another name: nationality, event, product, work, law, language (English only)
)

// Mention is one named entity found in a text.
type Mention struct {
	Start, End int    // UTF-8 byte offsets: text[Start:End] == Text
	Text       string // the mention as written (inflected, e.g. "Екатеринбурге")
	Label      string // PER, ORG, LOC or MISC
	// SourceLabel is the model's own label (spaCy's OntoNotes GPE, FAC, NORP, …; slovnet's PER,
	// LOC, ORG); "" from a sidecar that does not send it.
	SourceLabel string
	// Normal is the name in the nominative, as the sidecar derives it for Russian mentions:
	// «Мурманск» for «Мурманске», a person as "First Last" without a patronymic («Зорислав
	// Кнутов» for «Кнутов Зорислав Игоревич»); equal to Text where Text is nominative or its case
	// could not be settled. "" for English mentions and from a sidecar that does not send it.
	Normal string
}

// Languages Recognize accepts: "" lets the sidecar pick ru or en per text by its script.
const (
	Russian = "ru"
	English = "en"
	Detect  = ""
)

// DefaultURL is where deploy/local.sh starts the sidecar (before ARIADNE_PORT_OFFSET).
const DefaultURL = "http://127.0.0.1:8093"

// The sidecar's own limits (deploy/ner/server.py): texts per request, characters per text,
// bytes per request body.
const (
	serverMaxTexts = 256
	serverMaxChars = 100_000
	serverMaxBody  = 8 << 20
)

// Config configures a Client; zero values take the defaults.
type Config struct {
	BaseURL      string        // default DefaultURL
	BatchSize    int           // texts per request; default 32, at most 256
	MaxBatchSize int           // bytes of text per request; default 1 MiB
	Timeout      time.Duration // per request; default 60s
	Retry        retry.Policy  // default retry.Default()
	Logger       *slog.Logger  // default slog.Default()
	HTTPClient   *http.Client  // default: one with Timeout
	// NoCache asks the sidecar to answer from its model, neither reading nor filling its cache of
	// recent texts (deploy/ner/README.md): for measuring the model's cost on texts it has seen.
	NoCache bool
}

// Client talks to the NER sidecar. It is safe for concurrent use.
type Client struct {
	cfg    Config
	client *http.Client
	log    *slog.Logger

	mu      sync.Mutex
	model   string
	dropped int
	retries int
}

// New returns a client for the sidecar at cfg.BaseURL. It does not contact the sidecar (see Health).
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if u, err := url.Parse(cfg.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("ner: base URL %q is not an http(s) URL: %w", cfg.BaseURL, ariadne.ErrInvalid)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 32
	}
	cfg.BatchSize = min(cfg.BatchSize, serverMaxTexts)
	if cfg.MaxBatchSize <= 0 {
		cfg.MaxBatchSize = 1 << 20
	}
	// JSON escaping can grow a text (control characters: 6 bytes each); stay well inside the body limit.
	cfg.MaxBatchSize = min(cfg.MaxBatchSize, serverMaxBody/8)
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if (cfg.Retry == retry.Policy{}) {
		cfg.Retry = retry.Default()
	}
	c := &Client{cfg: cfg, client: cfg.HTTPClient, log: cfg.Logger}
	if c.client == nil {
		c.client = &http.Client{Timeout: cfg.Timeout}
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	return c, nil
}

// Name is "ner:" followed by the sidecar's models and versions once a call has seen them, e.g.
// "ner:ru: slovnet_ner_news_v1 + navec … ; en: en_core_web_sm 3.8.0 (…)"; before that "ner:" + BaseURL.
func (c *Client) Name() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.model == "" {
		return "ner:" + c.cfg.BaseURL
	}
	return "ner:" + c.model
}

// Dropped returns how many mentions the sidecar returned whose offsets did not match their text
// (out of range, inverted, or text[Start:End] != Text); they are never returned.
func (c *Client) Dropped() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

// Retries returns how many requests were retried so far.
func (c *Client) Retries() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.retries
}

type healthResponse struct {
	Status string `json:"status"`
	Model  string `json:"model"`
}

// Health asks the sidecar whether it is up (one attempt, no retries) and records its model names
// for Name. The error wraps ariadne.ErrUnavailable.
func (c *Client) Health(ctx context.Context) error {
	var h healthResponse
	if err := httpjson.Get(ctx, c.client, "ner health", c.cfg.BaseURL+"/health", nil, &h); err != nil {
		return fmt.Errorf("ner: %w", errors.Join(ariadne.ErrUnavailable, err))
	}
	if h.Status != "ok" {
		return fmt.Errorf("ner: health status %q: %w", h.Status, ariadne.ErrUnavailable)
	}
	c.setModel(h.Model)
	return nil
}

func (c *Client) setModel(m string) {
	if m == "" {
		return
	}
	c.mu.Lock()
	c.model = m
	c.mu.Unlock()
}

type request struct {
	Texts []string `json:"texts"`
	Lang  string   `json:"lang"`
	Cache *bool    `json:"cache,omitempty"` // nil: the sidecar's default (cached)
	Scope string   `json:"scope,omitempty"` // who may read the texts: the sidecar's cache answers the same scope only
}

type cacheScopeKey struct{}

// WithCacheScope returns a context whose Recognize calls ask the sidecar to keep their answers for
// scope alone: a text's cached mentions then answer only requests of the same scope. The caller
// names the readers of the texts (ariadne.ReadersKey), so that a write repeating a restricted
// chunk's text is not recognized faster from that chunk's entry.
func WithCacheScope(ctx context.Context, scope string) context.Context {
	return context.WithValue(ctx, cacheScopeKey{}, scope)
}

type wireMention struct {
	Start       int    `json:"start"`
	End         int    `json:"end"`
	Text        string `json:"text"`
	Label       string `json:"label"`
	SourceLabel string `json:"source_label"`
	Normal      string `json:"normal,omitempty"`
}

type response struct {
	Results [][]wireMention `json:"results"`
	Model   string          `json:"model"`
}

// Recognize finds the named entities of each text; the result has one (possibly empty, never nil)
// slice per text, in order. lang is Russian, English or Detect. Empty texts are not sent. A text
// that is not valid UTF-8 is sent with each invalid byte replaced by a space, so the offsets still
// index the original bytes. A text longer than the sidecar accepts (100,000 characters), or an
// unknown lang, is rejected with ariadne.ErrInvalid before anything is sent.
func (c *Client) Recognize(ctx context.Context, texts []string, lang string) ([][]Mention, error) {
	if lang != Russian && lang != English && lang != Detect {
		return nil, fmt.Errorf("ner: language %q (want %q, %q or \"\" to detect): %w", lang, Russian, English, ariadne.ErrInvalid)
	}
	out := make([][]Mention, len(texts))
	var idx []int // the texts sent
	for i, t := range texts {
		out[i] = []Mention{}
		if t == "" {
			continue
		}
		if n := utf8.RuneCountInString(t); n > serverMaxChars {
			return nil, fmt.Errorf("ner: text %d has %d characters, the sidecar takes at most %d: %w", i, n, serverMaxChars, ariadne.ErrInvalid)
		}
		idx = append(idx, i)
	}
	for len(idx) > 0 {
		n, size := 0, 0
		for n < len(idx) && n < c.cfg.BatchSize && (n == 0 || size+len(texts[idx[n]]) <= c.cfg.MaxBatchSize) {
			size += len(texts[idx[n]])
			n++
		}
		batch := make([]string, n)
		for j, i := range idx[:n] {
			batch[j] = validUTF8(texts[i])
		}
		got, err := c.call(ctx, batch, lang)
		if err != nil {
			return nil, err
		}
		for j, i := range idx[:n] {
			out[i] = c.check(texts[i], got[j])
		}
		idx = idx[n:]
	}
	return out, nil
}

// call sends one batch, retrying transient faults, and returns one mention list per text.
func (c *Client) call(ctx context.Context, batch []string, lang string) ([][]wireMention, error) {
	var resp response
	err := retry.Do(ctx, c.cfg.Retry, func(ctx context.Context) error {
		resp = response{}
		ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout) // also when HTTPClient has no timeout
		defer cancel()
		return httpjson.Post(ctx, c.client, "ner", c.cfg.BaseURL+"/v1/ner", nil, c.request(ctx, batch, lang), &resp)
	}, func(a retry.Attempt) {
		c.mu.Lock()
		c.retries++
		c.mu.Unlock()
		c.log.Warn("ner request failed; retrying", "ner", c.cfg.BaseURL, "texts", len(batch), "attempt", a.Number, "wait", a.Wait, "err", a.Err)
	})
	if err != nil {
		var he *retry.HTTPStatusError
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("ner: %w", err) // the caller's context ended
		case errors.As(err, &he) && he.StatusCode == http.StatusBadRequest:
			return nil, fmt.Errorf("ner: the sidecar rejected the request: %w", errors.Join(ariadne.ErrInvalid, err))
		default:
			return nil, fmt.Errorf("ner: %s: %w", c.cfg.BaseURL, errors.Join(ariadne.ErrUnavailable, err))
		}
	}
	if len(resp.Results) != len(batch) {
		return nil, fmt.Errorf("ner: the sidecar returned %d results for %d texts: %w", len(resp.Results), len(batch), ariadne.ErrUnavailable)
	}
	c.setModel(resp.Model)
	return resp.Results, nil
}

// check keeps the mentions whose offsets slice exactly their text out of the original text.
func (c *Client) check(text string, ms []wireMention) []Mention {
	out := make([]Mention, 0, len(ms))
	bad := 0
	for _, m := range ms {
		if m.Start < 0 || m.End > len(text) || m.Start >= m.End || text[m.Start:m.End] != m.Text || m.Label == "" {
			bad++
			continue
		}
		out = append(out, Mention(m))
	}
	if bad > 0 {
		c.mu.Lock()
		c.dropped += bad
		c.mu.Unlock()
		c.log.Warn("ner mentions with offsets that do not match their text were dropped", "ner", c.Name(), "dropped", bad, "kept", len(out))
	}
	return out
}

// validUTF8 replaces each byte that is not part of valid UTF-8 by a space, keeping every byte offset.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			b[i] = ' '
		}
		i += size
	}
	return string(b)
}

// request is the body of one /v1/ner call, in the cache scope ctx names (WithCacheScope).
func (c *Client) request(ctx context.Context, texts []string, lang string) request {
	scope, _ := ctx.Value(cacheScopeKey{}).(string)
	r := request{Texts: texts, Lang: lang, Scope: scope}
	if c.cfg.NoCache {
		r.Cache = new(bool)
	}
	return r
}
