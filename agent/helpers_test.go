package agent

import (
	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/graph"
)

func edgeOf(a, b ariadne.PathNode) graph.Edge {
	return graph.Edge{From: a, To: b, Type: "RELATED_TO", ChunkIDs: []string{a.Key + "-" + b.Key}}
}
