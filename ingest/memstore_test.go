package ingest

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/ontology"
)

// memStore is an in-memory GraphStore and VectorStore: enough of both stores for a pipeline run
// to plan, write and find its documents again, without servers.
type memStore struct {
	mu         sync.Mutex
	docs       map[string]ariadne.DocumentGraph // by document id
	extractors map[string]string                // by document id: what extracted it (WriteDocuments)
	claimed    map[string]string                // id → source, claimed by a run and not written yet
	vectors    map[string]ariadne.IndexedChunk  // by chunk id
	registry   map[string]string                // source → fingerprint
}

func newMemStore() *memStore {
	return &memStore{docs: map[string]ariadne.DocumentGraph{}, extractors: map[string]string{}, claimed: map[string]string{},
		vectors: map[string]ariadne.IndexedChunk{}, registry: map[string]string{}}
}

func (m *memStore) EnsureSchema(context.Context) error { return nil }

func (m *memStore) DocumentStates(context.Context) (map[string]ariadne.DocState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]ariadne.DocState{}
	for id, src := range m.claimed {
		out[id] = ariadne.DocState{Source: src}
	}
	for id, dg := range m.docs {
		st := ariadne.DocState{Source: dg.Doc.SourceName(), ContentHash: dg.Doc.ContentHash(), GraphHash: dg.GraphHash, Restorable: true,
			Path: dg.Doc.Path, Version: dg.Doc.Version, Extractor: m.extractors[id]}
		for _, c := range dg.Chunks {
			st.ChunkIDs = append(st.ChunkIDs, c.ID)
		}
		slices.Sort(st.ChunkIDs)
		out[id] = st
	}
	return out, nil
}

func (m *memStore) LoadEntities(context.Context) ([]ariadne.StoredEntity, error) { return nil, nil }

// DependentSources reads the stored document graphs as graph.Store reads Neo4j: the sources of
// the documents that describe or mention an entity one of ids describes.
func (m *memStore) DependentSources(_ context.Context, ids []string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	described := map[string]bool{}
	for _, id := range ids {
		if dg, ok := m.docs[id]; ok && dg.Subject != "" {
			described[dg.Subject] = true
		}
	}
	var out []string
	for _, dg := range m.docs {
		uses := described[dg.Subject]
		for _, mn := range dg.Mentions {
			uses = uses || described[mn.EntityKey]
		}
		if src := dg.Doc.SourceName(); uses && !slices.Contains(out, src) {
			out = append(out, src)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (m *memStore) StoredDocuments(_ context.Context, source string) ([]ariadne.Document, []string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []ariadne.Document
	for _, dg := range m.docs {
		if dg.Doc.SourceName() == cmp.Or(source, ariadne.DefaultSource) {
			out = append(out, dg.Doc)
		}
	}
	slices.SortFunc(out, func(a, b ariadne.Document) int { return strings.Compare(a.ID, b.ID) })
	return out, nil, nil
}

func (m *memStore) StoredChunks(_ context.Context, source string) (map[string][]ariadne.Chunk, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string][]ariadne.Chunk{}
	for id, dg := range m.docs {
		if dg.Doc.SourceName() == cmp.Or(source, ariadne.DefaultSource) {
			out[id] = slices.Clone(dg.Chunks)
		}
	}
	return out, nil
}

func (m *memStore) WriteDocuments(_ context.Context, docs []ariadne.DocumentGraph, _ map[string][]string, _ map[string]string, _ ariadne.Labeler, extractor string) (ariadne.WriteStats, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var st ariadne.WriteStats
	for _, dg := range docs {
		m.docs[dg.Doc.ID] = dg
		m.extractors[dg.Doc.ID] = extractor
		delete(m.claimed, dg.Doc.ID)
		st.Documents++
		st.Chunks += len(dg.Chunks)
	}
	return st, nil
}

func (m *memStore) DeleteDocuments(_ context.Context, old map[string][]string) (ariadne.WriteStats, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var st ariadne.WriteStats
	for id, chunks := range old {
		delete(m.docs, id)
		delete(m.extractors, id)
		st.DeletedDocuments++
		st.DeletedChunks += len(chunks)
	}
	return st, nil
}

func (m *memStore) ClaimDocuments(_ context.Context, source string, ids []string) ([]ariadne.SourceConflict, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	source = cmp.Or(source, ariadne.DefaultSource)
	var out []ariadne.SourceConflict
	for _, id := range ids {
		held := m.claimed[id]
		if dg, ok := m.docs[id]; ok {
			held = dg.Doc.SourceName()
		}
		switch {
		case held == "":
			m.claimed[id] = source
		case held != source:
			out = append(out, ariadne.SourceConflict{DocID: id, Source: held})
		}
	}
	return out, nil
}

func (m *memStore) MarkSourceSynced(context.Context, string) error { return nil }

func (m *memStore) SourceRegistry(_ context.Context, source string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.registry[source], nil
}

func (m *memStore) SetSourceRegistry(_ context.Context, source, fp string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.registry[source] = fp
	return nil
}

func (m *memStore) EnsureClass(context.Context, ariadne.Embedding) error { return nil }

func (m *memStore) Upsert(_ context.Context, chunks []ariadne.IndexedChunk) (ariadne.UpsertResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range chunks {
		m.vectors[c.ID] = c
	}
	return ariadne.UpsertResult{Written: len(chunks)}, nil
}

func (m *memStore) DeleteChunks(_ context.Context, ids []string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, id := range ids {
		if _, ok := m.vectors[id]; ok {
			delete(m.vectors, id)
			n++
		}
	}
	return n, nil
}

func (m *memStore) StoredVectors(context.Context) ([]ariadne.StoredVector, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []ariadne.StoredVector
	for id, c := range m.vectors {
		out = append(out, ariadne.StoredVector{ChunkID: id, Source: cmp.Or(c.Source, ariadne.DefaultSource), Analysis: c.Analysis})
	}
	return out, nil
}

func (m *memStore) VectorsByContentKey(_ context.Context, keys, readers []string) (map[string][]float32, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string][]float32{}
	for _, c := range m.vectors {
		if slices.Contains(keys, c.ContentKey) && ariadne.ReadersWithin(readers, c.ACL) {
			out[c.ContentKey] = c.Vector
		}
	}
	return out, nil
}

func (m *memStore) Reanalyze(_ context.Context, ids []string, _ string, _ func(ariadne.Chunk) string) (int, error) {
	return len(ids), nil
}

// fixedEmbedder embeds every passage as the same small vector.
type fixedEmbedder struct{}

func (fixedEmbedder) Name() string { return "fixed/3" }
func (fixedEmbedder) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0, 0}
	}
	return out, nil
}

func memPipeline(t *testing.T) (*Pipeline, *memStore) {
	t.Helper()
	onto, err := ontology.Default()
	if err != nil {
		t.Fatal(err)
	}
	ch, err := chunking.NewDefault()
	if err != nil {
		t.Fatal(err)
	}
	st := newMemStore()
	p, err := New(Config{Chunker: ch, Embedder: fixedEmbedder{}, Extractor: extraction.NewDictionary(onto), Ontology: onto, Graph: st, Vectors: st,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return p, st
}

// TestPrecheck: Options.Precheck sees what the graph remembers of every stored document before
// the run writes, and its error ends an Upsert or a Delete with nothing written.
func TestPrecheck(t *testing.T) {
	ctx := context.Background()
	p, st := memPipeline(t)
	v1 := ariadne.Document{ID: "clients/orion", Title: "Orion Freight", Type: "client", Lang: "en", Version: 1, ACL: []string{"all"},
		Body: "# Orion Freight\n\nOrion Freight is a logistics client.\n"}
	var seen map[string]ariadne.DocState
	record := func(_ context.Context, stored map[string]ariadne.DocState) error { seen = stored; return nil }
	if _, err := p.Upsert(ctx, []ariadne.Document{v1}, Options{Precheck: record}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 0 {
		t.Fatalf("the first run's precheck saw %v, want nothing stored", seen)
	}
	v2 := v1
	v2.Version, v2.Body = 2, "# Orion Freight\n\nOrion Freight is a logistics client in Kazan.\n"
	refused := errors.New("refused by the caller")
	sum, err := p.Upsert(ctx, []ariadne.Document{v2}, Options{Precheck: func(c context.Context, stored map[string]ariadne.DocState) error {
		seen = stored
		return refused
	}})
	if !errors.Is(err, refused) || sum.DocsWritten != 0 || sum.Writes() != 0 {
		t.Fatalf("refused upsert: %+v %v", sum, err)
	}
	if s, ok := seen["clients/orion"]; !ok || s.ContentHash != v1.ContentHash() || s.Source != ariadne.DefaultSource {
		t.Fatalf("the precheck saw %+v, want the stored first version", seen)
	}
	if got := st.docs["clients/orion"].Doc; got.Version != 1 || got.Body != v1.Body {
		t.Fatalf("after a refused upsert the store holds %+v", got)
	}
	if _, err := p.Delete(ctx, []string{"clients/orion"}, Options{Precheck: func(context.Context, map[string]ariadne.DocState) error { return refused }}); !errors.Is(err, refused) {
		t.Fatalf("refused delete: %v", err)
	}
	if _, ok := st.docs["clients/orion"]; !ok {
		t.Fatal("a refused delete deleted the document")
	}
	sum, err = p.Delete(ctx, []string{"clients/orion"}, Options{Precheck: record})
	if err != nil || sum.DocsDeleted != 1 || len(seen) != 1 {
		t.Fatalf("delete: %+v %v (precheck saw %d documents)", sum, err, len(seen))
	}
}

// TestSummaryDocs: Summary.Docs counts a given document's chunks, entities and relations whether
// the run writes it or finds it unchanged — an unchanged re-post reports the document's counts,
// not zeros — and leaves out documents another source holds.
func TestSummaryDocs(t *testing.T) {
	ctx := context.Background()
	p, _ := memPipeline(t)
	client := ariadne.Document{ID: "clients/orion", Title: "Orion Freight", Type: "client", Lang: "en", ACL: []string{"all"},
		Body: "# Orion Freight\n\nOrion Freight is a logistics client.\n"}
	note := ariadne.Document{ID: "notes/call", Title: "Call notes", Type: "note", Lang: "en", ACL: []string{"all"},
		Body: "# Call notes\n\nWe called Orion Freight about the delivery dates.\n\n" + strings.Repeat("More about the delivery dates and the trucks. ", 200)}
	if _, err := p.Upsert(ctx, []ariadne.Document{client}, Options{}); err != nil {
		t.Fatal(err)
	}
	first, err := p.Upsert(ctx, []ariadne.Document{note}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := first.Docs["notes/call"]
	if first.DocsWritten != 1 || want.Chunks < 2 || want.Chunks != first.Chunks || want.Entities < 1 || !want.Extracted {
		t.Fatalf("written: %+v, docs %+v", first, first.Docs)
	}
	if want.Entities != first.DocEntities || want.Relations != first.Relations {
		t.Errorf("one written document: Docs %+v, run counts entities %d relations %d", want, first.DocEntities, first.Relations)
	}
	again, err := p.Upsert(ctx, []ariadne.Document{note}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.DocsUnchanged != 1 || again.Writes() != 0 || again.Chunks != 0 {
		t.Fatalf("unchanged: %+v", again)
	}
	if got := again.Docs["notes/call"]; got != want {
		t.Errorf("unchanged re-post: Docs %+v, want the document's counts %+v", got, want)
	}
	if len(again.Docs) != 1 {
		t.Errorf("Docs %v: want the given document only", again.Docs)
	}
	other, err := p.Upsert(ctx, []ariadne.Document{note}, Options{Source: "wiki"})
	if err != nil || len(other.Conflicts) != 1 || len(other.Docs) != 0 {
		t.Errorf("another source's id: %+v %v", other, err)
	}
}
