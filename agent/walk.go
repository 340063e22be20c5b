package agent

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/ariadne-graphrag/ariadne"
)

// The query-aware walk (docs/multi-hop.md). It follows HippoRAG 2 (Gutiérrez et al., "From RAG
// to Memory: Non-Parametric Continual Learning for Large Language Models", ICML 2025): entities
// and passages (chunks) are nodes of one graph, passages are linked to the entities they
// mention, entities whose names embed close are linked by synonym edges, and Personalized
// PageRank from seeds the question activates ranks the passages. Like LinearRAG (Zhuang et al.,
// ICLR 2026) the graph needs no relation extraction: entity recognition and embeddings suffice;
// relations, where the graph has them, are further edges. Unlike both, every edge is weighted by
// how well its supporting chunk matches this question, so the walk prefers the hops the
// question is about over a node's topical neighbours.

// walkInput is what the walk reads for one question; every map is already restricted to what the
// caller may read.
type walkInput struct {
	ChunkSim      map[string]float64   // question–chunk cosine of every chunk the graph may reach
	ChunkEntities map[string][]string  // chunk id → keys of the entities it mentions
	DocChunks     map[string][]string  // entity key → chunks of the document that describes it
	Edges         []ariadne.Edge       // entity–entity relations with their readable chunks
	Mentions      map[string]int       // entity key → readable chunks that mention it, counted up to WalkHub+1
	NameSim       map[string]float64   // entity key → question–name cosine
	NameVec       map[string][]float32 // entity key → name embedding (synonym edges)
	Linked        map[string]float64   // entity key → link score of an entity the question names (0..1)
	Pool          map[string]float64   // first-pass chunk id → relevance (passage seeds)
	// First: the first pass's chunk ids, hybrid's order then vector's. They are always in the
	// walk's reach (a passage seed that mentions no entity still ranks by its restart mass) and
	// come first under the WalkChunks cap.
	First []string
}

// walkParams tune the walk. Values: defaultWalkParams, fitted as docs/multi-hop.md says.
type walkParams struct {
	Damping     float64 // probability of following an edge rather than restarting (HippoRAG: 0.5)
	Iterations  int     // power iterations
	PassageSeed float64 // share of the restart mass on passage seeds, in (0, 1) (HippoRAG 2 weighs them 0.05 against facts' entities)
	PoolSeeds   int     // first-pass chunks seeded (best first)
	EdgeFloor   float64 // weight of an edge whose chunk matches the question least (0..1)
	NameSeeds   int     // entities seeded by question–name similarity (top n)
	SynonymMin  float64 // name cosine above which two entities get a synonym edge
	SynonymK    int     // synonym edges per entity at most (nearest first)
}

func defaultWalkParams() walkParams {
	return walkParams{Damping: 0.5, Iterations: 30, PassageSeed: 0.5, PoolSeeds: 10, EdgeFloor: 0.1, NameSeeds: 5, SynonymMin: 0.95, SynonymK: 2}
}

// walkResult is the walk's outcome.
type walkResult struct {
	Chunks     []string           // reachable chunks by PPR score, best first
	ChunkScore map[string]float64 // PPR score per chunk
	Entity     map[string]float64 // PPR score per entity
	Seeds      int                // nodes in the restart distribution
	Synonyms   int                // synonym edges added
	// Confidence in [0, 1]: how much of the entity seed mass comes from entities the question
	// names or whose names match it closely, times how concentrated the passage PPR mass is on
	// its top five (1: all of it).
	Confidence float64
}

// wgraph is a weighted undirected graph; parallel links keep the largest weight.
type wgraph struct {
	ids []string
	idx map[string]int
	adj []map[int]float64
}

func newWGraph() *wgraph { return &wgraph{idx: map[string]int{}} }

func (g *wgraph) node(id string) int {
	if i, ok := g.idx[id]; ok {
		return i
	}
	g.idx[id] = len(g.ids)
	g.ids = append(g.ids, id)
	g.adj = append(g.adj, map[int]float64{})
	return len(g.ids) - 1
}

func (g *wgraph) link(a, b string, w float64) {
	if a == b || w <= 0 {
		return
	}
	i, j := g.node(a), g.node(b)
	if w > g.adj[i][j] {
		g.adj[i][j], g.adj[j][i] = w, w
	}
}

// ppr runs Personalized PageRank by power iteration: restart (normalized here) is the teleport
// distribution, d the probability of following an edge (proportionally to its weight); a node
// without edges returns its mass to the restart distribution. Node ids not in the graph are
// added. The result sums to 1 (or is empty when restart has no mass).
func (g *wgraph) ppr(restart map[string]float64, d float64, iters int) map[string]float64 {
	keys := make([]string, 0, len(restart))
	for k := range restart {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic node order
	for _, k := range keys {
		g.node(k)
	}
	n := len(g.ids)
	p := make([]float64, n)
	var total float64
	for _, k := range keys {
		if w := restart[k]; w > 0 {
			p[g.idx[k]] += w
			total += w
		}
	}
	if total == 0 {
		return map[string]float64{}
	}
	for i := range p {
		p[i] /= total
	}
	// Every sum runs in the order of the node ids, not of insertion or of map iteration: floating
	// point addition is not associative, and chunks tied in exact arithmetic must stay tied (their
	// order then falls to the id) however the graph's rows arrived.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return g.ids[order[a]] < g.ids[order[b]] })
	rank := make([]int, n)
	for r, i := range order {
		rank[i] = r
	}
	out := make([]float64, n)
	nbrs := make([][]int, n)
	wts := make([][]float64, n) // wts[i][x] = g.adj[i][nbrs[i][x]]: no map lookup per iteration
	for i, m := range g.adj {
		for j := range m {
			nbrs[i] = append(nbrs[i], j)
		}
		sort.Slice(nbrs[i], func(a, b int) bool { return rank[nbrs[i][a]] < rank[nbrs[i][b]] })
		wts[i] = make([]float64, len(nbrs[i]))
		for x, j := range nbrs[i] {
			wts[i][x] = m[j]
			out[i] += m[j]
		}
	}
	s := append([]float64(nil), p...)
	for range iters {
		next := make([]float64, n)
		var dangling float64
		for _, i := range order {
			v := s[i]
			if out[i] == 0 {
				dangling += v
				continue
			}
			for x, j := range nbrs[i] {
				next[j] += d * v * wts[i][x] / out[i]
			}
		}
		for i := range next {
			next[i] += (1-d)*p[i] + d*dangling*p[i]
		}
		s = next
	}
	res := make(map[string]float64, n)
	for i, id := range g.ids {
		res[id] = s[i]
	}
	return res
}

// Node ids of the walk graph.
func entityNode(key string) string { return "e\x00" + key }
func chunkNode(id string) string   { return "c\x00" + id }

// minMax rescales values to [0, 1] by the smallest and largest; all equal gives 1.
func minMax(m map[string]float64) map[string]float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range m {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		if hi-lo < 1e-12 {
			out[k] = 1
		} else {
			out[k] = (v - lo) / (hi - lo)
		}
	}
	return out
}

// unitVector is v scaled to unit length in float64; nil for a zero or empty vector.
func unitVector(v []float32) []float64 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return nil
	}
	n = math.Sqrt(n)
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x) / n
	}
	return out
}

// unitDot is the cosine of two unitVector results: their dot product, 0 when either is nil or
// their lengths differ (as cosine).
func unitDot(a, b []float64) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// specificity is HippoRAG's node specificity, softened: an entity many passages mention says
// little about which passage is meant. Counts stop one past the hub bound (graph.EntityMentions),
// so every hub has the same, lowest specificity.
func specificity(mentions int) float64 { return 1 / (1 + math.Log(float64(max(mentions, 1)))) }

// nameUnit is a name embedding normalised once (unitVector), with its non-zero coordinates listed
// when they are few: hashed n-gram embeddings (embedding.Lexical) of a short name set a few dozen
// of their 768 coordinates.
type nameUnit struct {
	dense []float64
	idx   []int // non-zero coordinates in ascending order; nil when the vector is dense
}

// newNameUnit normalises v and lists its non-zero coordinates when at most a quarter are set.
func newNameUnit(v []float32) nameUnit {
	u := nameUnit{dense: unitVector(v)}
	nz := 0
	for _, x := range u.dense {
		if x != 0 {
			nz++
		}
	}
	if len(u.dense) > 0 && nz*4 <= len(u.dense) {
		u.idx = make([]int, 0, nz)
		for i, x := range u.dense {
			if x != 0 {
				u.idx = append(u.idx, i)
			}
		}
	}
	return u
}

// nameCosine is unitDot(a.dense, b.dense), bit for bit, at the cost of the sparser operand's
// non-zero coordinates when either has them listed: each product is added to the accumulator
// unitDot adds it to (coordinate mod 4, the tail past the last multiple of 4 to the first), in the
// same ascending order, and the coordinates skipped contribute products of zero.
func nameCosine(a, b nameUnit) float64 {
	n := len(a.dense)
	if n != len(b.dense) || n == 0 {
		return 0
	}
	if a.idx == nil && b.idx == nil {
		return unitDot(a.dense, b.dense)
	}
	if a.idx == nil || b.idx != nil && len(b.idx) < len(a.idx) {
		a, b = b, a // a is sparse (the sparser of two sparse operands)
	}
	body := n &^ 3
	var acc [4]float64
	for _, i := range a.idx {
		if y := b.dense[i]; y != 0 {
			k := i & 3
			if i >= body {
				k = 0
			}
			acc[k] += a.dense[i] * y
		}
	}
	return (acc[0] + acc[1]) + (acc[2] + acc[3])
}

// synonymPairs returns entity pairs whose name embeddings have cosine ≥ min, at most k per
// entity (nearest first), each pair once with its cosine. Keys are taken in sorted order.
//
// It compares every pair: n(n−1)/2 cosines, each over unit vectors normalised once (a zero or
// mismatched vector has cosine 0 with everything), and over the non-zero coordinates only where a
// name's vector is sparse. At 100k chunks a multi_hop question's walk has ~220 names, ~24 000
// pairs: recomputing both norms in every cosine made this two thirds of the walk's time, and
// full 768-wide products of lexical vectors still about 8 of its 13 ms (BenchmarkSynonymPairs:
// 6.4 → 2.1 ms with the sparse products; docs/performance.md).
func synonymPairs(vecs map[string][]float32, min float64, k int) []synonymPair {
	keys := make([]string, 0, len(vecs))
	for key := range vecs {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	units := make([]nameUnit, len(keys))
	for i, key := range keys {
		units[i] = newNameUnit(vecs[key])
	}
	best := map[string][]synonymPair{}
	for i, a := range keys {
		for j, b := range keys[i+1:] {
			c := nameCosine(units[i], units[i+1+j])
			if c >= min {
				best[a] = append(best[a], synonymPair{a, b, c})
				best[b] = append(best[b], synonymPair{a, b, c})
			}
		}
	}
	seen := map[[2]string]bool{}
	var out []synonymPair
	for _, key := range keys {
		ps := best[key]
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].Cos > ps[j].Cos })
		if len(ps) > k {
			ps = ps[:k]
		}
		for _, p := range ps {
			if !seen[[2]string{p.A, p.B}] {
				seen[[2]string{p.A, p.B}] = true
				out = append(out, p)
			}
		}
	}
	return out
}

type synonymPair struct {
	A, B string
	Cos  float64
}

// walk builds the question-weighted graph and ranks its chunks by Personalized PageRank.
//
// Edge weights: a chunk–entity link (the chunk mentions the entity, or belongs to the document
// that describes it) weighs w(chunk) = floor + (1−floor)·sim'(chunk), sim' the question–chunk
// cosine rescaled to [0, 1] over the chunks of this graph (so the lexical and e5 embedders,
// whose cosines live on different scales, are treated alike); a relation weighs the best w of
// its supporting chunks; a synonym edge weighs its rescaled name cosine. Seeds: linked entities
// (their link score), the NameSeeds entities whose names match the question best (rescaled name
// cosine, top half only), both times specificity; and the first-pass chunks, rescaled relevance
// times PassageSeed.
func walk(in walkInput, p walkParams) walkResult {
	g := newWGraph()
	simN := minMax(in.ChunkSim)
	w := func(chunk string) float64 {
		s, ok := simN[chunk]
		if !ok {
			return p.EdgeFloor
		}
		return p.EdgeFloor + (1-p.EdgeFloor)*s
	}
	chunks := walkKeys(in.ChunkEntities)
	for _, c := range chunks {
		for _, e := range in.ChunkEntities[c] {
			g.link(chunkNode(c), entityNode(e), w(c))
		}
	}
	for _, e := range walkKeys(in.DocChunks) {
		for _, c := range in.DocChunks[e] {
			g.link(chunkNode(c), entityNode(e), w(c))
		}
	}
	for _, e := range in.Edges {
		best := 0.0
		for _, c := range e.ChunkIDs {
			best = math.Max(best, w(c))
		}
		g.link(entityNode(e.From.Key), entityNode(e.To.Key), best)
	}
	var res walkResult
	for _, sp := range synonymPairs(in.NameVec, p.SynonymMin, p.SynonymK) {
		g.link(entityNode(sp.A), entityNode(sp.B), (sp.Cos-p.SynonymMin)/(1-p.SynonymMin+1e-9)*0.9+0.1)
		res.Synonyms++
	}

	restart := map[string]float64{}
	var strong float64 // entity seed mass from named or closely matching entities
	var entityMass float64
	for _, k := range walkKeys(in.Linked) {
		s := in.Linked[k] * specificity(in.Mentions[k])
		restart[entityNode(k)] += s
		strong += s
	}
	nameN := minMax(in.NameSim)
	names := walkKeys(in.NameSim)
	sort.SliceStable(names, func(i, j int) bool { return in.NameSim[names[i]] > in.NameSim[names[j]] })
	for i, k := range names {
		if i == p.NameSeeds || nameN[k] < 0.5 {
			break
		}
		s := nameN[k] * specificity(in.Mentions[k])
		restart[entityNode(k)] += s
		if nameN[k] >= 0.9 {
			strong += s
		}
	}
	for _, k := range walkKeys(restart) {
		entityMass += restart[k]
	}
	// Passage seeds: the PoolSeeds best first-pass chunks, by rescaled relevance, carrying the
	// PassageSeed share of the restart mass (all of it when no entity is seeded).
	pool := walkKeys(in.Pool)
	sort.SliceStable(pool, func(i, j int) bool { return in.Pool[pool[i]] > in.Pool[pool[j]] })
	if len(pool) > p.PoolSeeds {
		pool = pool[:p.PoolSeeds]
	}
	top := map[string]float64{}
	for _, c := range pool {
		top[c] = in.Pool[c]
	}
	poolN := minMax(top)
	var poolMass float64
	for _, c := range pool {
		poolMass += p.EdgeFloor + poolN[c]
	}
	share := p.PassageSeed
	if entityMass == 0 {
		share = 1
	}
	for _, c := range pool {
		v := (p.EdgeFloor + poolN[c]) / poolMass * share
		if entityMass > 0 {
			v *= entityMass / (1 - share)
		}
		restart[chunkNode(c)] += v
	}
	res.Seeds = len(restart)
	scores := g.ppr(restart, p.Damping, p.Iterations)
	res.ChunkScore, res.Entity = map[string]float64{}, map[string]float64{}
	var chunkMass float64
	for _, id := range walkKeys(scores) {
		s := scores[id]
		switch id[0] {
		case 'c':
			res.ChunkScore[id[2:]] = s
			res.Chunks = append(res.Chunks, id[2:])
			chunkMass += s
		case 'e':
			res.Entity[id[2:]] = s
		}
	}
	ranked := make([]scoredID, len(res.Chunks))
	for i, c := range res.Chunks {
		ranked[i] = scoredID{c, res.ChunkScore[c]}
	}
	slices.SortFunc(ranked, func(a, b scoredID) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.id, b.id))
	})
	for i, r := range ranked {
		res.Chunks[i] = r.id
	}
	if chunkMass > 0 && entityMass > 0 {
		var top float64
		for i, c := range res.Chunks {
			if i == 5 {
				break
			}
			top += res.ChunkScore[c]
		}
		// min: float sums of the same masses can exceed 1 by an ulp (1.0000000000000002 seen).
		res.Confidence = min(1, (strong/entityMass)*(top/chunkMass))
	}
	return res
}

// scoredID is a chunk id with its walk score, for sorting.
type scoredID struct {
	id    string
	score float64
}

func walkKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// graphWeight maps the walk's confidence to the RRF weight of its list next to hybrid's 1:
// lo without confidence, hi at full confidence, linear between.
func graphWeight(conf, lo, hi float64) float64 {
	conf = math.Max(0, math.Min(1, conf))
	return lo + (hi-lo)*conf
}
