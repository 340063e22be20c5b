package ingest

import (
	"context"
	"fmt"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/resolution"
)

// recognize runs entity recognition (when configured) over the chunks of the documents about to
// be extracted, resolving what it finds into reg, and hands each document the results, which it
// returns too (by chunk id; nil when recognition is off).
func (p *Pipeline) recognize(ctx context.Context, docs []*docWork, reg *resolution.Registry) (map[string][]extraction.Recognized, error) {
	if p.ner == nil || len(docs) == 0 {
		return nil, nil
	}
	in := make([]extraction.Input, len(docs))
	for i, w := range docs {
		in[i] = extraction.Input{Doc: w.doc, Chunks: w.chunks, SubjectKey: w.subject}
	}
	found, err := p.ner.Recognize(ctx, in, reg)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	for _, w := range docs {
		w.recognized = found
	}
	return found, nil
}

// extractorName is what the graph records as having extracted a document (and what its graph
// hash depends on): the extractor, and the recognizer when recognition is on.
func (p *Pipeline) extractorName() string {
	if p.ner == nil {
		return p.extractor.Name()
	}
	return p.extractor.Name() + "+" + p.ner.Name()
}

// recognizeAll runs recognition over every document of docs (chunked as a run would) into reg.
func (p *Pipeline) recognizeAll(ctx context.Context, docs []ariadne.Document, subjects map[string]string, reg *resolution.Registry) error {
	if p.ner == nil {
		return nil
	}
	_, err := p.recognize(ctx, p.splitAll(docs, subjects), reg)
	return err
}

// splitAll chunks every document of docs as a run would, with its subject's key.
func (p *Pipeline) splitAll(docs []ariadne.Document, subjects map[string]string) []*docWork {
	work := make([]*docWork, len(docs))
	for i, d := range docs {
		work[i] = &docWork{doc: d, chunks: p.chunker.Split(d), subject: subjects[d.ID]}
	}
	return work
}
