package embedding

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"
	"golang.org/x/text/unicode/norm"

	"github.com/ariadne-graphrag/ariadne"
)

// QueryEmbedder is the embedder a QueryCache wraps.
type QueryEmbedder interface {
	Name() string
	EmbedPassages(ctx context.Context, texts []string) ([][]float32, error)
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// QueryCacheConfig configures NewQueryCache.
type QueryCacheConfig struct {
	// Size is the most query embeddings kept (least recently used go first); must be > 0.
	Size int
	// Prefix names how the wrapped embedder marks queries (e.g. "input_type" or "text:query: "):
	// part of the key, so two configurations of one model never share a vector.
	Prefix string
	// OnLookup, when set, is called once per EmbedQuery that returns (not one whose caller's
	// context ends first) with hit = the vector came from the
	// cache (for Prometheus counters). A concurrent miss that waits for another caller's
	// request to the same key counts as a hit; failed lookups count as misses.
	OnLookup func(hit bool)
}

// QueryCache is an embedder whose query embeddings are kept in a bounded LRU cache keyed by
// embedder name, prefix mode, the caller's cache scope (WithCacheScope) and the normalised
// question (NFC, whitespace collapsed and trimmed; case is kept, because the model sees it). The
// normalised text is what is embedded, so a cached vector is exactly the one a miss would
// compute. Concurrent misses of one key make one request (singleflight). Passages are never
// cached: they pass through. Safe for concurrent use.
//
// Scopes keep callers apart: an entry made under one scope never answers a lookup under
// another, so a hit (its latency, the hit counter) tells a caller only about its own questions.
type QueryCache struct {
	inner    QueryEmbedder
	prefix   string
	cache    *lru.Cache[string, []float32]
	flight   singleflight.Group
	onLookup func(bool)
}

// NewQueryCache wraps inner. Errors: Size <= 0 (ariadne.ErrInvalid).
func NewQueryCache(inner QueryEmbedder, cfg QueryCacheConfig) (*QueryCache, error) {
	if cfg.Size <= 0 {
		return nil, fmt.Errorf("embedding: query cache size %d (want > 0): %w", cfg.Size, ariadne.ErrInvalid)
	}
	c, err := lru.New[string, []float32](cfg.Size)
	if err != nil {
		return nil, fmt.Errorf("embedding: query cache: %w", err)
	}
	on := cfg.OnLookup
	if on == nil {
		on = func(bool) {}
	}
	return &QueryCache{inner: inner, prefix: cfg.Prefix, cache: c, onLookup: on}, nil
}

// Name is the wrapped embedder's name (the index records it; the cache does not change vectors).
func (q *QueryCache) Name() string { return q.inner.Name() }

// CachesQueries reports that query vectors are cached here, so wrappers need not cache them again
// (agent.NewCachingEmbedder).
func (q *QueryCache) CachesQueries() bool { return true }

// EmbedPassages embeds passages with the wrapped embedder, uncached.
func (q *QueryCache) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return q.inner.EmbedPassages(ctx, texts)
}

// EmbedQuery returns the cached embedding of the normalised question, or embeds it. The slice
// returned is the caller's own copy. Errors are the wrapped embedder's and are not cached.
func (q *QueryCache) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	text = NormalizeQuery(text)
	key := q.inner.Name() + "\x00" + q.prefix + "\x00" + CacheScope(ctx) + "\x00" + text
	if v, ok := q.cache.Get(key); ok {
		q.onLookup(true)
		return append([]float32(nil), v...), nil
	}
	// The request runs detached from any one caller's cancellation (the wrapped client's own
	// timeout bounds it), so a caller that gives up never fails the others waiting for it.
	led := false // set only in the call whose function runs; read after its result arrives
	ch := q.flight.DoChan(key, func() (any, error) {
		led = true
		v, err := q.inner.EmbedQuery(context.WithoutCancel(ctx), text)
		if err != nil {
			return nil, err
		}
		q.cache.Add(key, v)
		return v, nil
	})
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-ch:
		q.onLookup(!led && r.Err == nil)
		if r.Err != nil {
			return nil, r.Err
		}
		return append([]float32(nil), r.Val.([]float32)...), nil
	}
}

// scopeKey is the context key of a cache scope.
type scopeKey struct{}

// WithCacheScope returns a context whose query embeddings query caches (QueryCache, and
// agent.CachingEmbedder's) keep under scope, apart from every other scope's: the API passes the
// caller's identity, so that one caller's questions never answer another's lookups. A context
// without one has the scope "".
func WithCacheScope(ctx context.Context, scope string) context.Context {
	return context.WithValue(ctx, scopeKey{}, scope)
}

// CacheScope returns the cache scope of ctx ("" when WithCacheScope set none).
func CacheScope(ctx context.Context) string {
	s, _ := ctx.Value(scopeKey{}).(string)
	return s
}

// Len is how many query embeddings the cache holds.
func (q *QueryCache) Len() int { return q.cache.Len() }

// NormalizeQuery is the query text a QueryCache embeds and keys by: Unicode NFC, runs of white
// space collapsed to one space, trimmed.
func NormalizeQuery(text string) string {
	return strings.Join(strings.FieldsFunc(norm.NFC.String(text), unicode.IsSpace), " ")
}
