package agent

import (
	"github.com/ariadne-graphrag/ariadne"
)

func edgeOf(a, b ariadne.PathNode) ariadne.Edge {
	return ariadne.Edge{From: a, To: b, Type: "RELATED_TO", ChunkIDs: []string{a.Key + "-" + b.Key}}
}
