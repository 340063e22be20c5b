package ingest

import (
	"context"
	"fmt"

	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/resolution"
)

// recognize runs entity recognition (when configured) over the chunks of the documents about to
// be extracted, resolving what it finds into reg, and hands each document the results.
func (p *Pipeline) recognize(ctx context.Context, docs []*docWork, reg *resolution.Registry) error {
	if p.ner == nil || len(docs) == 0 {
		return nil
	}
	in := make([]extraction.Input, len(docs))
	for i, w := range docs {
		in[i] = extraction.Input{Doc: w.doc, Chunks: w.chunks, SubjectKey: w.subject}
	}
	found, err := p.ner.Recognize(ctx, in, reg)
	if err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	for _, w := range docs {
		w.recognized = found
	}
	return nil
}

// extractorName is what the graph records as having extracted a document (and what its graph
// hash depends on): the extractor, and the recognizer when recognition is on.
func (p *Pipeline) extractorName() string {
	if p.ner == nil {
		return p.extractor.Name()
	}
	return p.extractor.Name() + "+" + p.ner.Name()
}
