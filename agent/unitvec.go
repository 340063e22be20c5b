package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ariadne-graphrag/ariadne/embedding"
)

// UnitVectorStore keeps passage vectors of evidence units by content key (UnitVectorKey), so that
// vectors computed once — at ingestion or on a first query — serve later queries and other
// processes. A key names the embedder and the exact text, so a changed sentence simply has a new
// key and a stale vector is never served.
type UnitVectorStore interface {
	UnitVectors(ctx context.Context, keys []string) (map[string][]float32, error)
	PutUnitVectors(ctx context.Context, vecs map[string][]float32) error
}

// UnitVectorKey is the content key of a unit's passage vector: hex sha256 of the embedder name and
// the text, 32 hex digits.
func UnitVectorKey(embedder, text string) string {
	sum := sha256.Sum256([]byte(embedder + "\x00passage\x00" + text))
	return hex.EncodeToString(sum[:16])
}

// CachingEmbedder wraps an embedder with an in-memory LRU of query and passage vectors (by exact
// text) and, when Store is set, a shared UnitVectorStore behind it for passages. It is safe for
// concurrent use.
type CachingEmbedder struct {
	inner   UnitEmbedder
	queries *lru.Cache[string, []float32]
	units   *lru.Cache[string, []float32]
	store   UnitVectorStore
}

// NewCachingEmbedder caches up to size passage vectors and size/4 query vectors (size ≤ 0:
// 50 000, about 80 MB for 384-dimensional vectors). store may be nil. When inner caches its query
// vectors itself (embedding.QueryCache: it reports CachesQueries), queries pass through, so one
// process keeps one query cache.
func NewCachingEmbedder(inner UnitEmbedder, size int, store UnitVectorStore) *CachingEmbedder {
	if size <= 0 {
		size = 50000
	}
	var q *lru.Cache[string, []float32]
	if qc, ok := inner.(interface{ CachesQueries() bool }); !ok || !qc.CachesQueries() {
		q, _ = lru.New[string, []float32](max(1, size/4))
	}
	u, _ := lru.New[string, []float32](size)
	return &CachingEmbedder{inner: inner, queries: q, units: u, store: store}
}

// Name is the wrapped embedder's name (the cache does not change the vectors).
func (c *CachingEmbedder) Name() string { return c.inner.Name() }

// EmbedQuery returns the cached query vector or embeds it (no cache here when inner has one).
// Query vectors are kept per cache scope (embedding.WithCacheScope): one caller's questions never
// answer another's lookups.
func (c *CachingEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if c.queries == nil {
		return c.inner.EmbedQuery(ctx, text)
	}
	key := embedding.CacheScope(ctx) + "\x00" + text
	if v, ok := c.queries.Get(key); ok {
		return v, nil
	}
	v, err := c.inner.EmbedQuery(ctx, text)
	if err != nil {
		return nil, err
	}
	c.queries.Add(key, v)
	return v, nil
}

// EmbedPassages returns one vector per text: from the LRU, then the store, and embeds only the
// rest in one call (then writes them to both). A store read or write error is not fatal: the
// vectors are embedded and served from memory.
func (c *CachingEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	name := c.inner.Name()
	var missKeys []string
	missIdx := map[string][]int{}
	for i, t := range texts {
		k := UnitVectorKey(name, t)
		if v, ok := c.units.Get(k); ok {
			out[i] = v
			continue
		}
		if _, seen := missIdx[k]; !seen {
			missKeys = append(missKeys, k)
		}
		missIdx[k] = append(missIdx[k], i)
	}
	if len(missKeys) > 0 && c.store != nil {
		if got, err := c.store.UnitVectors(ctx, missKeys); err == nil {
			rest := missKeys[:0:0]
			for _, k := range missKeys {
				if v, ok := got[k]; ok && len(v) > 0 {
					c.units.Add(k, v)
					for _, i := range missIdx[k] {
						out[i] = v
					}
					continue
				}
				rest = append(rest, k)
			}
			missKeys = rest
		}
	}
	if len(missKeys) == 0 {
		return out, nil
	}
	todo := make([]string, len(missKeys))
	for j, k := range missKeys {
		todo[j] = texts[missIdx[k][0]]
	}
	vecs, err := c.inner.EmbedPassages(ctx, todo)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(todo) {
		return nil, fmt.Errorf("agent: embedder returned %d vectors for %d texts", len(vecs), len(todo))
	}
	put := make(map[string][]float32, len(missKeys))
	for j, k := range missKeys {
		c.units.Add(k, vecs[j])
		put[k] = vecs[j]
		for _, i := range missIdx[k] {
			out[i] = vecs[j]
		}
	}
	if c.store != nil {
		_ = c.store.PutUnitVectors(ctx, put) // a miss next time, not a failure now
	}
	return out, nil
}

// PrecomputeUnitVectors embeds the evidence units (splitUnits) of chunk texts that are not cached
// yet, in batches of batch (≤ 0: 64), so that queries find them. It returns the number of units.
func (c *CachingEmbedder) PrecomputeUnitVectors(ctx context.Context, texts []string, batch int) (int, error) {
	if batch <= 0 {
		batch = 64
	}
	var units []string
	seen := map[string]bool{}
	for _, t := range texts {
		for _, u := range splitUnits(t) {
			if !seen[u] && !planted(u) {
				seen[u] = true
				units = append(units, u)
			}
		}
	}
	for i := 0; i < len(units); i += batch {
		if _, err := c.EmbedPassages(ctx, units[i:min(i+batch, len(units))]); err != nil {
			return i, err
		}
	}
	return len(units), nil
}

// UnitVectorIndex is a UnitVectorStore that can also list and delete its keys (vector.Store's
// unit class).
type UnitVectorIndex interface {
	UnitVectorStore
	UnitVectorKeys(ctx context.Context) ([]string, error)
	DeleteUnitVectors(ctx context.Context, keys []string) (int, error)
}

// UnitVectorSync is what SyncUnitVectors did: the distinct units of the chunk texts, how many of
// them were embedded (not stored before), and how many stored vectors no unit has any more.
type UnitVectorSync struct {
	Units, Embedded, Deleted int
}

// SyncUnitVectors brings index in line with the chunk texts: the evidence units (splitUnits,
// planted instructions left out) it lacks are embedded with inner and written, in batches of 64,
// and the keys of units no text has any more are deleted. Run after a corpus sync, it makes the
// query path find every unit's vector without embedding it.
func SyncUnitVectors(ctx context.Context, inner UnitEmbedder, index UnitVectorIndex, texts []string) (UnitVectorSync, error) {
	var out UnitVectorSync
	want := map[string]string{} // key → unit text
	for _, t := range texts {
		for _, u := range splitUnits(t) {
			if !planted(u) {
				want[UnitVectorKey(inner.Name(), u)] = u
			}
		}
	}
	out.Units = len(want)
	stored, err := index.UnitVectorKeys(ctx)
	if err != nil {
		return out, err
	}
	have := make(map[string]bool, len(stored))
	var stale []string
	for _, k := range stored {
		have[k] = true
		if _, ok := want[k]; !ok {
			stale = append(stale, k)
		}
	}
	var todo []string
	for k, u := range want {
		if !have[k] {
			todo = append(todo, u)
		}
	}
	sort.Strings(todo)
	for i := 0; i < len(todo); i += 64 {
		batch := todo[i:min(i+64, len(todo))]
		vecs, err := inner.EmbedPassages(ctx, batch)
		if err != nil {
			return out, fmt.Errorf("agent: embed units: %w", err)
		}
		if len(vecs) != len(batch) {
			return out, fmt.Errorf("agent: embedder returned %d vectors for %d units", len(vecs), len(batch))
		}
		put := make(map[string][]float32, len(batch))
		for j, u := range batch {
			put[UnitVectorKey(inner.Name(), u)] = vecs[j]
		}
		if err := index.PutUnitVectors(ctx, put); err != nil {
			return out, err
		}
		out.Embedded += len(batch)
	}
	if out.Deleted, err = index.DeleteUnitVectors(ctx, stale); err != nil {
		return out, err
	}
	return out, nil
}
