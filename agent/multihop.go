package agent

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// graphHybrid is the multi_hop plan. Seeds are the entities the question names (weight 1) and
// the entities mentioned by the top hybrid hits (weight 0.5/rank). Around them the graph is read
// two hops deep (readable edges only) and nodes are scored by Personalized PageRank. Candidate
// chunks are the provenance of those edges and the chunks of the documents that describe the
// best-scored entities; they are ranked twice — by hybrid relevance restricted to the candidates
// and by PageRank of their document — and fused with plain hybrid results by RRF. Without graph
// evidence it falls back to hybrid.
func (r *Retriever) graphHybrid(ctx context.Context, req Request, vec []float32, linked []Linked, tr *Trace) (Result, string, error) {
	var res Result
	hybrid, err := r.hybrid(ctx, req, vec, nil, tr)
	if err != nil {
		return res, "", err
	}
	for i := range hybrid {
		hybrid[i].Sources = []string{"hybrid"}
	}
	restart := map[string]float64{}
	var linkedKeys []string
	for _, l := range linked {
		restart[l.Key] = 1
		linkedKeys = append(linkedKeys, l.Key)
	}
	top := make([]string, 0, 5)
	for i := 0; i < len(hybrid) && i < 5; i++ {
		top = append(top, hybrid[i].ID)
	}
	byChunk, err := r.graph.EntitiesOfChunks(ctx, top, req.Groups)
	if err != nil {
		return res, "", err
	}
	for i, id := range top {
		for _, k := range byChunk[id] {
			restart[k] += 0.5 / float64(i+1)
		}
	}
	note := fmt.Sprintf("%d linked entities, %d seeds in all", len(linked), len(restart))
	if len(restart) == 0 {
		res.Chunks = hybrid
		return res, note + "; no seed entities: hybrid results only", nil
	}
	seeds := make([]string, 0, len(restart))
	for k := range restart {
		seeds = append(seeds, k)
	}
	sort.Strings(seeds)
	sg, err := neighbourhood(ctx, r.graph, seeds, r.cfg.MaxHops, ariadne.HubDegree, 400, req.Groups, r.cfg.RelTypes)
	if err != nil {
		return res, "", err
	}
	if len(sg.edges) == 0 {
		res.Chunks = hybrid
		return res, note + "; the graph has no readable edges around them: hybrid results only", nil
	}
	scores := personalizedPageRank(sg, restart, 0.5, 30)

	// Documents by the best score of an entity they describe.
	docScore := map[string]float64{}
	for k, n := range sg.nodes {
		if n.DocID != "" && scores[k] > docScore[n.DocID] {
			docScore[n.DocID] = scores[k]
		}
	}
	docs := make([]string, 0, len(docScore))
	for d := range docScore {
		docs = append(docs, d)
	}
	sort.Slice(docs, func(i, j int) bool {
		if docScore[docs[i]] != docScore[docs[j]] {
			return docScore[docs[i]] > docScore[docs[j]]
		}
		return docs[i] < docs[j]
	})
	if len(docs) > r.cfg.MaxGraphDocs {
		docs = docs[:r.cfg.MaxGraphDocs]
	}
	// Chunk scores: provenance chunks by their edge's endpoints, document chunks by the document.
	chunkScore := map[string]float64{}
	for _, e := range sg.edges {
		s := (scores[e.From.Key] + scores[e.To.Key]) / 2
		for _, id := range e.ChunkIDs {
			chunkScore[id] = math.Max(chunkScore[id], s)
		}
	}
	docChunks, err := r.graph.DocumentChunkIDs(ctx, docs, req.Groups)
	if err != nil {
		return res, "", err
	}
	for _, id := range docChunks {
		chunkScore[id] = math.Max(chunkScore[id], docScore[ariadne.DocIDOfChunk(id)])
	}
	cands := make([]string, 0, len(chunkScore))
	for id := range chunkScore {
		cands = append(cands, id)
	}
	sort.Slice(cands, func(i, j int) bool {
		if chunkScore[cands[i]] != chunkScore[cands[j]] {
			return chunkScore[cands[i]] > chunkScore[cands[j]]
		}
		return cands[i] < cands[j]
	})
	if len(cands) > 400 {
		cands = cands[:400]
	}
	graphRanked, err := r.search(ctx, ariadne.SearchHybrid, ariadne.SearchQuery{Text: req.Question, Terms: textnorm.SearchTerms(req.Question), Vector: vec, Alpha: r.cfg.Alpha,
		Fusion: r.cfg.Fusion, Groups: req.Groups, Limit: 2 * r.cfg.Candidates, ChunkIDs: cands}, tr)
	if err != nil {
		return res, "", err
	}
	for i := range graphRanked {
		graphRanked[i].Sources = []string{"graph"}
	}
	// The PageRank list shows each document once, best-scored first, through its most relevant
	// candidate chunk (graphRanked is in relevance order), then the remaining chunks.
	byPPR := append([]ariadne.ScoredChunk(nil), graphRanked...)
	sort.SliceStable(byPPR, func(i, j int) bool { return chunkScore[byPPR[i].ID] > chunkScore[byPPR[j].ID] })
	byPPR = diversify(byPPR, 1)
	w := r.cfg.GraphWeight
	res.Chunks = diversify(FuseRRFWeighted([][]ariadne.ScoredChunk{hybrid, graphRanked, byPPR}, []float64{1, w, w}), r.cfg.PerDoc)
	res.Paths = evidencePaths(sg, linkedKeys, res.Chunks, r.cfg.MaxPaths)
	return res, fmt.Sprintf("%s; subgraph %d entities, %d edges; %d candidate chunks from %d documents",
		note, len(sg.nodes), len(sg.edges), len(cands), len(docs)), nil
}

// evidencePaths explains the top chunks with paths: for each top chunk that supports an edge, the
// shortest path (in the subgraph) from a linked entity through that edge; shortest first.
func evidencePaths(sg subgraph, linked []string, top []ariadne.ScoredChunk, max int) []ariadne.Path {
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
		return ariadne.Path{Nodes: nodes, Edges: edges}, len(edges) > 0
	}
	var out []ariadne.Path
	seen := map[string]bool{}
	for i, c := range top {
		if i == 10 || len(out) == max {
			break
		}
		for _, e := range sg.edges {
			if !containsString(e.ChunkIDs, c.ID) {
				continue
			}
			// the endpoint farther from the linked entities ends the path
			end := e.To.Key
			if dist[e.From.Key] > dist[e.To.Key] {
				end = e.From.Key
			}
			p, ok := pathTo(end)
			if !ok {
				continue
			}
			if sig := pathSignature(p); !seen[sig] {
				seen[sig] = true
				out = append(out, p)
			}
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Hops() < out[j].Hops() })
	return out
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
