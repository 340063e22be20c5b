package agent

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// ChunkReader reads chunks by id as a caller (groups) may read them; a chunk the caller may not
// read is not returned (graph.Store).
type ChunkReader interface {
	Chunks(ctx context.Context, ids []string, groups []string) ([]ariadne.Chunk, error)
}

// ChainHop is one hop of the evidence path a multi-hop answer cites: the relation between two
// entities and the verified sentence of a readable chunk that names both.
type ChainHop struct {
	From     string           `json:"from"` // entity name as the caller may see it
	To       string           `json:"to"`
	Type     string           `json:"type"` // relationship type
	Citation ariadne.Citation `json:"citation"`
}

// maxChainHops bounds the evidence path a multi-hop answer cites: MaxPaths paths reach at most
// this far from the question's entities in the readable subgraph (multihop.go).
const maxChainHops = 4

// chainPlan is the evidence path a multi-hop answer cites, one sentence per hop, the fact the
// question asks about the path's last entity (from that entity's own page, when the hops leave a
// question term unstated and the page states it), and how much of the question those sentences
// cover together (IDF-weighted share of its terms, in [0, 1]).
type chainPlan struct {
	path  ariadne.Path
	hops  []hopUnit
	last  hopUnit // empty: the hops state all the question asks, or the page does not; no hops: the named entity's own sentence
	kind  hopUnit // the end page's unit that states the kind of fact asked (a count, a time, a place) when the end's fact does not (kindUnit)
	cover float64
	odds  float64 // walkOdds of path
	role  bool    // a hop states a term of the question's roleTerms
}

// DocumentChunkReader lists the readable chunks of documents (graph.Store); with it, a chain's
// last entity's own page is searched for the fact the question asks about that entity.
type DocumentChunkReader interface {
	DocumentChunkIDs(ctx context.Context, docIDs, groups []string) ([]string, error)
}

// planChain picks the evidence path a multi-hop answer cites. For each path (≤ maxChainHops), one
// sentence per hop: a unit of one of the edge's provenance chunks (readable by the caller: the
// path's chunk ids already are, and the chunks are read again as the caller) that names both ends
// of the edge by name (Latin keys, so either script and inflected forms match; one end may be
// named by the chunk's title or section instead). A path is a candidate only when every hop has
// such a sentence; the chosen one is the candidate whose sentences cover most of the question's
// terms other than those of the path's first entity, which the question names (termCover, IDF over
// the fragments and the chunks read), then the one a random walk is likelier to follow (walkOdds:
// no hop through a hub when a path through specific entities says as much), then the one with
// fewer hops, then the first in retrieval order — so the chain follows the question rather than
// the nearest neighbour. What the question's main clause asks, before a relative clause that
// describes the entity it asks about ("Who stands in for the engineer who restarted X?"), is said
// of the path's end: its terms count only in the last hop's sentence, the last entity's page or an
// entity type on the way, not in the sentence of an earlier hop (mainClauseTerms). The words that
// name the asked entity by its relation to a named one ("the underwriter of policy X": roleTerms)
// are how the chain gets there: they count only in a hop's sentence, and a chain whose hops state
// one of them comes before every chain whose hops state none. A question
// about the chain's end ("the office of the account manager of X") is answered by the end
// entity's own page: the unit of that page (readable by the caller) that states
// most of the question terms the hops leave unstated — at least one of them in its own text — is
// the plan's last sentence and counts in its coverage (lastUnit). When the own page of a path's
// first entity (one the question names) has a sentence that covers at least as much — and, when
// the question has a relative clause, states a term of its main clause — fewer hops win: the
// plan has no hops and that sentence as its last. No hops in the plan: no path is
// claimed.
//
// When the question names no entity the linker could confirm, the paths start wherever the walk
// ranked best (walkRooted), which need not be where the question's chain starts ("the capacity of
// the elevator where the dryer caught fire": the walk's paths ran from another elevator through
// the burnt one to the fire); then every stretch of every path, read either way, is a candidate
// too (subPaths), every candidate is scored against all of the question's terms (no first entity
// is given), and the same score picks among them. Only the given paths' first entities are tried
// as a page that answers with no hop.
func (a *Answerer) planChain(ctx context.Context, req Request, linked []Linked, paths []ariadne.Path, walkRooted bool, frags []Fragment, tr *Trace) (chainPlan, error) {
	roots := paths
	if walkRooted {
		paths = subPaths(paths)
	}
	byID := map[string]Fragment{}
	for _, f := range frags {
		byID[f.Chunk.ID] = f
	}
	var missing []string
	need := func(id string) {
		if _, ok := byID[id]; !ok && !containsString(missing, id) {
			missing = append(missing, id)
		}
	}
	for _, p := range paths {
		for _, e := range p.Edges {
			for _, id := range e.ChunkIDs {
				need(id)
			}
		}
	}
	// The pages of the paths' last entities.
	pageChunks := map[string][]string{} // document id → its readable chunk ids
	if dr, ok := a.cfg.Chunks.(DocumentChunkReader); ok {
		var docs []string
		for _, p := range paths {
			if p.Hops() == 0 || p.Hops() > maxChainHops {
				continue
			}
			for _, n := range []ariadne.PathNode{p.Nodes[0], p.Nodes[len(p.Nodes)-1]} {
				if d := n.DocID; d != "" && !containsString(docs, d) {
					docs = append(docs, d)
				}
			}
		}
		if len(docs) > 0 {
			start := time.Now()
			ids, err := dr.DocumentChunkIDs(ctx, docs, req.Groups)
			tr.time("chain_read_pages", start)
			if err != nil {
				return chainPlan{}, fmt.Errorf("agent: read chain end pages: %w", err)
			}
			for _, id := range ids {
				d := ariadne.DocIDOfChunk(id)
				pageChunks[d] = append(pageChunks[d], id)
				need(id)
			}
		}
	}
	// The ends' other names, as the caller sees them: a hop's sentence may name an end in the
	// other language ("the Data Integration team" for «Команда интеграции данных»).
	aliases := map[string][]string{}
	keys := chainNodeKeys(paths)
	if ar, ok := a.cfg.Chunks.(EntityAliasReader); ok {
		var err error
		start := time.Now()
		aliases, err = ar.EntityAliases(ctx, keys, req.Groups)
		tr.time("chain_read_aliases", start)
		if err != nil {
			return chainPlan{}, fmt.Errorf("agent: read chain entity aliases: %w", err)
		}
	}
	// The paths' entities' degrees as the caller sees them, for walkOdds (security audit: a
	// finance contract relating a public project flipped an anonymous caller's chain). Edges
	// gives the same degrees for entities with the per-acl counts (graph.readableDegree); this
	// read still counts them for a graph written before those (until cmd/extract's RefreshStale),
	// where the edges' degrees count every relationship.
	var degrees map[string]int
	if dr, ok := a.cfg.Chunks.(EntityDegreeReader); ok {
		var err error
		start := time.Now()
		degrees, err = dr.EntityDegrees(ctx, keys, req.Groups)
		tr.time("chain_read_degrees", start)
		if err != nil {
			return chainPlan{}, fmt.Errorf("agent: read chain entity degrees: %w", err)
		}
	}
	all := append([]Fragment(nil), frags...)
	if len(missing) > 0 && a.cfg.Chunks != nil {
		start := time.Now()
		cs, err := a.cfg.Chunks.Chunks(ctx, missing, req.Groups)
		tr.time("chain_read_chunks", start)
		if err != nil {
			return chainPlan{}, fmt.Errorf("agent: read chain chunks: %w", err)
		}
		for _, c := range cs {
			if !ariadne.CanRead(c.ACL, req.Groups) {
				continue // defence in depth: the reader already filters
			}
			f := Fragment{N: len(all) + 1, Chunk: c}
			all = append(all, f)
			byID[c.ID] = f
		}
	}
	q := newQuestionTerms(req.Question, a.cfg.Lexicon, callerScope(req.Groups)).memoized()
	idf, _ := termIDF(q, all)
	memo := newChainMemo()
	asked := mainClauseTerms(req.Question)   // said of the path's end (clause.go)
	roles := roleTerms(req.Question, linked) // said on the way to the end (clause.go)
	var best chainPlan
	for _, p := range paths {
		if p.Hops() == 0 || p.Hops() > maxChainHops {
			continue
		}
		nodes := map[string]ariadne.PathNode{}
		for _, n := range p.Nodes {
			nodes[n.Key] = n
		}
		terms, sum := chainTerms(q, given(p.Nodes[0], walkRooted), linked, aliases, idf)
		var hops []hopUnit
		got := map[string]float64{}
		for i, e := range p.Edges {
			h, ok := memo.hopSentence(endNames(nodes[e.From], aliases), endNames(nodes[e.To], aliases), e.ChunkIDs, byID)
			if !ok {
				break
			}
			hops = append(hops, h)
			covered, _ := termCover(terms, h.quote, contextTerms(terms, h.frag), idf, sum)
			for t, w := range covered {
				if i < len(p.Edges)-1 && asked[t] {
					continue // said of the path's end, not of an entity on the way
				}
				got[t] = max(got[t], w)
			}
		}
		if len(hops) != p.Hops() {
			continue
		}
		// An entity the path passes through states its type: "the client affected by X" is
		// stated by a path through a client entity, as much as by a sentence that has the word.
		// Not the last entity: the question asks about it, and its own sentence must say so.
		for _, n := range p.Nodes[1 : len(p.Nodes)-1] {
			covered, _ := termCover(terms, typeWords(n.Type), nil, idf, sum)
			for t, w := range covered {
				got[t] = max(got[t], w)
			}
		}
		last, covered := lastUnit(terms, got, pageOf(pageChunks, byID, p.Nodes[len(p.Nodes)-1]), hops, idf, sum, memo)
		// A chain whose hops state how the named entity leads to the asked one (roleTerms: "the
		// underwriter of X" reached by "The underwriter is R. L.") beats one that reaches some
		// other neighbour, however much of the rest of the question that neighbour's page shares;
		// the end's page does not say how the named entity leads to it.
		role := false
		for t := range roles {
			if _, said := got[t]; said {
				role = true
			} else {
				delete(covered, t)
			}
		}
		cover := chainCover(got, covered, idf, sum)
		odds := walkOdds(withDegrees(p, degrees))
		if best.hops == nil || role && !best.role || role == best.role && (cover > best.cover+chainEps ||
			cover > best.cover-chainEps && (odds > best.odds+chainEps || odds > best.odds-chainEps && len(hops) < len(best.hops))) {
			best = chainPlan{path: p, hops: hops, last: last, cover: cover, odds: odds, role: role}
		}
	}
	// No hop at all: the page of an entity the question names may state as much of the question
	// by itself ("Since when has O. Varin led the infra team?" — his own page says; a path through a
	// meeting he attended to a colleague's page that says since when *she* leads *her* team says no
	// more). Fewer hops win a tie, so then no chain is claimed and the page's sentence joins the
	// fragments the generator reads — unless that sentence is one of the chain's own (the
	// client's page names its account manager: the hop is the answer).
	if best.hops == nil {
		return best, nil
	}
	seen := map[string]bool{}
	for _, p := range roots {
		n := p.Nodes[0]
		if p.Hops() == 0 || p.Hops() > maxChainHops || n.DocID == "" || seen[n.Key] {
			continue
		}
		seen[n.Key] = true
		terms, sum := chainTerms(q, given(n, walkRooted), linked, aliases, idf)
		own, covered := lastUnit(terms, map[string]float64{}, pageOf(pageChunks, byID, n), nil, idf, sum, memo)
		inChain := slices.ContainsFunc(best.units(), func(h hopUnit) bool { return h.quote == own.quote })
		// With a relative clause, the page answers only if it states something the main clause
		// asks: «центральный склад которой находится в N» is what finds the chain, not its answer.
		asks := asked == nil
		for t := range covered {
			asks = asks || asked[t]
		}
		if own.quote != "" && !inChain && asks && chainCover(nil, covered, idf, sum) > best.cover-chainEps {
			return chainPlan{last: own}, nil
		}
	}
	// The asked fact is the end's: a hop's date ("approved by O. on 20 November") is a link's.
	if states := askedKind(req.Question); states != nil && !states(best.endFact().quote) {
		terms, sum := chainTerms(q, given(best.path.Nodes[0], walkRooted), linked, aliases, idf)
		best.kind = kindUnit(states, terms, pageOf(pageChunks, byID, best.path.Nodes[len(best.path.Nodes)-1]), best.units(), idf, sum, memo)
	}
	return best, nil
}

// subPaths returns paths followed by every stretch of one or more hops of each path, in either
// direction, that is not already among them (by the keys of its entities in order): the paths
// first, in their order, then the new stretches in the order they are met. A stretch read
// backwards lists the same edges (each keeps its From and To) in reverse order.
func subPaths(paths []ariadne.Path) []ariadne.Path {
	seen := map[string]bool{}
	key := func(nodes []ariadne.PathNode) string {
		var b strings.Builder
		for _, n := range nodes {
			b.WriteString(n.Key)
			b.WriteByte(0)
		}
		return b.String()
	}
	out := make([]ariadne.Path, 0, len(paths))
	for _, p := range paths {
		seen[key(p.Nodes)] = true
		out = append(out, p)
	}
	for _, p := range paths {
		for i := 0; i < len(p.Nodes); i++ {
			for j := i + 1; j < len(p.Nodes); j++ {
				fwd := ariadne.Path{Nodes: slices.Clone(p.Nodes[i : j+1]), Edges: slices.Clone(p.Edges[i:j])}
				back := ariadne.Path{Nodes: slices.Clone(fwd.Nodes), Edges: slices.Clone(fwd.Edges)}
				slices.Reverse(back.Nodes)
				slices.Reverse(back.Edges)
				for _, s := range []ariadne.Path{fwd, back} {
					if k := key(s.Nodes); !seen[k] {
						seen[k] = true
						out = append(out, s)
					}
				}
			}
		}
	}
	return out
}

// kindUnit returns the unit of the page (the chain's end entity's own chunks) that states the
// kind of fact the question asks for (states: a count, a time, a place — askedKind) and covers
// most of the question's terms (termCover), the shorter on a tie; none that repeats a unit of
// have (planChain asks for it when the plan's end fact, endFact, states no such fact). "Which
// city is the client of the project hit by INC-7 headquartered in?" ends at the
// client, whose page says where it is in a sentence that shares no word with the question
// ("headquartered" frames it, "city" is not written): without it the answer quoted the client's
// other sentences and never the city.
func kindUnit(states func(string) bool, terms questionTerms, page []Fragment, have []hopUnit, idf map[string]float64, sum float64, memo *chainMemo) hopUnit {
	var best hopUnit
	bestCover := -1.0
	for _, f := range page {
		ctxTerms, headers := contextTerms(terms, f), memo.tableHeaders(f.Chunk)
		for _, ku := range memo.units(f.Chunk) {
			u := ku.text
			if !states(u) || slices.ContainsFunc(have, func(h hopUnit) bool { return h.quote == u }) {
				continue
			}
			uctx, claim := unitContext(terms, ctxTerms, headers, u)
			if !claim {
				continue
			}
			_, cover := termCover(terms, u, uctx, idf, sum)
			if cover > bestCover+chainEps || cover > bestCover-chainEps && len(u) < len(best.quote) {
				best, bestCover = hopUnit{f, u}, cover
			}
		}
	}
	return best
}

// typeWords is an ontology type as words ("runbook", "meeting_note" → "meeting note").
func typeWords(typ string) string { return strings.ReplaceAll(typ, "_", " ") }

// chainEps is how close two chains' coverages (or walkOdds) are to count as a tie.
const chainEps = 1e-9

// walkOdds is the natural log of the probability that a random walk from the path's first entity,
// taking one of its current entity's relationships at random each step, follows the path: minus
// the sum of log(degree) over every entity but the last (a path-constrained random walk, Lao &
// Cohen 2010; the degree-weighted path count of Himmelstein & Baranzini 2015 discounts hubs the
// same way). A hop through a hub — a library every project uses — is weak evidence that its two
// neighbours belong together; a path through specific entities is the likelier reading of the
// question's chain. Extending a path never raises its odds. Degrees not read count as 1.
func walkOdds(p ariadne.Path) float64 {
	var odds float64
	for _, n := range p.Nodes[:max(len(p.Nodes)-1, 0)] {
		odds -= math.Log(float64(max(n.Degree, 1)))
	}
	return odds
}

// chainNodeKeys returns the keys of the entities of the paths a chain may take (1 to
// maxChainHops hops), each once, in path order.
func chainNodeKeys(paths []ariadne.Path) []string {
	var keys []string
	for _, p := range paths {
		if p.Hops() == 0 || p.Hops() > maxChainHops {
			continue
		}
		for _, n := range p.Nodes {
			if !containsString(keys, n.Key) {
				keys = append(keys, n.Key)
			}
		}
	}
	return keys
}

// withDegrees returns p with its nodes' degrees from degrees (by key, as the caller sees them);
// p itself when degrees is nil, and a node's own degree when degrees lacks its key.
func withDegrees(p ariadne.Path, degrees map[string]int) ariadne.Path {
	if degrees == nil {
		return p
	}
	nodes := slices.Clone(p.Nodes)
	for i, n := range nodes {
		if d, ok := degrees[n.Key]; ok {
			nodes[i].Degree = d
		}
	}
	p.Nodes = nodes
	return p
}

// chainTerms returns the question's terms a path from start must cover and their IDF sum: every
// path starts at an entity the question names, and its names' terms say nothing about which path
// answers, so they are left out — the words the question names it by (linked: «О. Варин» for
// "Oleg Varin", whose terms are neither of the other's) and its names (aliases: as the caller
// sees them, by entity key).
func chainTerms(q questionTerms, start ariadne.PathNode, linked []Linked, aliases map[string][]string, idf map[string]float64) (questionTerms, float64) {
	names := map[string]bool{}
	for _, n := range endNames(start, aliases) {
		for _, t := range textnorm.SearchTerms(n) {
			names[t] = true
		}
	}
	for _, l := range linked {
		if l.Key == start.Key {
			for _, t := range textnorm.SearchTerms(l.Surface) {
				names[t] = true
			}
		}
	}
	terms := q.only(func(t string) bool { return !names[t] })
	var sum float64
	for _, t := range terms.terms {
		sum += idf[t]
	}
	return terms, sum
}

// given returns a path's first entity as the question gives it — n itself when the paths start at
// entities the question names, and no entity when they start where the walk ranked best
// (walkRooted): then every path is scored against all of the question's terms, and a path does
// not gain a share by starting at an entity whose name repeats some of them.
func given(n ariadne.PathNode, walkRooted bool) ariadne.PathNode {
	if walkRooted {
		return ariadne.PathNode{}
	}
	return n
}

// pageOf returns the fragments of n's own page among those read (byID), in pageChunks' order.
func pageOf(pageChunks map[string][]string, byID map[string]Fragment, n ariadne.PathNode) []Fragment {
	var page []Fragment
	for _, id := range pageChunks[n.DocID] {
		if f, ok := byID[id]; ok {
			page = append(page, f)
		}
	}
	return page
}

// chainCover is the IDF-weighted share of the question's terms (sum: their IDF total) that the
// hops (got) and the last unit (covered) state, in [0, 1]; a term's weight is the larger of the two.
func chainCover(got, covered map[string]float64, idf map[string]float64, sum float64) float64 {
	all := map[string]float64{}
	for _, m := range []map[string]float64{got, covered} {
		for t, w := range m {
			all[t] = max(all[t], w)
		}
	}
	var cover float64
	for _, t := range sortedKeys(all) {
		cover += all[t] * idf[t]
	}
	if sum > 0 {
		cover /= sum
	}
	return cover
}

// lastUnit returns the unit of the page (the chain's last entity's own chunks) that adds most to
// the question terms the hops state (got: term → 1 stated, 0.5 by title or section only), IDF
// weighted, and the terms it covers (termCover; a table row's header counts as its context); it
// must state at least one term the hops leave unstated in its own text, and repeat no hop
// sentence. Ties go to the shorter unit. Nothing when the hops state every term.
func lastUnit(terms questionTerms, got map[string]float64, page []Fragment, hops []hopUnit, idf map[string]float64, sum float64, memo *chainMemo) (hopUnit, map[string]float64) {
	var best hopUnit
	var bestCovered map[string]float64
	var bestGain float64
	for _, f := range page {
		ctxTerms, headers := contextTerms(terms, f), memo.tableHeaders(f.Chunk)
		for _, ku := range memo.units(f.Chunk) {
			u := ku.text
			if slices.ContainsFunc(hops, func(h hopUnit) bool { return h.quote == u }) {
				continue
			}
			uctx, claim := unitContext(terms, ctxTerms, headers, u)
			if !claim {
				continue
			}
			covered, _ := termCover(terms, u, uctx, idf, sum)
			var gain float64
			own := false
			for _, t := range terms.terms {
				if w := covered[t]; w > got[t] {
					gain += (w - got[t]) * idf[t]
					own = own || w == 1 && got[t] < 1
				}
			}
			const eps = 1e-9
			if own && (gain > bestGain+eps || gain > bestGain-eps && len(u) < len(best.quote)) {
				best, bestCovered, bestGain = hopUnit{f, u}, covered, gain
			}
		}
	}
	return best, bestCovered
}

// withChain returns the fragments followed by the plan's hop chunks that are not among them yet
// (numbered on), so that the generator sees each link of the chain it may be asked to answer along.
func withChain(frags []Fragment, plan chainPlan) []Fragment {
	return withUnits(frags, plan.units())
}

// withUnits returns the fragments followed by the units' chunks that are not among them yet
// (numbered on).
func withUnits(frags []Fragment, units []hopUnit) []Fragment {
	out := append([]Fragment(nil), frags...)
	for _, h := range units {
		if !slices.ContainsFunc(out, func(f Fragment) bool { return f.Chunk.ID == h.frag.Chunk.ID }) {
			f := h.frag
			f.N = len(out) + 1
			out = append(out, f)
		}
	}
	return out
}

// chainClaims verifies the plan's hop sentences against frags (which must hold the hop chunks,
// withChain) and returns them as claims with the chain they spell out, in path order; nothing when
// the plan has no hops or a hop does not verify.
func chainClaims(ctx context.Context, plan chainPlan, frags []Fragment) ([]ariadne.Claim, []ChainHop, error) {
	if len(plan.hops) == 0 {
		return nil, nil, nil
	}
	claims, err := verifyUnits(ctx, plan.units(), frags)
	if err != nil || claims == nil {
		return nil, nil, err // a hop that does not verify: the chain is not claimed
	}
	names := map[string]string{}
	for _, n := range plan.path.Nodes {
		names[n.Key] = n.Name
	}
	var chain []ChainHop
	for i, e := range plan.path.Edges {
		chain = append(chain, ChainHop{From: names[e.From], To: names[e.To], Type: e.Type, Citation: claims[i].Citations[0]})
	}
	return claims, chain, nil
}

// verifyUnits verifies units (each quoted verbatim from its fragment) against frags, which must
// hold their chunks, and returns them as claims in order; nil when any unit's chunk is not among
// frags or a unit does not verify.
func verifyUnits(ctx context.Context, units []hopUnit, frags []Fragment) ([]ariadne.Claim, error) {
	byID := map[string]Fragment{}
	for _, f := range frags {
		byID[f.Chunk.ID] = f
	}
	out := Output{}
	for _, h := range units {
		f, ok := byID[h.frag.Chunk.ID]
		if !ok {
			return nil, nil
		}
		out.Claims = append(out.Claims, OutputClaim{Text: h.quote, Citations: []OutputCitation{{Fragment: f.N, ChunkID: f.Chunk.ID, Quote: h.quote}}})
	}
	v, err := Verify(ctx, out, frags, nil)
	if err != nil || len(v.Claims) != len(units) {
		return nil, err
	}
	return v.Claims, nil
}

type hopUnit struct {
	frag  Fragment
	quote string
}

// endFact is the plan's sentence about its end entity: the last unit, or without one the last
// hop's sentence.
func (p chainPlan) endFact() hopUnit {
	if p.last.quote != "" || len(p.hops) == 0 {
		return p.last
	}
	return p.hops[len(p.hops)-1]
}

// units returns the plan's sentences in the order they are claimed: the hops in path order, then
// the last entity's fact.
func (p chainPlan) units() []hopUnit {
	out := p.hops
	for _, u := range []hopUnit{p.last, p.kind} {
		if u.quote != "" {
			out = append(slices.Clip(out), u)
		}
	}
	return out
}

// EntityAliasReader gives the other names of entities as a caller (groups) sees them, keyed as
// asked; entities the caller may not see are absent (graph.Store).
type EntityAliasReader interface {
	EntityAliases(ctx context.Context, keys, groups []string) (map[string][]string, error)
}

// EntityDegreeReader gives entities' degrees as the caller sees them: their relationships to
// other entities with a chunk the caller may read (graph.Store.EntityDegrees), keyed as given.
type EntityDegreeReader interface {
	EntityDegrees(ctx context.Context, keys, groups []string) (map[string]int, error)
}

// endNames is a path node's name followed by its aliases of at least three letters (shorter ones,
// initials and codes, would name too much).
func endNames(n ariadne.PathNode, aliases map[string][]string) []string {
	out := []string{n.Name}
	for _, a := range aliases[n.Key] {
		if utf8.RuneCountInString(a) >= 3 && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// nameKeys returns the Latin key tokens of each name (textnorm.KeyTokens), computed once for
// every unit a hop tries: transliterating each alias again for each unit made the chain's alias
// matching cost tens of milliseconds per multi-hop answer.
func nameKeys(names []string) [][]string {
	out := make([][]string, 0, len(names))
	for _, n := range names {
		out = append(out, textnorm.KeyTokens(n))
	}
	return out
}

// namesAny reports whether a text, given by its key tokens, names the entity by any of its names
// (given by nameKeys; namesEntity's rule).
func namesAny(toks []string, names [][]string) bool {
	return slices.ContainsFunc(names, func(nts []string) bool { return namesTokens(toks, nts) })
}

// chainMemo keeps what one planChain call's paths share, so that dozens of candidate paths
// through the same edges and pages split, tokenize and match each once: each chunk's units
// (planted ones left out) with their Latin key tokens, its table headers, and each edge's hop
// sentence. Not safe for concurrent use.
type chainMemo struct {
	chunkUnits map[string][]keyedUnit
	headers    map[string]map[string]string
	hops       map[string]hopResult
}

// keyedUnit is a unit of a chunk and its Latin key tokens (textnorm.KeyTokens).
type keyedUnit struct {
	text string
	toks []string
}

type hopResult struct {
	hop hopUnit
	ok  bool
}

func newChainMemo() *chainMemo {
	return &chainMemo{chunkUnits: map[string][]keyedUnit{}, headers: map[string]map[string]string{}, hops: map[string]hopResult{}}
}

// units returns the chunk's units that are not planted instructions, in order, with their tokens.
func (m *chainMemo) units(c ariadne.Chunk) []keyedUnit {
	if us, ok := m.chunkUnits[c.ID]; ok {
		return us
	}
	var us []keyedUnit
	for _, u := range chunkUnits(c) {
		if !planted(u, c.ACL) {
			us = append(us, keyedUnit{u, textnorm.KeyTokens(u)})
		}
	}
	m.chunkUnits[c.ID] = us
	return us
}

// tableHeaders is tableHeaders of the chunk's text, once per chunk.
func (m *chainMemo) tableHeaders(c ariadne.Chunk) map[string]string {
	h, ok := m.headers[c.ID]
	if !ok {
		h = tableHeaders(c.Text)
		m.headers[c.ID] = h
	}
	return h
}

// hopSentence returns the shortest unit of the edge's chunks that names both ends, each by its
// name or one of its aliases (from and to: name first); once per edge and pair of names.
func (m *chainMemo) hopSentence(from, to []string, chunkIDs []string, byID map[string]Fragment) (hopUnit, bool) {
	key := strings.Join(from, "\x1f") + "\x1e" + strings.Join(to, "\x1f") + "\x1e" + strings.Join(chunkIDs, "\x1f")
	if r, ok := m.hops[key]; ok {
		return r.hop, r.ok
	}
	fromKeys, toKeys := nameKeys(from), nameKeys(to)
	var best hopUnit
	for _, id := range chunkIDs {
		f, ok := byID[id]
		if !ok {
			continue
		}
		ctxText := f.Chunk.Title + " " + f.Chunk.HeadingPath()
		ctxToks := textnorm.KeyTokens(ctxText)
		fromCtx, toCtx := namesAny(ctxToks, fromKeys), namesAny(ctxToks, toKeys)
		for _, ku := range m.units(f.Chunk) {
			inFrom, inTo := namesAny(ku.toks, fromKeys), namesAny(ku.toks, toKeys)
			if inFrom && inTo || inFrom && toCtx || inTo && fromCtx {
				if best.quote == "" || len(ku.text) < len(best.quote) {
					best = hopUnit{f, ku.text}
				}
			}
		}
	}
	m.hops[key] = hopResult{best, best.quote != ""}
	return best, best.quote != ""
}

// namesEntity reports whether text names the entity: every token of the name's Latin key starts a
// token of the text's Latin key (the first max(4, n−2) letters of longer tokens, three of
// four-letter ones, so «Иванова»
// names "Ivanov" and "Omega Logistic" names «Омега Логистик»), or is given by its initial («М.
// Орлова» names Марина Орлова) while at least one token matches in full.
func namesEntity(text, name string) bool {
	return namesTokens(textnorm.KeyTokens(text), textnorm.KeyTokens(name))
}

// namesTokens is namesEntity on key tokens: toks of the text, nts of the name.
func namesTokens(toks, nts []string) bool {
	if len(nts) == 0 {
		return false
	}
	full := 0
	for _, nt := range nts {
		stem := nt
		switch r := []rune(nt); {
		case len(r) >= 5:
			stem = string(r[:max(4, len(r)-2)])
		case len(r) == 4 && !numberRE.MatchString(nt):
			stem = string(r[:3]) // «Ольгу», «Ольги» name Ольга
		}
		ok, initial := false, false
		for _, t := range toks {
			if strings.HasPrefix(t, stem) {
				ok = true
				break
			}
			if len(nts) > 1 && len([]rune(t)) == 1 && strings.HasPrefix(nt, t) {
				initial = true
			}
		}
		switch {
		case ok:
			full++
		case !initial:
			return false
		}
	}
	return full > 0
}
