package testrig

import (
	"testing"

	"github.com/ariadne-graphrag/ariadne/embedding"
	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/ner"
	"github.com/ariadne-graphrag/ariadne/ontology"
)

// NewWithNER is New with entity recognition by the real NER sidecar (deploy/local.sh up ner):
// it skips, or fails when integration tests are required, when the sidecar does not answer.
func NewWithNER(t testing.TB, corpusDir string) *Rig {
	t.Helper()
	return NewWithNERConfig(t, corpusDir, ner.Config{})
}

// NewWithNERConfig is NewWithNER with the sidecar client's settings (its BaseURL is always the
// test environment's sidecar): NoCache makes every run pay the model, for benchmarks.
func NewWithNERConfig(t testing.TB, corpusDir string, cfg ner.Config) *Rig {
	t.Helper()
	testenv.Need(t, "the NER sidecar ("+testenv.NERURL()+")", testenv.HTTPGet(testenv.NERURL()+"/health"))
	cfg.BaseURL = testenv.NERURL()
	client, err := ner.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return newRig(t, corpusDir, embedding.NewLexical(0), func(o *ontology.Ontology) ingest.EntityRecognizer {
		return extraction.NewNER(client, o, extraction.NERConfig{})
	})
}
