package agent

import (
	"context"
	"sort"
	"strconv"
	"sync"

	"github.com/ariadne-graphrag/ariadne"
)

// PassageEmbedder embeds passages in batches (embedding.Lexical, the remote embedders); the walk
// uses it for entity names (the side of an asymmetric model such as e5 that documents take).
type PassageEmbedder interface {
	EmbedPassages(ctx context.Context, texts []string) ([][]float32, error)
}

// nameCache keeps entity-name embeddings by the caller's groups and the name text, so each name
// is embedded once per process for callers holding the same groups. Vectors of names only: the
// cache holds no key, chunk or ACL, and a caller reaches a vector only through a name a graph read
// (with the caller's groups) gave it. Kept apart by groups because a hit is faster than a miss: a
// name only a management query embedded would otherwise answer an anonymous walk that reaches the
// same name through a public note a writer planted, and its speed would tell the writer that a
// restricted document names it (security audit, stop 59, found it for evidence units). Bounded:
// when full it is emptied (names are cheap to embed again).
type nameCache struct {
	mu  sync.Mutex
	max int
	vec map[string][]float32
}

func newNameCache(max int) *nameCache { return &nameCache{max: max, vec: map[string][]float32{}} }

// namesScope is the name cache's scope of a caller holding groups: its distinct groups, sorted.
func namesScope(groups []string) string { return ariadne.GroupsKey(groups) + "\x00" }

// embed returns a vector per entity key for names (key → name) as the graph showed them to a
// caller holding groups, embedding the names it has not seen for those groups in one batch.
func (c *nameCache) embed(ctx context.Context, pe PassageEmbedder, groups []string, names map[string]string) (map[string][]float32, error) {
	scope := namesScope(groups)
	c.mu.Lock()
	var missing []string
	seen := map[string]bool{}
	for _, n := range names {
		if _, ok := c.vec[scope+n]; !ok && n != "" && !seen[n] {
			seen[n] = true
			missing = append(missing, n)
		}
	}
	c.mu.Unlock()
	sort.Strings(missing)
	fresh := map[string][]float32{}
	if len(missing) > 0 {
		vs, err := pe.EmbedPassages(ctx, missing)
		if err != nil {
			return nil, err
		}
		for i, n := range missing {
			if i < len(vs) {
				fresh[n] = vs[i]
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.vec)+len(fresh) > c.max {
		c.vec = map[string][]float32{}
	}
	out := make(map[string][]float32, len(names))
	for k, n := range names {
		if v, ok := fresh[n]; ok {
			out[k] = v
		} else if v, ok := c.vec[scope+n]; ok {
			out[k] = v
		}
	}
	for n, v := range fresh {
		c.vec[scope+n] = v
	}
	return out, nil
}

// WarmNames embeds entity names into the walk's name cache ahead of the first multi_hop question
// (without it, a cold process pays one embedding batch per question for the names its walk
// reaches: hundreds of milliseconds with e5 on 2 cores), for callers holding groups — names such a
// caller may see (graph.Store.EntityNames with the same groups). Names are embedded in batches of
// batch (default 256); it returns how many names the cache holds from this call. An embedder that
// embeds no passages warms nothing.
func (r *Retriever) WarmNames(ctx context.Context, groups, names []string, batch int) (int, error) {
	pe, ok := r.embed.(PassageEmbedder)
	if !ok {
		return 0, nil
	}
	if batch <= 0 {
		batch = 256
	}
	seen := map[string]bool{}
	distinct := make([]string, 0, len(names))
	for _, n := range names {
		if n != "" && !seen[n] {
			seen[n] = true
			distinct = append(distinct, n)
		}
	}
	distinct = distinct[:min(len(distinct), r.names.max)] // more would empty the cache again
	warmed := 0
	for i := 0; i < len(distinct); i += batch {
		part := map[string]string{}
		for j, n := range distinct[i:min(i+batch, len(distinct))] {
			part[strconv.Itoa(j)] = n
		}
		vecs, err := r.names.embed(ctx, pe, groups, part)
		if err != nil {
			return warmed, err
		}
		warmed += len(vecs)
	}
	return warmed, nil
}
