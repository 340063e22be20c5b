package agent

import "github.com/ariadne-graphrag/ariadne"

// subgraph is the part of the entity graph a multi-hop retrieval read: its relations and their
// endpoints, from which evidencePaths explains the returned chunks. The walk itself ranks over
// the weighted entity–chunk graph of walk.go (wgraph.ppr).
type subgraph struct {
	nodes map[string]ariadne.PathNode
	edges []ariadne.Edge
}
