package agent

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ariadne-graphrag/ariadne"
)

// graphHybrid is the multi_hop plan: the query-aware walk (walk.go, docs/multi-hop.md). The
// first pass is hybrid and vector search; their chunks, the entities those chunks mention, the
// entities the question names (linked) or whose names embed close to it, the other chunks that
// mention those entities or belong to the documents they describe, and the relations among them
// form one graph whose edges are weighted by question–chunk cosine. Personalized PageRank over
// it ranks the chunks; that ranking is fused by weighted RRF with hybrid, its weight following
// the walk's confidence. Every read takes the caller's groups. Without any entity it is hybrid.
func (r *Retriever) graphHybrid(ctx context.Context, req Request, vec []float32, linked []Linked, tr *Trace) (Result, string, error) {
	var res Result
	// The first pass's two searches are independent: run them at once.
	var hybrid, dense []ariadne.ScoredChunk
	first, fctx := errgroup.WithContext(ctx)
	first.Go(func() (err error) {
		hybrid, err = r.questionSearch(fctx, ariadne.SearchHybrid, req, vec, tr)
		return err
	})
	first.Go(func() (err error) {
		dense, err = r.questionSearch(fctx, ariadne.SearchVector, req, vec, tr)
		return err
	})
	if err := first.Wait(); err != nil {
		return res, "", err
	}
	for i := range hybrid {
		hybrid[i].Sources = []string{"hybrid"}
	}
	// The bridge hop needs only the first pass: it runs while the walk reads the graph. A return
	// before its result is used cancels it and waits for it.
	var bridgeLists [][]ariadne.ScoredChunk
	var bridges [][2]string
	waitBridge := func() error { return nil }
	if n := r.cfg.bridgeHops(); n > 0 {
		bctx, cancelBridge := context.WithCancel(ctx)
		bridge, bctx := errgroup.WithContext(bctx)
		bridge.Go(func() (err error) {
			t0 := time.Now()
			defer tr.time("bridge_hop", t0)
			bridgeLists, bridges, err = r.BridgeHop(bctx, req, hybrid, bridgeDepth, n, tr)
			return err
		})
		defer func() {
			cancelBridge()
			_ = bridge.Wait()
		}()
		waitBridge = bridge.Wait
	}
	// Passage seeds are hybrid's hits (its relative-score fusion is on [0, 1] for either
	// embedder); vector hits only join the graph.
	pool := map[string]float64{}
	for _, c := range hybrid {
		pool[c.ID] = c.Score
	}
	inPool := map[string]bool{}
	for _, c := range append(append([]ariadne.ScoredChunk(nil), hybrid...), dense...) {
		inPool[c.ID] = true
	}
	poolIDs := walkKeys(inPool)
	t0 := time.Now()
	chunkEnts, err := r.graph.EntitiesOfChunks(ctx, poolIDs, req.Groups)
	if err != nil {
		return res, "", err
	}
	entSet := map[string]bool{}
	linkedScore := map[string]float64{}
	var linkedKeys []string
	for _, l := range linked {
		entSet[l.Key], linkedScore[l.Key] = true, 1
		linkedKeys = append(linkedKeys, l.Key)
	}
	for _, ks := range chunkEnts {
		for _, k := range ks {
			entSet[k] = true
		}
	}
	note := fmt.Sprintf("%d linked entities, %d first-pass chunks mention %d entities", len(linked), len(pool), len(entSet))
	if len(entSet) == 0 {
		res.Chunks = hybrid
		return res, note + "; no entities: hybrid results only", nil
	}
	keys := walkKeys(entSet)
	tr.time("walk_read_chunk_entities", t0)
	// Two independent chains run at once: the entities' mentions, their describing documents'
	// chunks and the question–chunk cosines of every chunk those reach (one vector search
	// restricted to them); and the relations among the entities. The chunks only a relation's
	// provenance reaches (a few dozen of ~2 500 at 100k chunks) get their cosines after both.
	in := walkInput{ChunkEntities: map[string][]string{}, DocChunks: map[string][]string{},
		Mentions: map[string]int{}, Linked: linkedScore, Pool: pool, ChunkSim: map[string]float64{}}
	for _, c := range append(append([]ariadne.ScoredChunk(nil), hybrid...), dense...) {
		in.First = append(in.First, c.ID)
	}
	for c, ks := range chunkEnts {
		in.ChunkEntities[c] = append(in.ChunkEntities[c], ks...)
	}
	mentions := map[string]ariadne.EntityMentions{}
	var edges []ariadne.Edge
	var searched []string // chunk ids whose cosines the first search asked for
	reads, rctx := errgroup.WithContext(ctx)
	reads.Go(func() error {
		if mr, ok := r.graph.(MentionReader); ok {
			var err error
			if mentions, err = mr.EntityMentions(rctx, keys, req.Groups, r.cfg.WalkMentions, r.cfg.WalkHub); err != nil {
				return err
			}
		}
		if err := r.addMentions(rctx, req, keys, mentions, &in); err != nil {
			return err
		}
		tr.time("walk_read_mentions", t0)
		t1 := time.Now()
		searched = capIDs(walkReach(in, nil), r.cfg.WalkChunks)
		sims, err := r.chunkCosines(rctx, req, vec, searched, tr)
		maps.Copy(in.ChunkSim, sims)
		tr.time("walk_chunk_cosines", t1)
		return err
	})
	reads.Go(func() (err error) {
		edges, err = r.graph.Edges(rctx, keys, req.Groups, r.cfg.RelTypes, 2000)
		tr.time("walk_read_edges", t0)
		return err
	})
	if err := reads.Wait(); err != nil {
		return res, "", err
	}
	// The walk's graph and the evidence paths' BFS follow the edges' order: one order whatever
	// order the store returned them in.
	slices.SortStableFunc(edges, compareEdges)
	in.Edges = edges
	tr.time("walk_graph_reads", t0)
	t0 = time.Now()
	// The same chunks as one search over every reached chunk would score: the first WalkChunks
	// ids in order, of which the first search asked for all that the mentions and documents
	// reach (those are a subset of every reached chunk, so its own first WalkChunks hold them).
	reachIDs := capIDs(walkReach(in, edges), r.cfg.WalkChunks)
	askedFirst := make(map[string]bool, len(searched))
	for _, id := range searched {
		askedFirst[id] = true
	}
	kept := make(map[string]bool, len(reachIDs))
	var rest []string
	for _, id := range reachIDs {
		kept[id] = true
		if !askedFirst[id] {
			rest = append(rest, id)
		}
	}
	maps.DeleteFunc(in.ChunkSim, func(id string, _ float64) bool { return !kept[id] })
	if len(rest) > 0 {
		sims, err := r.chunkCosines(ctx, req, vec, rest, tr)
		if err != nil {
			return res, "", err
		}
		maps.Copy(in.ChunkSim, sims)
	}
	tr.time("walk_chunk_cosines", t0)
	t0 = time.Now()
	// Entity names: question–name cosine and synonym edges.
	nameNote := ""
	if pe, ok := r.embed.(PassageEmbedder); ok {
		names := map[string]string{}
		for k, m := range mentions {
			names[k] = m.Node.Name
		}
		vecs, err := r.names.embed(ctx, pe, req.Groups, names)
		if err != nil {
			return res, "", fmt.Errorf("agent: embed entity names: %w", err)
		}
		in.NameVec, in.NameSim = vecs, map[string]float64{}
		for k, v := range vecs {
			in.NameSim[k] = cosine(vec, v)
		}
	} else {
		nameNote = "; the embedder embeds no passages: no name seeds or synonym edges"
	}
	tr.time("walk_names", t0)
	t0 = time.Now()
	p := r.cfg.walkParams()
	wr := walk(in, p)
	var ranked []string
	for _, id := range wr.Chunks {
		if _, ok := in.ChunkSim[id]; ok { // readable and within WalkChunks
			ranked = append(ranked, id)
		}
	}
	tr.time("walk_ppr", t0)
	t0 = time.Now()
	graphList, err := r.hydrate(ctx, req, vec, ranked[:min(len(ranked), r.walkListLen(req))], tr)
	if err != nil {
		return res, "", err
	}
	for i := range graphList {
		graphList[i].Score = wr.ChunkScore[graphList[i].ID]
		graphList[i].Sources = []string{"graph"}
	}
	tr.time("walk_read_chunks", t0)
	res.walk = &WalkLists{Hybrid: hybrid, Walk: graphList, Confidence: wr.Confidence, Query: vec}
	w := graphWeight(wr.Confidence, r.cfg.GraphWeightMin, r.cfg.GraphWeight)
	res.Chunks = res.walk.Fuse(r.cfg.GraphWeightMin, r.cfg.GraphWeight, r.cfg.PerDoc)
	walked := res.Chunks
	if err := waitBridge(); err != nil {
		return res, "", err
	}
	bridgeNote := ""
	if len(bridgeLists) > 0 {
		var names []string
		for i, l := range bridgeLists {
			for j := range l {
				l[j].Sources = []string{"bridge"}
			}
			names = append(names, "«"+bridges[i][1]+"»")
		}
		res.Chunks = insertBridge(res.Chunks, bridgeLists, r.cfg.BridgeKept, r.cfg.BridgeDocs)
		bridgeNote = "; bridge hop with " + strings.Join(names, ", ")
	}
	sg := subgraph{nodes: map[string]ariadne.PathNode{}, edges: edges}
	for _, e := range edges {
		from, to := e.From, e.To
		from.Degree, to.Degree = e.FromDeg, e.ToDeg
		sg.nodes[from.Key], sg.nodes[to.Key] = from, to
	}
	// The paths start at the entities the question names; when it names none the linker could
	// confirm (a name paraphrased or translated: "the Lipetsk steel plant"), at the walk's best-ranked
	// entities, which the question's name similarity and first-pass passages seeded.
	roots := linkedKeys
	if len(roots) == 0 {
		roots, res.walkRooted = topEntities(wr.Entity, walkRoots), true
	}
	// The paths explain the walk's fused list: the bridge hop's passages are found by text, not
	// along the graph, and paths from them led the cited chain away from the walk's (measured:
	// docs/multi-hop.md, "A second hop by a bridge entity").
	res.Paths = evidencePaths(sg, roots, walked, pathChunks, r.cfg.MaxPaths)
	res.chainPaths = evidencePaths(sg, roots, walked, chainPathChunks, r.cfg.ChainPaths)
	return res, fmt.Sprintf("%s; walk over %d entities, %d chunks, %d relations, %d synonym edges, %d seeds%s; confidence %.2f, graph weight %.2f%s",
		note, len(wr.Entity), len(wr.ChunkScore), len(edges), wr.Synonyms, wr.Seeds, nameNote, wr.Confidence, w, bridgeNote), nil
}

// WalkLists are the two rankings the multi_hop route fuses: hybrid's first pass and the walk's
// own ranking (its head: walkListLen chunks), with the walk's confidence in [0, 1].
type WalkLists struct {
	Hybrid, Walk []ariadne.ScoredChunk
	Confidence   float64
	Query        []float32 // the question's embedding
}

// Fuse is the multi_hop route's final list: weighted RRF (k = 60) of hybrid (weight 1) and the
// walk, whose weight is lo + (hi − lo)·Confidence, then at most perDoc chunks of one document
// ahead of the others.
func (l WalkLists) Fuse(lo, hi float64, perDoc int) []ariadne.ScoredChunk {
	w := graphWeight(l.Confidence, lo, hi)
	return diversify(FuseRRFWeighted([][]ariadne.ScoredChunk{l.Hybrid, l.Walk}, []float64{1, w}), perDoc)
}

// WalkLists runs the multi_hop strategy's walk on req (linking the question first) and returns
// the lists it fuses, for fitting the fusion weights offline (cmd/eval fit-walk); nil when the
// walk did not run (the first pass's chunks mention no entity). The weights and PerDoc this
// retriever fuses with are GraphWeights.
func (r *Retriever) WalkLists(ctx context.Context, req Request) (*WalkLists, error) {
	res, err := r.Run(ctx, StrategyWalk, req)
	if err != nil {
		return nil, err
	}
	return res.walk, nil
}

// GraphWeights returns the walk's fusion weights at zero and full confidence and the per-document
// cap the multi_hop route uses (the defaults filled in).
func (r *Retriever) GraphWeights() (lo, hi float64, perDoc int) {
	return r.cfg.GraphWeightMin, r.cfg.GraphWeight, r.cfg.PerDoc
}

// InsertBridge returns list with the bridge hop's lists joined as the multi_hop route joins them
// (insertBridge, with the retriever's BridgeKept and BridgeDocs): for cmd/eval fit-walk, which
// scores other joins of the same lists beside it.
func (r *Retriever) InsertBridge(list []ariadne.ScoredChunk, bridgeLists [][]ariadne.ScoredChunk) []ariadne.ScoredChunk {
	return insertBridge(list, bridgeLists, r.cfg.BridgeKept, r.cfg.BridgeDocs)
}

// walkListLen is how many of the walk's chunks are read and ranked: the head that fusion with
// hybrid (RRF) and the per-document diversification can bring into the top req.TopK. A chunk at
// walk rank n scores at most w/(60+n) in the fusion, so past the first few times TopK none
// reaches the top.
func (r *Retriever) walkListLen(req Request) int {
	return max(4*req.TopK, r.cfg.Candidates)
}

// hydrate reads the chunks ids (text and properties, as the caller may read them) with one
// search restricted to them, and returns them in the order of ids; a chunk no longer readable is
// left out.
func (r *Retriever) hydrate(ctx context.Context, req Request, vec []float32, ids []string, tr *Trace) ([]ariadne.ScoredChunk, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	got, err := r.search(ctx, ariadne.SearchVector, ariadne.SearchQuery{Vector: vec, Groups: req.Groups, Limit: len(ids), ChunkIDs: ids}, tr)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]ariadne.ScoredChunk, len(got))
	for _, c := range got {
		byID[c.ID] = c
	}
	out := make([]ariadne.ScoredChunk, 0, len(ids))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// evidencePaths explains the top chunks with paths: for each of the first n chunks of top and
// each edge it supports, the shortest path (in the subgraph) from a linked entity through that
// edge; at most max paths, shortest first.
func evidencePaths(sg subgraph, linked []string, top []ariadne.ScoredChunk, n, max int) []ariadne.Path {
	type arc struct {
		to   string
		edge int
	}
	adj := map[string][]arc{}
	for i, e := range sg.edges {
		adj[e.From.Key] = append(adj[e.From.Key], arc{e.To.Key, i})
		adj[e.To.Key] = append(adj[e.To.Key], arc{e.From.Key, i})
	}
	// BFS from all linked entities at once.
	prev := map[string]arc{}
	dist := map[string]int{}
	queue := []string{}
	for _, k := range linked {
		if _, ok := sg.nodes[k]; ok {
			dist[k] = 0
			queue = append(queue, k)
		}
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		for _, a := range adj[k] {
			if _, seen := dist[a.to]; !seen {
				dist[a.to] = dist[k] + 1
				prev[a.to] = arc{k, a.edge}
				queue = append(queue, a.to)
			}
		}
	}
	// pathTo is the BFS tree's path from a linked entity to end (no edges when end is linked).
	pathTo := func(end string) (ariadne.Path, bool) {
		if _, ok := dist[end]; !ok {
			return ariadne.Path{}, false
		}
		var nodes []ariadne.PathNode
		var edges []ariadne.PathEdge
		for k := end; ; {
			nodes = append([]ariadne.PathNode{sg.nodes[k]}, nodes...)
			p, ok := prev[k]
			if !ok {
				break
			}
			e := sg.edges[p.edge]
			edges = append([]ariadne.PathEdge{{From: e.From.Key, To: e.To.Key, Type: e.Type, ChunkIDs: e.ChunkIDs}}, edges...)
			k = p.to
		}
		return ariadne.Path{Nodes: nodes, Edges: edges}, true
	}
	var out []ariadne.Path
	seen := map[string]bool{}
	for i, c := range top {
		if i == n || len(out) == max {
			break
		}
		// Every edge the chunk supports, each reached through itself: the shortest path to its
		// nearer end, then the edge. (The BFS tree's path to the farther end may arrive by
		// another edge: "the team that owns the library that caused the incident" then came
		// through the service the incident affected, which the same team owns.)
		for _, e := range sg.edges {
			if len(out) == max {
				break
			}
			if !containsString(e.ChunkIDs, c.ID) {
				continue
			}
			near, far := e.From.Key, e.To.Key
			if dist[near] > dist[far] {
				near, far = far, near
			}
			p, ok := pathTo(near)
			if !ok || slices.ContainsFunc(p.Nodes, func(n ariadne.PathNode) bool { return n.Key == far }) {
				continue
			}
			p.Nodes = append(p.Nodes, sg.nodes[far])
			p.Edges = append(p.Edges, ariadne.PathEdge{From: e.From.Key, To: e.To.Key, Type: e.Type, ChunkIDs: e.ChunkIDs})
			if sig := pathSignature(p); !seen[sig] {
				seen[sig] = true
				out = append(out, p)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Hops() < out[j].Hops() })
	return out
}

// pathChunks is how many of the walk's top chunks the response's paths explain; chainPathChunks
// how many the multi-hop answer's chain candidates come from (a hop's sentence can rank lower
// than the hop's end: the team page line naming its lead).
const (
	pathChunks      = 10
	chainPathChunks = 30
)

// walkRoots is how many of the walk's entities start the evidence paths when none is linked.
const walkRoots = 3

// topEntities returns the n keys of highest score, ties by key.
func topEntities(score map[string]float64, n int) []string {
	keys := walkKeys(score)
	sort.SliceStable(keys, func(i, j int) bool { return score[keys[i]] > score[keys[j]] })
	return keys[:min(n, len(keys))]
}

// compareEdges orders edges by their ends' keys, then type, then supporting chunk ids.
func compareEdges(a, b ariadne.Edge) int {
	return cmp.Or(cmp.Compare(a.From.Key, b.From.Key), cmp.Compare(a.To.Key, b.To.Key),
		cmp.Compare(a.Type, b.Type), slices.Compare(a.ChunkIDs, b.ChunkIDs))
}

func containsString(xs []string, x string) bool { return slices.Contains(xs, x) }

func pathSignature(p ariadne.Path) string {
	var b strings.Builder
	for i, n := range p.Nodes {
		b.WriteString(n.Key)
		if i < len(p.Edges) {
			b.WriteString("|" + p.Edges[i].Type + "|")
		}
	}
	return b.String()
}

// addMentions adds to the walk's input what the entities' mentions give (in.Mentions, and for
// each entity that is not a hub the chunks that mention it) and the chunks of the documents that
// describe them (in.DocChunks).
func (r *Retriever) addMentions(ctx context.Context, req Request, keys []string, mentions map[string]ariadne.EntityMentions, in *walkInput) error {
	var docs []string
	docEntity := map[string][]string{}
	for _, k := range keys {
		m, ok := mentions[k]
		if !ok {
			continue
		}
		in.Mentions[k] = m.Mentions
		if m.Node.DocID != "" {
			if len(docEntity[m.Node.DocID]) == 0 {
				docs = append(docs, m.Node.DocID)
			}
			docEntity[m.Node.DocID] = append(docEntity[m.Node.DocID], k)
		}
		if m.Mentions > r.cfg.WalkHub {
			continue // a hub: reached from the first pass, not expanded
		}
		for _, c := range m.ChunkIDs {
			if !slices.Contains(in.ChunkEntities[c], k) {
				in.ChunkEntities[c] = append(in.ChunkEntities[c], k)
			}
		}
	}
	if len(docs) == 0 {
		return nil
	}
	ids, err := r.graph.DocumentChunkIDs(ctx, docs, req.Groups)
	if err != nil {
		return err
	}
	for _, id := range ids {
		for _, k := range docEntity[ariadne.DocIDOfChunk(id)] {
			in.DocChunks[k] = append(in.DocChunks[k], id)
		}
	}
	return nil
}

// walkReach is every chunk the walk's graph reaches: the first pass's chunks in their order
// (in.First), then the chunks of mentions, describing documents and the edges' provenance sorted
// by id. A cap on it (capIDs) keeps what the first pass found before anything the graph adds.
func walkReach(in walkInput, edges []ariadne.Edge) []string {
	out := make([]string, 0, len(in.First))
	first := make(map[string]bool, len(in.First))
	for _, c := range in.First {
		if !first[c] {
			first[c] = true
			out = append(out, c)
		}
	}
	reach := map[string]bool{}
	for c := range in.ChunkEntities {
		reach[c] = true
	}
	for _, cs := range in.DocChunks {
		for _, c := range cs {
			reach[c] = true
		}
	}
	for _, e := range edges {
		for _, c := range e.ChunkIDs {
			reach[c] = true
		}
	}
	for _, c := range walkKeys(reach) {
		if !first[c] {
			out = append(out, c)
		}
	}
	return out
}

// capIDs is the first n of ids.
func capIDs(ids []string, n int) []string {
	return ids[:min(len(ids), n)]
}

// chunkCosines is the question–chunk cosine of each of ids the caller may read, by one vector
// search restricted to them (scores only: the text of the few chunks the walk ranks high is read
// after it, by hydrate).
func (r *Retriever) chunkCosines(ctx context.Context, req Request, vec []float32, ids []string, tr *Trace) (map[string]float64, error) {
	out := map[string]float64{}
	if len(ids) == 0 {
		return out, nil
	}
	scored, err := r.search(ctx, ariadne.SearchVector, ariadne.SearchQuery{Vector: vec, Groups: req.Groups, Limit: len(ids),
		ChunkIDs: ids, ScoresOnly: true}, tr)
	if err != nil {
		return nil, err
	}
	for _, c := range scored {
		out[c.ID] = c.Score
	}
	return out, nil
}

// insertBridge returns the route's list with the bridge hop's finds put after its first kept
// chunks: the first n chunks of documents not among those kept, taken from the bridge lists by
// rank (each list's first, then each list's second, …; one chunk per document), then the rest of
// list in its order without the chunks moved up. It is the order of iterative retrieval (IRCoT,
// Trivedi et al., ACL 2023): the first search's best passage holds the first hop, the search made
// with the bridge it names holds the next. Fusing the bridge list by RRF instead (weight 1 next to
// the route's) ranked chunks that both lists hold above the route's own second and third, which on
// our knowledge bases pushed the chunks a multi-hop answer's chain cites out of its view; this
// moves the route's chunks after the kept ones down by at most n places.
func insertBridge(list []ariadne.ScoredChunk, bridgeLists [][]ariadne.ScoredChunk, kept, n int) []ariadne.ScoredChunk {
	kept = min(kept, len(list))
	docs := map[string]bool{}
	for _, c := range list[:kept] {
		docs[c.DocID] = true
	}
	moved := map[string]bool{}
	out := append(make([]ariadne.ScoredChunk, 0, len(list)+n), list[:kept]...)
	for rank := 0; len(moved) < n; rank++ {
		more := false
		for _, l := range bridgeLists {
			if rank >= len(l) || len(moved) == n {
				continue
			}
			more = true
			if c := l[rank]; !docs[c.DocID] {
				docs[c.DocID], moved[c.ID] = true, true
				out = append(out, c)
			}
		}
		if !more {
			break
		}
	}
	for _, c := range list[kept:] {
		if !moved[c.ID] {
			out = append(out, c)
		}
	}
	return out
}
