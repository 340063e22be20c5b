package ingest

import (
	"slices"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Plan is what a run over one source must do to the stores, decided before anything is extracted
// or written from three things: the documents given (with their chunks), what the graph remembers
// of the stored documents of every source, and which chunk vectors the index holds. Planning is
// pure; applying a plan is the rest of the pipeline.
type Plan struct {
	Changed   []string            // new documents, or stored ones whose content hash differs: chunk, embed, write
	Lost      []string            // unchanged content, but some stored chunk has no vector (a reset index): re-embed
	Unchanged []string            // content and vectors as stored; the graph may still be relinked after extraction
	Deleted   map[string][]string // full sync: stored documents of the source absent from the run → their chunk ids
	Orphans   []string            // full sync: vectors of the source no stored or given document owns, sorted
	// Reanalyze are chunks of Unchanged documents whose stored BM25 terms were made by another
	// analysis than the running one (textnorm.AnalysisVersion; "" before versions were stored),
	// sorted: their terms are rewritten from the stored text, their vectors kept. Changed and Lost
	// documents are written with the running analysis anyway.
	Reanalyze []string
	// Conflicts are given documents whose id another source holds: they are not written, and
	// the other source's document stays as it is.
	Conflicts []ariadne.SourceConflict
}

// NeedsEmbedding reports whether a document's chunks must be (re)embedded (or their vectors
// copied from stored chunks with the same content key).
func (p Plan) NeedsEmbedding(id string) bool {
	return slices.Contains(p.Changed, id) || slices.Contains(p.Lost, id)
}

// Conflicted reports whether a given document collides with another source's id.
func (p Plan) Conflicted(id string) bool {
	return slices.ContainsFunc(p.Conflicts, func(c ariadne.SourceConflict) bool { return c.DocID == id })
}

// PlanRun decides a run over source ("" is ariadne.DefaultSource). docs are the documents given
// for it; chunks holds each given document's chunks by document id; states is every stored
// document of every source; stored is every chunk object the vector index holds; full is a sync
// of the source's whole corpus: its stored documents not given are deleted, and so are its
// vectors nothing owns. Other sources' documents and vectors are never deleted, and a given
// document whose id another source holds is a conflict. Document order is kept.
func PlanRun(source string, docs []ariadne.Document, chunks map[string][]ariadne.Chunk, states map[string]ariadne.DocState, stored []ariadne.StoredVector, full bool) Plan {
	if source == "" {
		source = ariadne.DefaultSource
	}
	inVectors := make(map[string]bool, len(stored))
	analysis := make(map[string]string, len(stored))
	for _, v := range stored {
		inVectors[v.ChunkID] = true
		analysis[v.ChunkID] = v.Analysis
	}
	p := Plan{Deleted: map[string][]string{}}
	present := map[string]bool{}
	for _, d := range docs {
		st, known := states[d.ID]
		if known && sourceOf(st.Source) != source {
			p.Conflicts = append(p.Conflicts, ariadne.SourceConflict{DocID: d.ID, Source: sourceOf(st.Source)})
			continue
		}
		present[d.ID] = true
		switch {
		case !known || st.ContentHash != d.ContentHash():
			p.Changed = append(p.Changed, d.ID)
		case slices.ContainsFunc(st.ChunkIDs, func(id string) bool { return !inVectors[id] }):
			p.Lost = append(p.Lost, d.ID)
		default:
			p.Unchanged = append(p.Unchanged, d.ID)
			for _, id := range st.ChunkIDs {
				if analysis[id] != textnorm.AnalysisVersion {
					p.Reanalyze = append(p.Reanalyze, id)
				}
			}
		}
	}
	slices.Sort(p.Reanalyze)
	if !full {
		return p
	}
	owned := map[string]bool{}
	for id, st := range states {
		if !present[id] && sourceOf(st.Source) == source {
			p.Deleted[id] = st.ChunkIDs
		}
		for _, c := range st.ChunkIDs {
			owned[c] = true
		}
	}
	for id, cs := range chunks {
		if !present[id] {
			continue // a conflicting document's chunks belong to nobody here
		}
		for _, c := range cs {
			owned[c.ID] = true
		}
	}
	for _, v := range stored {
		if !owned[v.ChunkID] && sourceOf(v.Source) == source {
			p.Orphans = append(p.Orphans, v.ChunkID)
		}
	}
	slices.Sort(p.Orphans)
	return p
}

func sourceOf(s string) string {
	if s == "" {
		return ariadne.DefaultSource
	}
	return s
}
