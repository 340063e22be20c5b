package ingest

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/resolution"
)

// ExtractReport is what ExtractOnly found: the facts of every document with at least one kept
// chunk (in document id order), the chunks given to the extractor, and the registry the facts
// are resolved in.
type ExtractReport struct {
	Facts    []extraction.Facts
	Chunks   []ariadne.Chunk // the kept chunks, in document id then position order
	Registry *resolution.Registry
	// Extract is the wall time of the extraction step alone (resolution and recognition
	// excluded), with the pipeline's Workers documents at a time.
	Extract time.Duration
}

// ExtractOnly runs resolution, recognition (when the pipeline has a recognizer) and the
// extractor over docs as a full sync of one source would, and writes nothing to either store.
// keep (nil: every chunk) chooses the chunks given to the extractor; the registry is still
// built from every document and recognition runs over every chunk, so a kept chunk is extracted
// with the same registry a sync gives it. It is for measuring extractors (cmd/eval extraction):
// an LLM extractor's cost is per chunk, so a sample of chunks keeps a comparison affordable.
func (p *Pipeline) ExtractOnly(ctx context.Context, docs []ariadne.Document, keep func(ariadne.Chunk) bool) (ExtractReport, error) {
	reg, subjects, err := p.buildRegistry(ctx, docs, "", true, false, nil)
	if err != nil {
		return ExtractReport{}, err
	}
	docs = slices.Clone(docs)
	slices.SortStableFunc(docs, func(a, b ariadne.Document) int { return strings.Compare(a.ID, b.ID) })
	all := p.splitAll(docs, subjects)
	if _, err := p.recognize(ctx, all, reg); err != nil {
		return ExtractReport{}, err
	}
	var work []*docWork
	var kept []ariadne.Chunk
	for _, w := range all {
		var cs []ariadne.Chunk
		for _, c := range w.chunks {
			if keep == nil || keep(c) {
				cs = append(cs, c)
			}
		}
		if len(cs) == 0 {
			continue
		}
		w.chunks = cs
		work = append(work, w)
		kept = append(kept, cs...)
	}
	start := time.Now()
	if err := p.extract(ctx, work, reg); err != nil {
		return ExtractReport{}, err
	}
	rep := ExtractReport{Chunks: kept, Registry: reg, Extract: time.Since(start)}
	for _, w := range work {
		rep.Facts = append(rep.Facts, w.facts)
	}
	return rep, nil
}
