package ingest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/evaluation"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/resolution"
	"github.com/ariadne-graphrag/ariadne/textnorm"
	"github.com/ariadne-graphrag/ariadne/vector"
)

// rig wraps testrig.Rig with the assertions these tests share.
type rig struct {
	*testrig.Rig
	pipe   *ingest.Pipeline
	graph  *graph.Store
	vector *vector.Store
	dir    string
}

// newRig starts from an empty graph and a new Weaviate class with a copy of corpusDir (not yet
// synced).
func newRig(t testing.TB, corpusDir string) *rig {
	t.Helper()
	r := testrig.New(t, "")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(corpusDir)); err != nil {
		t.Fatal(err)
	}
	r.Dir = dir
	return &rig{Rig: r, pipe: r.Pipe, graph: r.Graph, vector: r.Vector, dir: dir}
}

func (r *rig) sync(t testing.TB) ingest.Summary { t.Helper(); return r.Sync(t) }

func (r *rig) audit(t testing.TB) {
	t.Helper()
	a, err := r.graph.Audit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if a != (graph.Audit{}) {
		t.Fatalf("graph invariants violated: %+v", a)
	}
}

func (r *rig) counts(t testing.TB) (graph.Counts, int) {
	t.Helper()
	c, err := r.graph.Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n, err := r.vector.Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c, n
}

// kbVariants are the spelling variants of testrig.KB's entities, by the document that describes
// each: other scripts, the alias front matter, alias cues in the text, quotes and case forms.
var kbVariants = map[string][]string{
	"clients/zarya-bakery":   {"ООО «Пекарня Заря»", "Пекарня Заря", "Zarya Bakery", "Заря-Пекарня", "пекарни «Заря»", "«Пекарне Заря»"},
	"clients/orbita-clinic":  {"Orbita Clinic", "Клиника Орбита", "OrbitaMed", "клинике «Орбита»"},
	"clients/olkha-stroy":    {"АО «Ольха-Строй»", "Ольха-Строй", "Olkha Stroy"},
	"teams/foundation":       {"Команда фундамента", "Foundation team", "Команды фундамента"},
	"teams/backend":          {"Backend team", "Серверная команда"},
	"people/vera-kolesnik":   {"Vera Kolesnik", "Вера Колесник"},
	"people/artem-berezin":   {"Артём Березин", "Артёмом Березиным"},
	"technologies/memcached": {"Memcached", "мемкеш", "мемкеша"},
	"technologies/doughmill": {"doughmill", "Doughmill"},
	"projects/zarya-orders":  {"«Заря-Заказы»", "Заря-Заказы"},
}

// predictor is how a variant resolves: to the entity the matcher attributes it to as a whole
// name, or, as in running text, to the single entity named inside it («клинике «Орбита»»).
func predictor(m *resolution.Matcher) func(string) string {
	return func(v string) string {
		if keys := m.FindWhole(v).Keys; len(keys) == 1 {
			return keys[0]
		}
		found := map[string]bool{}
		for _, match := range m.Find(v) {
			if len(match.Keys) == 1 {
				found[match.Keys[0]] = true
			}
		}
		if len(found) == 1 {
			for k := range found {
				return k
			}
		}
		return ""
	}
}

// TestIntegrationExtractCorpus covers issue #3's acceptance on the repository's test corpus
// (testrig.KB): counts, variant spellings resolved to one entity, a client→project→technology
// path whose provenance chunks mention both ends, the Neo4j Browser queries, idempotence,
// update, and delete without orphans.
func TestIntegrationExtractCorpus(t *testing.T) {
	r := newRig(t, testrig.KB)
	ctx := context.Background()

	first := r.sync(t)
	counts, vectors := r.counts(t)
	t.Logf("first run: %+v graph=%+v vectors=%d", first, counts, vectors)
	if counts.Documents != 24 || counts.Chunks != 45 || vectors != 45 || len(first.VectorErrors) != 0 {
		t.Fatalf("documents=%d chunks=%d vectors=%d errors=%v; want 24, 45, 45, none", counts.Documents, counts.Chunks, vectors, first.VectorErrors)
	}
	r.audit(t)

	t.Run("variant spellings resolve to one entity each", func(t *testing.T) {
		docs, _, _ := corpus.Load(os.DirFS(r.dir))
		reg, err := r.pipe.Resolve(ctx, docs)
		if err != nil {
			t.Fatal(err)
		}
		predict := predictor(reg.Matcher())
		scores := resolution.PairwiseScores(kbVariants, predict)
		if scores.Precision != 1 || scores.Recall != 1 || len(scores.Unresolved) != 0 {
			t.Errorf("precision %.3f recall %.3f (TP %d FP %d FN %d) unresolved %q; want 1, 1, none",
				scores.Precision, scores.Recall, scores.TP, scores.FP, scores.FN, scores.Unresolved)
		}
		for want, vs := range kbVariants {
			for _, v := range vs {
				if got := predict(v); got != want {
					t.Errorf("%q resolved to %q, want %s", v, got, want)
				}
			}
		}
	})

	t.Run("client-project-technology path with provenance", func(t *testing.T) {
		paths, err := r.graph.Paths(ctx, graph.PathQuery{From: []string{"clients/zarya-bakery"}, To: []string{"technologies/doughmill"},
			MaxHops: 2, Groups: []string{"all"}})
		if err != nil {
			t.Fatal(err)
		}
		var found *ariadne.Path
		for i, p := range paths {
			if p.Hops() == 2 && p.Nodes[1].Key == "projects/zarya-orders" {
				found = &paths[i]
			}
		}
		if found == nil {
			t.Fatalf("no path clients/zarya-bakery – projects/zarya-orders – technologies/doughmill among %+v", paths)
		}
		if e := found.Edges[0].Type; e != "FOR_CLIENT" && e != "HAS_PROJECT" || found.Edges[1].Type != "USES" {
			t.Errorf("edge types %s, %s; want FOR_CLIENT or HAS_PROJECT, then USES", found.Edges[0].Type, found.Edges[1].Type)
		}
		docs, _, _ := corpus.Load(os.DirFS(r.dir))
		reg, _ := r.pipe.Resolve(ctx, docs)
		m := reg.Matcher()
		for _, e := range found.Edges {
			chunks, err := r.graph.Chunks(ctx, e.ChunkIDs, []string{"all"})
			if err != nil || len(chunks) == 0 {
				t.Fatalf("edge %s: chunks %v %v", e.Type, chunks, err)
			}
			for _, c := range chunks {
				// A chunk as retrieval presents it: title, heading path and text.
				named := map[string]bool{}
				for _, match := range m.Find(c.ContextText()) {
					for _, k := range match.Keys {
						named[k] = true
					}
				}
				if !named[e.From] || !named[e.To] {
					t.Errorf("edge %s %s→%s: chunk %s does not name both ends (names %v)", e.Type, e.From, e.To, c.ID, named)
				}
			}
		}
	})

	t.Run("Neo4j Browser queries in deploy/ run and find things", func(t *testing.T) {
		raw, err := os.ReadFile("../deploy/neo4j/browser-queries.cypher")
		if err != nil {
			t.Fatal(err)
		}
		params := map[string]any{"from": "Zarya Bakery", "to": "doughmill", "key": "clients/zarya-bakery", "name": "Zarya Bakery"}
		var stmts []string
		for _, part := range strings.Split(string(raw), ";") {
			var lines []string
			for _, l := range strings.Split(part, "\n") {
				if !strings.HasPrefix(strings.TrimSpace(l), "//") {
					lines = append(lines, l)
				}
			}
			if stmt := strings.TrimSpace(strings.Join(lines, "\n")); stmt != "" {
				stmts = append(stmts, stmt)
			}
		}
		if len(stmts) != 7 {
			t.Fatalf("%d statements in browser-queries.cypher, want 7", len(stmts))
		}
		for i, stmt := range stmts {
			p := params
			if i == 2 {
				p = map[string]any{"from": "projects/zarya-orders", "to": "technologies/doughmill"}
			}
			rows, err := r.graph.QueryReadOnly(ctx, stmt, p)
			if err != nil {
				t.Errorf("query %d: %v", i+1, err)
				continue
			}
			if len(rows) == 0 {
				t.Errorf("query %d returned nothing", i+1)
			}
		}
	})

	t.Run("second run writes nothing", func(t *testing.T) {
		second := r.sync(t)
		if second.Writes() != 0 || second.DocsUnchanged != 24 {
			t.Fatalf("second run: %d writes, %d unchanged; want 0 and 24 (%+v)", second.Writes(), second.DocsUnchanged, second)
		}
		c2, v2 := r.counts(t)
		if c2 != counts || v2 != vectors {
			t.Fatalf("counts changed: %+v/%d → %+v/%d", counts, vectors, c2, v2)
		}
	})

	t.Run("a sync rewrites BM25 terms an older analysis made, keeping vectors", func(t *testing.T) {
		states, _ := r.graph.DocumentStates(ctx)
		ids := states["technologies/doughmill"].ChunkIDs
		term := textnorm.SearchTerms("doughmill")
		bm25 := func() []string {
			hits, err := r.vector.Search(ctx, ariadne.SearchBM25, ariadne.SearchQuery{Text: "doughmill", Terms: term,
				Groups: []string{"all", "delivery", "sales", "management"}, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, h := range hits {
				if h.DocID == "technologies/doughmill" {
					out = append(out, h.ID)
				}
			}
			slices.Sort(out)
			return out
		}
		found := bm25()
		if len(found) == 0 {
			t.Fatalf("BM25 %v finds no chunk of technologies/doughmill before the test", term)
		}
		// An index an older Ariadne wrote: other terms, another analysis, the same vectors.
		n, err := r.vector.Reanalyze(ctx, ids, "2000-01-01", func(ariadne.Chunk) string { return "unrelated" })
		if err != nil || n != len(ids) {
			t.Fatalf("staging old terms: rewrote %d of %d: %v", n, len(ids), err)
		}
		if got := bm25(); len(got) != 0 {
			t.Fatalf("old terms still found by %v: %v", term, got)
		}
		_, v1 := r.counts(t)
		sum := r.sync(t)
		if sum.Reanalyzed != len(ids) || sum.Writes() != len(ids) || sum.DocsWritten != 0 || sum.Embedded != 0 {
			t.Fatalf("sync after an analysis change: reanalyzed %d (want %d), writes %d, written %d, embedded %d",
				sum.Reanalyzed, len(ids), sum.Writes(), sum.DocsWritten, sum.Embedded)
		}
		if got := bm25(); !slices.Equal(got, found) {
			t.Errorf("BM25 after the sync finds %v, want %v", got, found)
		}
		stored, err := r.vector.StoredVectors(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range stored {
			if v.Analysis != textnorm.AnalysisVersion {
				t.Errorf("chunk %s has analysis %q after the sync", v.ChunkID, v.Analysis)
			}
		}
		if _, v2 := r.counts(t); v2 != v1 {
			t.Errorf("vectors %d → %d", v1, v2)
		}
		if again := r.sync(t); again.Writes() != 0 || again.Reanalyzed != 0 {
			t.Errorf("the next sync wrote %d (reanalyzed %d)", again.Writes(), again.Reanalyzed)
		}
	})

	t.Run("changed document replaces its chunks, vectors and provenance", func(t *testing.T) {
		states, _ := r.graph.DocumentStates(ctx)
		before := states["technologies/doughmill"].ChunkIDs
		path := filepath.Join(r.dir, "technologies", "doughmill.md")
		raw, _ := os.ReadFile(path)
		edited := string(raw) + "\n## Migration note\n\nThe doughmill repository is handed over to the Backend team in 2026.\n"
		if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := r.sync(t)
		if sum.DocsWritten != 1 {
			t.Fatalf("written %d documents, want 1 (%+v)", sum.DocsWritten, sum)
		}
		states, _ = r.graph.DocumentStates(ctx)
		after := states["technologies/doughmill"].ChunkIDs
		if len(after) != len(before)+1 {
			t.Fatalf("chunks before %v after %v; want one more", before, after)
		}
		ids, _ := r.vector.ChunkIDs(ctx)
		for _, id := range after {
			if !slices.Contains(ids, id) {
				t.Errorf("new chunk %s has no vector", id)
			}
		}
		newChunk := after[len(after)-1]
		paths, _ := r.graph.Paths(ctx, graph.PathQuery{From: []string{"technologies/doughmill"}, To: []string{"teams/backend"}, MaxHops: 1, Groups: []string{"all"}})
		if len(paths) != 1 || !slices.Contains(paths[0].Edges[0].ChunkIDs, newChunk) {
			t.Errorf("the new sentence's relation doughmill→Backend team is not supported by %s: %+v", newChunk, paths)
		}
		r.audit(t)
	})

	t.Run("removed document leaves no orphans", func(t *testing.T) {
		states, _ := r.graph.DocumentStates(ctx)
		gone := states["policies/bike-allowance"].ChunkIDs
		if err := os.Remove(filepath.Join(r.dir, "policies", "bike-allowance.md")); err != nil {
			t.Fatal(err)
		}
		sum := r.sync(t)
		if sum.DocsDeleted != 1 || sum.VectorsDeleted != len(gone) {
			t.Fatalf("deleted %d docs, %d vectors; want 1 and %d", sum.DocsDeleted, sum.VectorsDeleted, len(gone))
		}
		ids, _ := r.vector.ChunkIDs(ctx)
		for _, id := range gone {
			if slices.Contains(ids, id) {
				t.Errorf("vector of deleted chunk %s survived", id)
			}
		}
		c, v := r.counts(t)
		if c.Documents != 23 || c.Chunks != v {
			t.Errorf("after delete: %+v, %d vectors", c, v)
		}
		r.audit(t)
	})

	t.Run("--delete by id", func(t *testing.T) {
		sum, err := r.pipe.Delete(ctx, []string{"people/rustam-ibragimov"}, ingest.Options{})
		if err != nil || sum.DocsDeleted != 1 {
			t.Fatalf("delete: %+v %v", sum, err)
		}
		r.audit(t)
		ents, _ := r.graph.LoadEntities(ctx)
		for _, e := range ents {
			if e.Key == "people/rustam-ibragimov" && e.DocID != "" {
				t.Errorf("entity still points at its deleted document: %+v", e)
			}
		}
	})
}

// TestIntegrationEvalSharedEntityResolution is an evaluation on ../shared/corpus (skipped with
// its reason when ../shared is not here): entity resolution scored against the variant table of
// the shared corpus's README, which only that corpus has.
func TestIntegrationEvalSharedEntityResolution(t *testing.T) {
	evalSharedEntityResolution(t, testrig.New, false)
}

// TestIntegrationEvalSharedEntityResolutionNER is the same with entity recognition by the real
// NER sidecar: the names it finds in the corpus must not merge variants of different entities,
// nor take a variant from its documented entity. A variant that recognition makes an entity of
// its own (no document describes it) is a miss, like an unresolved one.
func TestIntegrationEvalSharedEntityResolutionNER(t *testing.T) {
	evalSharedEntityResolution(t, testrig.NewWithNER, true)
}

func evalSharedEntityResolution(t *testing.T, newRig func(testing.TB, string) *testrig.Rig, undocumentedIsMiss bool) {
	kb := testrig.SharedOrSkip(t, "corpus/kb")
	table := testrig.SharedOrSkip(t, "corpus/README.md")
	r := newRig(t, "")
	ctx := context.Background()
	docs, problems, err := corpus.Load(os.DirFS(kb))
	if err != nil || len(problems) > 0 {
		t.Fatalf("load: %v %v", err, problems)
	}
	reg, err := r.Pipe.Resolve(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	groups := variantTable(t, table)
	predict := predictor(reg.Matcher())
	scores := resolution.PairwiseScores(groups, predict)
	t.Logf("entity resolution vs the variants table: precision %.3f recall %.3f (TP %d FP %d FN %d) unresolved %q",
		scores.Precision, scores.Recall, scores.TP, scores.FP, scores.FN, scores.Unresolved)
	if scores.Precision < 1 || scores.Recall < 0.95 {
		t.Errorf("precision %.3f recall %.3f; want 1.0 and >= 0.95", scores.Precision, scores.Recall)
	}
	for canonical, vs := range groups {
		if !strings.HasPrefix(canonical, "doc:") {
			continue
		}
		want := strings.TrimPrefix(canonical, "doc:")
		for _, v := range vs {
			got := predict(v)
			if e, ok := reg.Get(got); undocumentedIsMiss && ok && e.DocID == "" {
				t.Logf("%q is an entity of its own (%s), not %s: a miss", v, got, want)
				continue
			}
			if got != "" && got != want {
				t.Errorf("%q resolved to %s, want %s", v, got, want)
			}
		}
	}
}

// variantTable reads the entity variant table of a corpus README into gold groups: "doc:<id>"
// (or the canonical name when no document describes it) → variant spellings.
func variantTable(t *testing.T, path string) map[string][]string {
	t.Helper()
	vs, err := evaluation.LoadVariantTable(path)
	if err != nil {
		t.Fatal(err)
	}
	groups := evaluation.VariantGroups(vs)
	if len(groups) < 20 {
		t.Fatalf("parsed only %d entities from the variants table", len(groups))
	}
	return groups
}

// TestIntegrationStopBetweenBatches: a stop request (SIGINT in cmd/extract) ends the run after
// the batches in progress — the one whose graph is being written and the next, whose vectors are
// written meanwhile — so a stop seen after batch 1 leaves batches 1 and 2 of 4; both stores stay
// consistent and the next run finishes the rest. The test corpus is grown to four batches of 32
// with generated notes.
func TestIntegrationStopBetweenBatches(t *testing.T) {
	r := newRig(t, testrig.KB)
	if err := os.MkdirAll(filepath.Join(r.dir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 104 {
		note := fmt.Sprintf("---\nid: notes/standup-%03d\ntitle: Stand-up %03d\ntype: meeting-notes\nlang: en\n---\n\n# Stand-up %03d\n\n"+
			"## Notes\n\nThe Backend team reviewed ticket BT-%d and moved it to testing.\n", i, i, i, 900+i)
		if err := os.WriteFile(filepath.Join(r.dir, "notes", fmt.Sprintf("standup-%03d.md", i)), []byte(note), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, _, _ := corpus.Load(os.DirFS(r.dir))
	if len(docs) != 128 {
		t.Fatalf("%d documents, want 128", len(docs))
	}
	stop := make(chan struct{})
	var reported []int
	sum, err := r.pipe.Sync(context.Background(), docs, ingest.Options{Stop: stop, Progress: func(done, total int) {
		reported = append(reported, done)
		if done == 32 {
			close(stop)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Stopped {
		t.Fatal("run not stopped")
	}
	if !slices.Equal(reported, []int{32, 64}) {
		t.Errorf("progress reports %v, want [32 64]", reported)
	}
	c, v := r.counts(t)
	if c.Documents != 64 || c.Chunks != v {
		t.Fatalf("after a stop: %d documents (want the first two batches, 64), %d chunks, %d vectors", c.Documents, c.Chunks, v)
	}
	r.audit(t)
	rest := r.sync(t)
	if rest.DocsWritten != 64 || rest.DocsUnchanged != 64 {
		t.Fatalf("resumed run wrote %d, left %d; want 64 and 64", rest.DocsWritten, rest.DocsUnchanged)
	}
	r.audit(t)
}

// BenchmarkIngestCorpusX20 measures ingestion throughput (chunks/s) with the offline embedder
// and extractor on ../shared/corpus/kb replicated 20 times (skipped with its reason when
// ../shared is not here).
func BenchmarkIngestCorpusX20(b *testing.B) {
	kb := testrig.SharedOrSkip(b, "corpus/kb")
	base, problems, err := corpus.Load(os.DirFS(kb))
	if err != nil || len(problems) > 0 {
		b.Fatalf("load: %v %v", err, problems)
	}
	var docs []ariadne.Document
	for i := range 20 {
		for _, d := range base {
			d.ID = fmt.Sprintf("%s-x%02d", d.ID, i)
			docs = append(docs, d)
		}
	}
	for b.Loop() {
		b.StopTimer()
		r := newRig(b, kb)
		b.StartTimer()
		sum, err := r.pipe.Sync(context.Background(), docs, ingest.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sum.Chunks)/sum.Elapsed.Seconds(), "chunks/s")
		b.ReportMetric(float64(sum.Chunks), "chunks")
	}
}
