package agent

import (
	"context"
	"math"
	"sort"

	"github.com/ariadne-graphrag/ariadne"
)

// subgraph is the part of the entity graph around a question's seeds.
type subgraph struct {
	nodes map[string]ariadne.PathNode
	deg   map[string]int
	edges []ariadne.Edge
}

// EdgeReader reads relationships around entities (graph.Store).
type EdgeReader interface {
	Edges(ctx context.Context, keys, groups, relTypes []string, limit int) ([]ariadne.Edge, error)
}

// neighbourhood collects the readable edges within hops of the seeds, breadth first. Hubs (more
// than hub relationships) are reached but not expanded: "both relate to the company" is no hop.
// It stops adding frontier nodes once maxNodes are known.
func neighbourhood(ctx context.Context, g EdgeReader, seeds []string, hops, hub, maxNodes int, groups, types []string) (subgraph, error) {
	sg := subgraph{nodes: map[string]ariadne.PathNode{}, deg: map[string]int{}}
	seenEdge := map[string]bool{}
	frontier := append([]string(nil), seeds...)
	expanded := map[string]bool{}
	for h := 0; h < hops && len(frontier) > 0; h++ {
		for _, k := range frontier {
			expanded[k] = true
		}
		edges, err := g.Edges(ctx, frontier, groups, types, 5000)
		if err != nil {
			return sg, err
		}
		var next []string
		for _, e := range edges {
			id := e.From.Key + "|" + e.Type + "|" + e.To.Key
			if seenEdge[id] {
				continue
			}
			seenEdge[id] = true
			sg.edges = append(sg.edges, e)
			for _, n := range []struct {
				node ariadne.PathNode
				deg  int
			}{{e.From, e.FromDeg}, {e.To, e.ToDeg}} {
				if _, ok := sg.nodes[n.node.Key]; !ok {
					sg.nodes[n.node.Key] = n.node
					sg.deg[n.node.Key] = n.deg
					if !expanded[n.node.Key] && n.deg <= hub && len(sg.nodes) < maxNodes {
						next = append(next, n.node.Key)
					}
				}
			}
		}
		frontier = next
	}
	return sg, nil
}

// personalizedPageRank scores the subgraph's nodes by Personalized PageRank with restart
// distribution restart (normalized here) and damping d (the probability of following an edge
// rather than jumping back to a seed), by power iteration. Edges are undirected and weighted by
// 1 + ln(number of supporting chunks). This is the retrieval step of HippoRAG (Gutiérrez et al.,
// NeurIPS 2024), which uses d = 0.5.
func personalizedPageRank(sg subgraph, restart map[string]float64, d float64, iters int) map[string]float64 {
	idx := map[string]int{}
	keys := make([]string, 0, len(sg.nodes))
	for k := range sg.nodes {
		keys = append(keys, k)
	}
	for k := range restart {
		if _, ok := sg.nodes[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for i, k := range keys {
		idx[k] = i
	}
	n := len(keys)
	type arc struct {
		to int
		w  float64
	}
	adj := make([][]arc, n)
	out := make([]float64, n)
	for _, e := range sg.edges {
		a, b := idx[e.From.Key], idx[e.To.Key]
		w := 1 + math.Log(float64(len(e.ChunkIDs)))
		adj[a] = append(adj[a], arc{b, w})
		adj[b] = append(adj[b], arc{a, w})
		out[a] += w
		out[b] += w
	}
	p := make([]float64, n)
	var total float64
	for k, w := range restart {
		p[idx[k]] += w
		total += w
	}
	if total == 0 {
		return map[string]float64{}
	}
	for i := range p {
		p[i] /= total
	}
	s := append([]float64(nil), p...)
	for range iters {
		next := make([]float64, n)
		var dangling float64
		for i, v := range s {
			if out[i] == 0 {
				dangling += v
				continue
			}
			for _, a := range adj[i] {
				next[a.to] += d * v * a.w / out[i]
			}
		}
		for i := range next {
			next[i] += (1-d)*p[i] + d*dangling*p[i]
		}
		s = next
	}
	res := make(map[string]float64, n)
	for i, k := range keys {
		res[k] = s[i]
	}
	return res
}
