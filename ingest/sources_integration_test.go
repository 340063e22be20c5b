package ingest_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/embedding"
	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// allGroups reads everything in testrig.KB.
var allGroups = []string{ariadne.PublicGroup, "management", "delivery", "sales"}

// countingEmbedder counts the passages sent to the embedder it wraps.
type countingEmbedder struct {
	testrig.Embedder
	passages atomic.Int64
}

func (c *countingEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	c.passages.Add(int64(len(texts)))
	return c.Embedder.EmbedPassages(ctx, texts)
}

// newPipeline builds a second pipeline over the rig's stores — as a second extract process would.
func newPipeline(t testing.TB, r *testrig.Rig, emb ingest.Embedder) *ingest.Pipeline {
	t.Helper()
	ch, err := chunking.NewDefault()
	if err != nil {
		t.Fatal(err)
	}
	p, err := ingest.New(ingest.Config{Chunker: ch, Embedder: emb, Extractor: extraction.NewDictionary(r.Ontology),
		Ontology: r.Ontology, Graph: r.Graph, Vectors: r.Vector})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// splitKB copies testrig.KB's folders into two corpora: the wiki (typed pages) and ops (policies,
// runbooks, incidents, meetings, technologies), which mention the wiki's people and clients.
func splitKB(t testing.TB) (wiki, ops string) {
	t.Helper()
	wiki, ops = t.TempDir(), t.TempDir()
	ents, err := os.ReadDir(testrig.KB)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		dst := ops
		if slices.Contains([]string{"clients", "contracts", "people", "projects", "teams"}, e.Name()) {
			dst = wiki
		}
		if err := os.CopyFS(filepath.Join(dst, e.Name()), os.DirFS(filepath.Join(testrig.KB, e.Name()))); err != nil {
			t.Fatal(err)
		}
	}
	return wiki, ops
}

func load(t testing.TB, dir string) []ariadne.Document {
	t.Helper()
	docs, problems, err := corpus.Load(os.DirFS(dir))
	if err != nil || len(problems) > 0 {
		t.Fatalf("load %s: %v %v", dir, err, problems)
	}
	return docs
}

func syncSource(t testing.TB, p *ingest.Pipeline, dir, source string) ingest.Summary {
	t.Helper()
	sum, err := p.Sync(context.Background(), load(t, dir), ingest.Options{Source: source})
	if err != nil {
		t.Fatalf("sync %s: %v", source, err)
	}
	return sum
}

// sourcesOf returns, per source, the sorted ids of its stored documents.
func sourcesOf(t testing.TB, r *rig) map[string][]string {
	t.Helper()
	states, err := r.graph.DocumentStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for id, st := range states {
		out[st.Source] = append(out[st.Source], id)
	}
	for _, ids := range out {
		slices.Sort(ids)
	}
	return out
}

func ids(docs []ariadne.Document) []string {
	out := make([]string, 0, len(docs))
	for _, d := range docs {
		out = append(out, d.ID)
	}
	slices.Sort(out)
	return out
}

// checkConsistent asserts the graph invariants and that both stores hold the same chunks, each
// vector under its document's source.
func checkConsistent(t testing.TB, r *rig) {
	t.Helper()
	r.audit(t)
	states, err := r.graph.DocumentStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, st := range states {
		for _, c := range st.ChunkIDs {
			want[c] = st.Source
		}
	}
	stored, err := r.vector.StoredVectors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range stored {
		got[v.ChunkID] = v.Source
	}
	if len(got) != len(want) {
		t.Errorf("%d vectors for %d graph chunks", len(got), len(want))
	}
	for c, src := range want {
		if got[c] != src {
			t.Errorf("chunk %s of source %s: vector source %q", c, src, got[c])
		}
	}
}

// TestIntegrationSourcesConcurrent: two pipelines (as two extract processes) sync two sources of
// one graph at the same time; both finish, the stores are consistent, each source holds exactly
// its folder, and GET /v1/sources' query counts them. Then a source's sync touches only its own
// documents, an id another source holds is a conflict that loses nothing, and an entity a page of
// one source describes and the other's documents mention goes with its page, the other source
// extracted again.
func TestIntegrationSourcesConcurrent(t *testing.T) {
	r := newRig(t, testrig.KB)
	wikiDir, opsDir := splitKB(t)
	wikiDocs, opsDocs := load(t, wikiDir), load(t, opsDir)
	p1, p2 := r.pipe, newPipeline(t, r.Rig, r.Embedder)

	var wg sync.WaitGroup
	var s1, s2 ingest.Summary
	var e1, e2 error
	wg.Add(2)
	go func() {
		defer wg.Done()
		s1, e1 = p1.Sync(context.Background(), wikiDocs, ingest.Options{Source: "wiki"})
	}()
	go func() {
		defer wg.Done()
		s2, e2 = p2.Sync(context.Background(), opsDocs, ingest.Options{Source: "ops"})
	}()
	wg.Wait()
	if e1 != nil || e2 != nil {
		t.Fatalf("concurrent syncs: wiki %v, ops %v", e1, e2)
	}
	if s1.DocsWritten != len(wikiDocs) || s2.DocsWritten != len(opsDocs) || s1.DocsDeleted+s2.DocsDeleted != 0 {
		t.Fatalf("wiki wrote %d of %d, ops %d of %d, deleted %d+%d", s1.DocsWritten, len(wikiDocs), s2.DocsWritten, len(opsDocs), s1.DocsDeleted, s2.DocsDeleted)
	}
	checkConsistent(t, r)
	by := sourcesOf(t, r)
	if !slices.Equal(by["wiki"], ids(wikiDocs)) || !slices.Equal(by["ops"], ids(opsDocs)) || len(by) != 2 {
		t.Fatalf("documents by source: %v", by)
	}
	srcs, err := r.graph.Sources(context.Background(), allGroups)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 2 || srcs[0].Name != "ops" || srcs[0].Documents != len(opsDocs) || srcs[0].Chunks != s2.Chunks ||
		srcs[1].Name != "wiki" || srcs[1].Documents != len(wikiDocs) || srcs[1].Chunks != s1.Chunks || srcs[1].LastSync == "" {
		t.Errorf("sources %+v; want ops %d/%d, wiki %d/%d", srcs, len(opsDocs), s2.Chunks, len(wikiDocs), s1.Chunks)
	}

	// Each run started without the other's entities; one more run each relinks, then nothing.
	syncSource(t, p1, wikiDir, "wiki")
	syncSource(t, p2, opsDir, "ops")
	if again := syncSource(t, p1, wikiDir, "wiki"); again.Writes() != 0 {
		t.Errorf("a settled wiki sync wrote %d", again.Writes())
	}
	if again := syncSource(t, p2, opsDir, "ops"); again.Writes() != 0 {
		t.Errorf("a settled ops sync wrote %d", again.Writes())
	}

	// A wiki sync without one page deletes that page only; ops is untouched.
	opsBefore, err := r.graph.DocumentStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(wikiDir, "projects", "olkha-sites.md")); err != nil {
		t.Fatal(err)
	}
	if sum := syncSource(t, p1, wikiDir, "wiki"); sum.DocsDeleted != 1 {
		t.Errorf("wiki sync deleted %d documents, want 1", sum.DocsDeleted)
	}
	after, err := r.graph.DocumentStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids(opsDocs) {
		if b, a := opsBefore[id], after[id]; a.ContentHash != b.ContentHash || !slices.Equal(a.ChunkIDs, b.ChunkIDs) || a.Source != "ops" {
			t.Errorf("ops document %s changed by a wiki sync: %+v → %+v", id, b, a)
		}
	}
	checkConsistent(t, r)

	// ops gets a copy of a wiki page under the wiki's id: a conflict, and the wiki's page stays.
	victim := "clients/orbita-clinic"
	stolen := filepath.Join(opsDir, "stolen.md")
	if err := os.WriteFile(stolen, []byte("---\nid: "+victim+"\ntitle: Not the clinic\ntype: note\n---\nOps would overwrite it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := syncSource(t, p2, opsDir, "ops")
	if !slices.Equal(sum.Conflicts, []ariadne.SourceConflict{{DocID: victim, Source: "wiki"}}) || sum.Writes() != 0 {
		t.Errorf("conflict: %+v, writes %d", sum.Conflicts, sum.Writes())
	}
	if st := after[victim]; st.Source != "wiki" {
		t.Fatalf("victim state %+v", st)
	}
	now, err := r.graph.DocumentStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if now[victim].ContentHash != after[victim].ContentHash || now[victim].Source != "wiki" {
		t.Errorf("the wiki's page changed: %+v → %+v", after[victim], now[victim])
	}
	if err := os.Remove(stolen); err != nil {
		t.Fatal(err)
	}

	// An entity both sources support goes with the wiki page that described it when the wiki
	// empties: ops is extracted again, and the graph is what ops alone gives (its mentions of
	// the wiki's people and projects named them through the pages' names).
	shared := sharedEntities(t, r)
	if len(shared) == 0 {
		t.Fatal("no entity is supported by both sources")
	}
	stored, err := r.graph.LoadEntities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	shared = slices.DeleteFunc(shared, func(k string) bool {
		i := slices.IndexFunc(stored, func(e ariadne.StoredEntity) bool { return e.Key == k })
		return i < 0 || !slices.Contains(ids(wikiDocs), stored[i].DocID)
	})
	if len(shared) == 0 {
		t.Fatal("no entity a wiki page describes is mentioned by ops")
	}
	empty := t.TempDir()
	syncSource(t, p1, empty, "wiki")
	checkConsistent(t, r)
	ents := entitySources(t, r)
	for _, k := range shared {
		if srcs, ok := ents[k]; ok {
			t.Errorf("entity %s a wiki page described outlives the page: sources %v", k, srcs)
		}
	}
	fresh := newRig(t, opsDir)
	fresh.sync(t)
	if got, want := slices.Sorted(maps.Keys(ents)), slices.Sorted(maps.Keys(entitySources(t, fresh))); !slices.Equal(got, want) {
		t.Errorf("after the wiki emptied, entities %v; ops indexed alone: %v", got, want)
	}
	if by := sourcesOf(t, r); len(by["wiki"]) != 0 || !slices.Equal(by["ops"], ids(opsDocs)) {
		t.Errorf("after the wiki emptied: %v", by)
	}
	syncSource(t, p2, empty, "ops")
	c, n := r.counts(t)
	if c.Documents != 0 || c.Chunks != 0 || c.Entities != 0 || c.Relations != 0 || n != 0 {
		t.Errorf("both sources empty: graph %+v, %d vectors", c, n)
	}
}

func entitySources(t testing.TB, r *rig) map[string][]string {
	t.Helper()
	ents, err := r.graph.LoadEntities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, e := range ents {
		out[e.Key] = e.Sources
	}
	return out
}

func sharedEntities(t testing.TB, r *rig) []string {
	t.Helper()
	var out []string
	for k, srcs := range entitySources(t, r) {
		if slices.Equal(srcs, []string{"ops", "wiki"}) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// TestIntegrationVectorReuse counts the passages sent to the embedder: a chunk whose embedder,
// title, heading path and text are unchanged is never embedded again — after a graph reset, in a
// new source that shares a document, after a document is renamed — and an edit embeds only the
// chunks it changed.
func TestIntegrationVectorReuse(t *testing.T) {
	emb := &countingEmbedder{Embedder: embedding.NewLexical(0)}
	r := testrig.NewWithEmbedder(t, "", emb)
	rr := &rig{Rig: r, pipe: r.Pipe, graph: r.Graph, vector: r.Vector}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(testrig.KB)); err != nil {
		t.Fatal(err)
	}
	r.Dir = dir
	ctx := context.Background()

	first := r.Sync(t)
	base := emb.passages.Load()
	if first.Embedded != first.Chunks || first.VectorsReused != 0 || base != int64(first.Chunks)+1 { // +1: the dimension probe
		t.Fatalf("first sync: embedded %d of %d chunks (counted %d), reused %d", first.Embedded, first.Chunks, base, first.VectorsReused)
	}
	step := func(name string, wantEmbedded int, do func() ingest.Summary) ingest.Summary {
		t.Helper()
		before := emb.passages.Load()
		sum := do()
		if got := int(emb.passages.Load() - before); got != wantEmbedded || sum.Embedded != wantEmbedded {
			t.Errorf("%s: the embedder got %d passages (summary %d), want %d; reused %d", name, got, sum.Embedded, wantEmbedded, sum.VectorsReused)
		}
		checkConsistent(t, rr)
		return sum
	}

	// A reset graph: every document is new to the graph, every vector is found by content.
	if err := r.Graph.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if sum := step("graph reset", 0, func() ingest.Summary { return r.Sync(t) }); sum.VectorsReused != first.Chunks || sum.DocsWritten != first.DocsWritten {
		t.Errorf("graph reset: reused %d of %d, wrote %d documents", sum.VectorsReused, first.Chunks, sum.DocsWritten)
	}

	// A new source sharing a document (a copy under another id).
	docs := load(t, dir)
	i := slices.IndexFunc(docs, func(d ariadne.Document) bool { return d.ID == "policies/leave" })
	copyDoc := docs[i]
	copyDoc.ID = "mirror/leave"
	step("a new source sharing a document", 0, func() ingest.Summary {
		sum, err := r.Pipe.Upsert(ctx, []ariadne.Document{copyDoc}, ingest.Options{Source: "mirror"})
		if err != nil {
			t.Fatal(err)
		}
		if sum.VectorsReused == 0 || sum.VectorsReused != sum.Vectors {
			t.Errorf("mirror: reused %d of %d vectors written", sum.VectorsReused, sum.Vectors)
		}
		return sum
	})

	// Two new documents with the same new text in one run: each new content key is embedded once.
	twin := ariadne.Document{ID: "mirror/twin-1", Title: "Twin note", Type: "note", Body: "# Twin\n\nA text no other document has, stated twice.\n"}
	twin2 := twin
	twin2.ID = "mirror/twin-2"
	step("the same new text twice in one run", len(chunker(t).Split(twin)), func() ingest.Summary {
		sum, err := r.Pipe.Upsert(ctx, []ariadne.Document{twin, twin2}, ingest.Options{Source: "mirror"})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Vectors != 2*len(chunker(t).Split(twin)) {
			t.Errorf("twins: %d vectors written", sum.Vectors)
		}
		return sum
	})

	// A rename: the file's id changes, its text does not.
	path := filepath.Join(dir, "runbooks", "queue-stall.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.Replace(string(raw), "id: runbooks/queue-stall", "id: runbooks/queue-stall-v2", 1)
	if renamed == string(raw) {
		t.Fatal("runbooks/queue-stall.md has no id line to rename")
	}
	if err := os.WriteFile(path, []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	step("a rename", 0, func() ingest.Summary {
		sum := r.Sync(t)
		if sum.DocsDeleted != 1 || sum.VectorsReused == 0 {
			t.Errorf("rename: deleted %d, reused %d", sum.DocsDeleted, sum.VectorsReused)
		}
		return sum
	})

	// An edit embeds exactly the chunks whose content key is new.
	edited := strings.Replace(renamed, "\n\n", "\n\nAn added sentence about the queue.\n\n", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	oldDoc, err := corpus.Parse(path, []byte(renamed))
	if err != nil {
		t.Fatal(err)
	}
	newDoc, err := corpus.Parse(path, []byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	oldKeys := map[string]bool{}
	for _, c := range chunker(t).Split(oldDoc) {
		oldKeys[c.ContentKey(emb.Name())] = true
	}
	fresh := 0
	for _, c := range chunker(t).Split(newDoc) {
		if !oldKeys[c.ContentKey(emb.Name())] {
			fresh++
		}
	}
	if fresh == 0 {
		t.Fatal("the edit changed no chunk")
	}
	step("an edit", fresh, func() ingest.Summary { return r.Sync(t) })
}

func chunker(t testing.TB) *chunking.Chunker {
	t.Helper()
	ch, err := chunking.NewDefault()
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// TestIntegrationVectorReuseE5 measures the saving with the real e5 embedder on the repository's
// corpora: a cold sync embeds every chunk (what every re-index after a graph reset did before
// vectors were reused by content); after a graph reset the same sync embeds none. Figures in
// docs/performance.md ("Sources and vector reuse").
func TestIntegrationVectorReuseE5(t *testing.T) {
	for _, c := range []struct{ name, dir string }{{"kb", testrig.KB}, {"demo", testrig.DemoKB}} {
		t.Run(c.name, func(t *testing.T) {
			emb := &countingEmbedder{Embedder: testrig.E5(t)}
			r := testrig.NewWithEmbedder(t, "", emb)
			r.Dir = t.TempDir()
			if err := os.CopyFS(r.Dir, os.DirFS(c.dir)); err != nil {
				t.Fatal(err)
			}
			cold := r.Sync(t)
			if err := r.Graph.Reset(context.Background()); err != nil {
				t.Fatal(err)
			}
			before := emb.passages.Load()
			warm := r.Sync(t)
			if n := emb.passages.Load() - before; n != 0 || warm.VectorsReused != cold.Chunks || warm.DocsWritten != cold.DocsWritten {
				t.Fatalf("after a graph reset the embedder got %d passages; reused %d of %d", n, warm.VectorsReused, cold.Chunks)
			}
			t.Logf("%s with %s: %d documents, %d chunks; cold sync %.1f s (%d embedded); after a graph reset %.1f s (0 embedded, %d reused)",
				c.name, emb.Name(), cold.DocsWritten, cold.Chunks, cold.Elapsed.Seconds(), cold.Embedded, warm.Elapsed.Seconds(), warm.VectorsReused)
		})
	}
}
