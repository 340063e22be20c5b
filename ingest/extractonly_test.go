package ingest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/ontology"
	"github.com/ariadne-graphrag/ariadne/resolution"
	lru "github.com/hashicorp/golang-lru/v2"
)

// recordingExtractor wraps the dictionary extractor and records the chunks it was given.
type recordingExtractor struct {
	*extraction.Dictionary
	mu   sync.Mutex
	seen []string
}

func (r *recordingExtractor) Extract(ctx context.Context, in extraction.Input, reg *resolution.Registry) (extraction.Facts, error) {
	r.mu.Lock()
	for _, c := range in.Chunks {
		r.seen = append(r.seen, c.ID)
	}
	r.mu.Unlock()
	return r.Dictionary.Extract(ctx, in, reg)
}

// TestExtractOnly: the registry comes from every document (a note names a client whose page is
// not among the kept chunks, and the mention still resolves to that page's entity), only kept
// chunks reach the extractor, and documents without a kept chunk have no facts.
func TestExtractOnly(t *testing.T) {
	onto, err := ontology.Default()
	if err != nil {
		t.Fatal(err)
	}
	ch, err := chunking.NewDefault()
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingExtractor{Dictionary: extraction.NewDictionary(onto)}
	p := &Pipeline{chunker: ch, extractor: rec, onto: onto, workers: 2}
	p.names, _ = lru.New[string, docNames](16)
	docs := []ariadne.Document{
		{ID: "notes/n1", Title: "Call notes", Type: "note", Lang: "en", Body: "We called Orion Freight about the delivery dates."},
		{ID: "clients/orion", Title: "Orion Freight", Type: "client", Lang: "en", Body: "Orion Freight is a logistics client."},
	}
	keep := func(c ariadne.Chunk) bool { return strings.HasPrefix(c.DocID, "notes/") }
	rep, err := p.ExtractOnly(context.Background(), docs, keep)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Chunks) != 1 || rep.Chunks[0].DocID != "notes/n1" || !slices.Equal(rec.seen, []string{rep.Chunks[0].ID}) {
		t.Fatalf("kept %v, extractor saw %v; want the note's one chunk", rep.Chunks, rec.seen)
	}
	if len(rep.Facts) != 1 || rep.Facts[0].DocID != "notes/n1" {
		t.Fatalf("facts %+v; want the note's only", rep.Facts)
	}
	var keys []string
	for _, m := range rep.Facts[0].Mentions {
		keys = append(keys, m.EntityKey+"="+m.Surface)
	}
	if !slices.Contains(keys, "clients/orion=Orion Freight") {
		t.Errorf("the note's mentions %v do not resolve Orion Freight to its page's entity", keys)
	}
	if _, ok := rep.Registry.Get("clients/orion"); !ok {
		t.Error("the registry lacks the client page's entity")
	}
}
