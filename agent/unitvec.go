package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ariadne-graphrag/ariadne"
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

// UnitVectorKey is the content key of the passage vector of a unit of a public chunk:
// UnitVectorKeyFor with no acl.
func UnitVectorKey(embedder, text string) string { return UnitVectorKeyFor(embedder, nil, text) }

// UnitVectorKeyFor is the content key of the passage vector of a unit of a chunk restricted to acl:
// hex sha256 of the embedder name, the acl's distinct groups, sorted (none for a public acl: empty
// or holding ariadne.PublicGroup), and the text, 32 hex digits. Vectors are shared only among
// chunks with the same readers: a hit is faster than a miss, and were the key the text alone, a
// writer could post a public note repeating a guessed sentence of a restricted chunk that a query
// of its readers had embedded, and time an anonymous question to learn the guess is exact
// (security audit, stop 59). Keys written before the readers were part of them ("passage" where
// this has "passage2") are never looked up again; cmd/extract --unit-vectors deletes them.
func UnitVectorKeyFor(embedder string, acl []string, text string) string {
	sum := sha256.Sum256([]byte(embedder + "\x00passage2\x00" + ariadne.ReadersKey(acl) + "\x00" + text))
	return hex.EncodeToString(sum[:16])
}

type passageReadersKey struct{}

// WithPassageReaders returns a context whose passages CachingEmbedder caches for the readers of acl
// (the acl of the chunk they come from: UnitVectorKeyFor). Passages embedded without it are not
// cached.
func WithPassageReaders(ctx context.Context, acl []string) context.Context {
	return context.WithValue(ctx, passageReadersKey{}, slices.Clone(acl))
}

func passageReaders(ctx context.Context) ([]string, bool) {
	acl, ok := ctx.Value(passageReadersKey{}).([]string)
	return acl, ok
}

// EmbedUnits embeds texts, the i-th a unit of a chunk restricted to acls[i], through e: one
// EmbedPassages call per distinct acl, each with WithPassageReaders, so that a CachingEmbedder
// shares a vector only among chunks with the same readers. One vector per text, in order.
func EmbedUnits(ctx context.Context, e PassageEmbedder, texts []string, acls [][]string) ([][]float32, error) {
	byReaders := map[string][]int{}
	var order []string
	for i := range texts {
		k := ariadne.ReadersKey(acls[i])
		if _, ok := byReaders[k]; !ok {
			order = append(order, k)
		}
		byReaders[k] = append(byReaders[k], i)
	}
	out := make([][]float32, len(texts))
	for _, k := range order {
		idx := byReaders[k]
		part := make([]string, len(idx))
		for j, i := range idx {
			part[j] = texts[i]
		}
		vecs, err := e.EmbedPassages(WithPassageReaders(ctx, acls[idx[0]]), part)
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(part) {
			return nil, fmt.Errorf("agent: embedder returned %d vectors for %d texts", len(vecs), len(part))
		}
		for j, i := range idx {
			out[i] = vecs[j]
		}
	}
	return out, nil
}

// CachingEmbedder wraps an embedder with an in-memory LRU of query vectors (by cache scope and
// exact text) and passage vectors (by their chunk's readers and exact text: UnitVectorKeyFor) and,
// when Store is set, a shared UnitVectorStore behind it for passages. It is safe for concurrent
// use.
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

// EmbedPassages returns one vector per text. With the readers of the texts in ctx
// (WithPassageReaders: every text is of a chunk with that acl) it takes them from the LRU, then
// the store, under UnitVectorKeyFor, and embeds only the rest in one call (then writes them to
// both); without, it embeds them all uncached. A store read or write error is not fatal: the
// vectors are embedded and served from memory.
func (c *CachingEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	acl, scoped := passageReaders(ctx)
	if !scoped {
		return c.inner.EmbedPassages(ctx, texts)
	}
	out := make([][]float32, len(texts))
	name := c.inner.Name()
	var missKeys []string
	missIdx := map[string][]int{}
	for i, t := range texts {
		k := UnitVectorKeyFor(name, acl, t)
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

// PrecomputeUnitVectors embeds the evidence units (splitUnits) of chunks (Text and ACL) that are
// not cached yet, in batches of batch (≤ 0: 64), each unit for its chunk's readers
// (UnitVectorKeyFor), so that queries find them. It returns the number of units.
func (c *CachingEmbedder) PrecomputeUnitVectors(ctx context.Context, chunks []ariadne.Chunk, batch int) (int, error) {
	if batch <= 0 {
		batch = 64
	}
	var units []string
	var acls [][]string
	seen := map[string]bool{}
	for _, ch := range chunks {
		for _, u := range splitUnits(ch.Text) {
			if k := ariadne.ReadersKey(ch.ACL) + "\x00" + u; !seen[k] && !planted(u, ch.ACL) {
				seen[k] = true
				units, acls = append(units, u), append(acls, ch.ACL)
			}
		}
	}
	for i := 0; i < len(units); i += batch {
		j := min(i+batch, len(units))
		if _, err := EmbedUnits(ctx, c, units[i:j], acls[i:j]); err != nil {
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

// SyncUnitVectors brings index in line with the chunks (Text and ACL): the evidence units
// (splitUnits, planted instructions left out) it lacks are embedded with inner and written under
// their chunk's readers' key (UnitVectorKeyFor), in batches of 64, and the keys of units no chunk
// has any more are deleted. Run after a corpus sync, it makes the query path find every unit's
// vector without embedding it.
func SyncUnitVectors(ctx context.Context, inner UnitEmbedder, index UnitVectorIndex, chunks []ariadne.Chunk) (UnitVectorSync, error) {
	var out UnitVectorSync
	want := map[string]string{} // key → unit text
	for _, ch := range chunks {
		for _, u := range splitUnits(ch.Text) {
			if !planted(u, ch.ACL) {
				want[UnitVectorKeyFor(inner.Name(), ch.ACL, u)] = u
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
	var todo []string // keys
	for k := range want {
		if !have[k] {
			todo = append(todo, k)
		}
	}
	sort.Strings(todo)
	for i := 0; i < len(todo); i += 64 {
		keys := todo[i:min(i+64, len(todo))]
		batch := make([]string, len(keys))
		for j, k := range keys {
			batch[j] = want[k]
		}
		vecs, err := inner.EmbedPassages(ctx, batch)
		if err != nil {
			return out, fmt.Errorf("agent: embed units: %w", err)
		}
		if len(vecs) != len(batch) {
			return out, fmt.Errorf("agent: embedder returned %d vectors for %d units", len(vecs), len(batch))
		}
		put := make(map[string][]float32, len(batch))
		for j, k := range keys {
			put[k] = vecs[j]
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
