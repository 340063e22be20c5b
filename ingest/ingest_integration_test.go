package ingest_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/resolution"
	"github.com/ariadne-graphrag/ariadne/vector"
)

const sharedKB = testrig.SharedKB

// rig wraps testrig.Rig with the assertions these tests share.
type rig struct {
	*testrig.Rig
	pipe   *ingest.Pipeline
	graph  *graph.Store
	vector *vector.Store
	dir    string
}

// newRig starts from an empty graph and a new Weaviate class with a copy of the shared corpus
// (not yet synced).
func newRig(t testing.TB) *rig {
	t.Helper()
	r := testrig.New(t, "")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(sharedKB)); err != nil {
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

// TestIntegrationExtractSharedCorpus covers issue #3's acceptance on ../shared/corpus/kb: counts,
// variant spellings resolved to one entity, a client→project→technology path whose provenance
// chunks mention both ends, idempotence, update, and delete without orphans.
func TestIntegrationExtractSharedCorpus(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()

	first := r.sync(t)
	counts, vectors := r.counts(t)
	t.Logf("first run: %+v graph=%+v vectors=%d", first, counts, vectors)
	if counts.Documents != 80 || counts.Chunks != 360 || vectors != 360 || len(first.VectorErrors) != 0 {
		t.Fatalf("documents=%d chunks=%d vectors=%d errors=%v; want 80, 360, 360, none", counts.Documents, counts.Chunks, vectors, first.VectorErrors)
	}
	r.audit(t)

	t.Run("variant spellings resolve to one entity each", func(t *testing.T) {
		docs, _, _ := corpus.Load(os.DirFS(r.dir))
		reg, err := r.pipe.Resolve(ctx, docs)
		if err != nil {
			t.Fatal(err)
		}
		groups := variantTable(t)
		m := reg.Matcher()
		// A variant resolves to the entity the matcher attributes it to as a whole name, or, as in
		// running text, to the single entity named inside it («онлайн-школы «Фонарик»»).
		predict := func(v string) string {
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
				if got := predict(v); got != "" && got != want {
					t.Errorf("%q resolved to %s, want %s", v, got, want)
				}
			}
		}
	})

	t.Run("client-project-technology path with provenance", func(t *testing.T) {
		paths, err := r.graph.Paths(ctx, graph.PathQuery{From: []string{"clients/alfa-logistic"}, To: []string{"technologies/routekit"},
			MaxHops: 2, Groups: []string{"all"}})
		if err != nil {
			t.Fatal(err)
		}
		var found *ariadne.Path
		for i, p := range paths {
			if p.Hops() == 2 && p.Nodes[1].Key == "projects/alfa-tms" {
				found = &paths[i]
			}
		}
		if found == nil {
			t.Fatalf("no path clients/alfa-logistic – projects/alfa-tms – technologies/routekit among %+v", paths)
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
		params := map[string]any{"from": "Alfa Logistic", "to": "routekit", "key": "clients/alfa-logistic"}
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
		if len(stmts) != 6 {
			t.Fatalf("%d statements in browser-queries.cypher, want 6", len(stmts))
		}
		for i, stmt := range stmts {
			p := params
			if i == 2 {
				p = map[string]any{"from": "projects/alfa-tms", "to": "technologies/routekit"}
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
		if second.Writes() != 0 || second.DocsUnchanged != 80 {
			t.Fatalf("second run: %d writes, %d unchanged; want 0 and 80 (%+v)", second.Writes(), second.DocsUnchanged, second)
		}
		c2, v2 := r.counts(t)
		if c2 != counts || v2 != vectors {
			t.Fatalf("counts changed: %+v/%d → %+v/%d", counts, vectors, c2, v2)
		}
	})

	t.Run("changed document replaces its chunks, vectors and provenance", func(t *testing.T) {
		states, _ := r.graph.DocumentStates(ctx)
		before := states["technologies/routekit"].ChunkIDs
		path := filepath.Join(r.dir, "technologies", "routekit.md")
		raw, _ := os.ReadFile(path)
		edited := string(raw) + "\n## Migration note\n\nThe routekit team moved the repository to the Platform Team in 2025.\n"
		if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := r.sync(t)
		if sum.DocsWritten != 1 {
			t.Fatalf("written %d documents, want 1 (%+v)", sum.DocsWritten, sum)
		}
		states, _ = r.graph.DocumentStates(ctx)
		after := states["technologies/routekit"].ChunkIDs
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
		paths, _ := r.graph.Paths(ctx, graph.PathQuery{From: []string{"technologies/routekit"}, To: []string{"teams/platform"}, MaxHops: 1, Groups: []string{"all"}})
		if len(paths) != 1 || !slices.Contains(paths[0].Edges[0].ChunkIDs, newChunk) {
			t.Errorf("the new sentence's relation routekit→Platform Team is not supported by %s: %+v", newChunk, paths)
		}
		r.audit(t)
	})

	t.Run("removed document leaves no orphans", func(t *testing.T) {
		states, _ := r.graph.DocumentStates(ctx)
		gone := states["policies/gym-compensation"].ChunkIDs
		if err := os.Remove(filepath.Join(r.dir, "policies", "gym-compensation.md")); err != nil {
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
		if c.Documents != 79 || c.Chunks != v {
			t.Errorf("after delete: %+v, %d vectors", c, v)
		}
		r.audit(t)
	})

	t.Run("--delete by id", func(t *testing.T) {
		sum, err := r.pipe.Delete(ctx, []string{"people/pavel-zhukov"}, ingest.Options{})
		if err != nil || sum.DocsDeleted != 1 {
			t.Fatalf("delete: %+v %v", sum, err)
		}
		r.audit(t)
		ents, _ := r.graph.LoadEntities(ctx)
		for _, e := range ents {
			if e.Key == "people/pavel-zhukov" && e.DocID != "" {
				t.Errorf("entity still points at its deleted document: %+v", e)
			}
		}
	})
}

// variantTable parses the entity variant table of ../shared/corpus/README.md into gold groups:
// "doc:<id>" (or the canonical name when no document describes it) → variant spellings.
func variantTable(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(filepath.Dir(sharedKB), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	docRE := regexp.MustCompile("\\(`([^`]+)`\\)")
	groups := map[string][]string{}
	current := ""
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "| Canonical entity") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if current != "" {
				break
			}
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		if c := strings.TrimSpace(cells[1]); c != "" {
			if m := docRE.FindStringSubmatch(c); m != nil {
				current = "doc:" + m[1]
			} else {
				current = c
			}
		}
		v := strings.TrimSpace(cells[2])
		if strings.Contains(v, "(first name only)") {
			continue
		}
		v = strings.Trim(v, "\"")
		groups[current] = append(groups[current], v)
	}
	if len(groups) < 20 {
		t.Fatalf("parsed only %d entities from the variants table", len(groups))
	}
	return groups
}

// TestIntegrationStopBetweenBatches: a stop request (SIGINT in cmd/extract) ends the run after
// the current batch; both stores stay consistent and the next run finishes the rest.
func TestIntegrationStopBetweenBatches(t *testing.T) {
	r := newRig(t)
	docs, _, _ := corpus.Load(os.DirFS(r.dir))
	stop := make(chan struct{})
	sum, err := r.pipe.Sync(context.Background(), docs, ingest.Options{Stop: stop, Progress: func(done, total int) {
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
	c, v := r.counts(t)
	if c.Documents != 32 || c.Chunks != v {
		t.Fatalf("after a stop: %d documents (want the first batch of 32), %d chunks, %d vectors", c.Documents, c.Chunks, v)
	}
	r.audit(t)
	rest := r.sync(t)
	if rest.DocsWritten != 48 || rest.DocsUnchanged != 32 {
		t.Fatalf("resumed run wrote %d, left %d; want 48 and 32", rest.DocsWritten, rest.DocsUnchanged)
	}
	r.audit(t)
}

// BenchmarkIngestCorpusX20 measures ingestion throughput (chunks/s) with the offline embedder
// and extractor on ../shared/corpus/kb replicated 20 times (1 600 documents).
func BenchmarkIngestCorpusX20(b *testing.B) {
	base, problems, err := corpus.Load(os.DirFS(sharedKB))
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
		r := newRig(b)
		b.StartTimer()
		sum, err := r.pipe.Sync(context.Background(), docs, ingest.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sum.Chunks)/sum.Elapsed.Seconds(), "chunks/s")
		b.ReportMetric(float64(sum.Chunks), "chunks")
	}
}
