package setup

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/ner"
	"github.com/ariadne-graphrag/ariadne/ontology"
)

// BuildRecognizer returns the NER stage of ingestion, or nil when recognition is off. NER "off"
// returns nil; "on" fails with ariadne.ErrUnavailable when the sidecar at NERURL does not answer
// its health check, and with ariadne.ErrInvalid with the LLM extractor (which ignores recognized
// entities); "auto" (or "") uses the sidecar when it answers and the extractor is the dictionary,
// and otherwise returns nil with the reason in note (also logged as a warning when the sidecar is
// down). lex (nil: none) joins organizations named word for word alike in English and Russian
// (extraction.NERConfig.Lexicon).
func (ix Indexing) BuildRecognizer(ctx context.Context, onto *ontology.Ontology, lex *lexicon.Lexicon, log *slog.Logger) (rec ingest.EntityRecognizer, note string, err error) {
	if log == nil {
		log = slog.Default()
	}
	mode := ix.NER
	switch mode {
	case "off":
		return nil, "entity recognition is off (--ner off)", nil
	case "on", "auto", "":
	default:
		return nil, "", fmt.Errorf("setup: --ner %q: want auto, on or off: %w", mode, ariadne.ErrInvalid)
	}
	if ix.Extractor == "llm" {
		if mode == "on" {
			return nil, "", fmt.Errorf("setup: --ner on works with --extractor dictionary (the llm extractor finds its own entities): %w", ariadne.ErrInvalid)
		}
		return nil, "entity recognition is not used with the llm extractor", nil
	}
	client, err := ner.New(ner.Config{BaseURL: ix.NERURL, Logger: log})
	if err != nil {
		return nil, "", err
	}
	probe, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := client.Health(probe); err != nil {
		if mode == "on" {
			return nil, "", fmt.Errorf("setup: --ner on (ARIADNE_NER=on), but the NER sidecar at %s does not answer: start it with `deploy/local.sh up ner` (or `make up`), or set --ner auto|off: %w", ix.NERURL, err)
		}
		why := fmt.Sprintf("the NER sidecar at %s does not answer (%v); indexing without entity recognition: untyped documents get no entities (`deploy/local.sh up ner` starts it)", ix.NERURL, err)
		log.Warn(why)
		return nil, why, nil
	}
	return extraction.NewNER(client, onto, extraction.NERConfig{TypedPages: ix.NERTyped, Lexicon: lex}), "", nil
}

// RecognitionAsked reports whether entity recognition is asked for: NER "auto" (or "") or "on",
// with the dictionary extractor. BuildRecognizer returning nil for such a configuration means the
// sidecar did not answer ("auto"): ingest.Config.RecognitionDown is then the caller's to set.
func (ix Indexing) RecognitionAsked() bool {
	return (ix.NER == "auto" || ix.NER == "" || ix.NER == "on") && ix.Extractor != "llm"
}

// SubjectPlaces is the gazetteer the pipeline names typed pages' subjects with
// (ingest.Config.Places): the lexicon's, when recognition (which brings the lexicon) is on, else
// nil — so that every command writing a graph names subjects the same way.
func SubjectPlaces(rec ingest.EntityRecognizer, lex *lexicon.Lexicon) *lexicon.Gazetteer {
	if rec == nil {
		return nil
	}
	return lex.Places()
}
