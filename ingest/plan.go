package ingest

import (
	"slices"

	"github.com/ariadne-graphrag/ariadne"
)

// Plan is what a run must do to the stores, decided before anything is extracted or written from
// three things: the documents given (with their chunks), what the graph remembers of the stored
// documents, and which chunk vectors the index holds. Planning is pure; applying a plan is the
// rest of the pipeline.
type Plan struct {
	Changed   []string            // new documents, or stored ones whose content hash differs: chunk, embed, write
	Lost      []string            // unchanged content, but some stored chunk has no vector (a reset index): re-embed
	Unchanged []string            // content and vectors as stored; the graph may still be relinked after extraction
	Deleted   map[string][]string // full sync: stored documents absent from the run → their chunk ids
	Orphans   []string            // full sync: vectors no stored or given document owns, sorted
}

// NeedsEmbedding reports whether a document's chunks must be (re)embedded.
func (p Plan) NeedsEmbedding(id string) bool {
	return slices.Contains(p.Changed, id) || slices.Contains(p.Lost, id)
}

// PlanRun decides a run. chunks holds each given document's chunks by document id; stored is
// every chunk id the vector index holds; full is a sync of a whole corpus (stored documents not
// given are deleted, and so are vectors nothing owns). Document order is kept.
func PlanRun(docs []ariadne.Document, chunks map[string][]ariadne.Chunk, states map[string]ariadne.DocState, stored []string, full bool) Plan {
	inVectors := make(map[string]bool, len(stored))
	for _, id := range stored {
		inVectors[id] = true
	}
	p := Plan{Deleted: map[string][]string{}}
	present := map[string]bool{}
	for _, d := range docs {
		present[d.ID] = true
		st, known := states[d.ID]
		switch {
		case !known || st.ContentHash != d.ContentHash():
			p.Changed = append(p.Changed, d.ID)
		case slices.ContainsFunc(st.ChunkIDs, func(id string) bool { return !inVectors[id] }):
			p.Lost = append(p.Lost, d.ID)
		default:
			p.Unchanged = append(p.Unchanged, d.ID)
		}
	}
	if !full {
		return p
	}
	owned := map[string]bool{}
	for id, st := range states {
		if !present[id] {
			p.Deleted[id] = st.ChunkIDs
		}
		for _, c := range st.ChunkIDs {
			owned[c] = true
		}
	}
	for _, cs := range chunks {
		for _, c := range cs {
			owned[c.ID] = true
		}
	}
	for _, id := range stored {
		if !owned[id] {
			p.Orphans = append(p.Orphans, id)
		}
	}
	slices.Sort(p.Orphans)
	return p
}
