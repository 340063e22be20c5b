package agent

import (
	"github.com/ariadne-graphrag/ariadne"
)

func edgeOf(a, b ariadne.PathNode) ariadne.Edge {
	return ariadne.Edge{From: a, To: b, Type: "RELATED_TO", ChunkIDs: []string{a.Key + "-" + b.Key}}
}

// firstChunk is chunk 0 of document doc, titled title, with text.
func firstChunk(doc, title, text string) ariadne.Chunk {
	return ariadne.Chunk{ID: doc + "#0000-00000000", DocID: doc, Title: title, Text: text}
}
