package faults

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/vector"
)

// ingestFault is one kill -9 during a cmd/extract run.
type ingestFault struct {
	server string // deploy/local.sh service name
	point  string // ingest fault point "<name>:<batch>" (ingest/fault_on.go)
	names  string // what the job's error must name
}

// The points: before the first batch (everything planned, nothing written), in the middle of
// batch 2 (its vectors written, its graph not; or embedded, nothing written) and between
// batches 1 and 2 (batch 1 committed).
var allIngestFaults = []ingestFault{
	{"neo4j", "before-first-batch:0", "Neo4j"},
	{"neo4j", "after-vectors:2", "Neo4j"},
	{"weaviate", "before-first-batch:0", "Weaviate"},
	{"weaviate", "after-embed:2", "Weaviate"},
	{"embedder", "after-graph:1", "embedder"},
	{"embedder", "before-first-batch:0", "embedder"},
}

// shortIngestFaults run in make test: one per server, each in the middle of or between batches.
var shortIngestFaults = []ingestFault{allIngestFaults[1], allIngestFaults[3], allIngestFaults[4]}

// TestFaultsIngest kills Neo4j, Weaviate and the embedder with SIGKILL at fault points of a
// cmd/extract run (built with -tags faultinject), restarts the server and re-runs the job. Each
// time: the failed run exits 1 naming the server, it reported as written no document the graph
// does not hold (and the graph holds at most the batch in flight beyond them), and after the
// re-run both stores equal a clean run's (graph and Weaviate digests by content hash, vectors by
// cosine) with no orphan, no duplicate entity key and no chunk without its vector or vector
// without its chunk. The corpus is the repository KB in make test
// and the shared KB (when present) in make reliability (ARIADNE_FAULTS_LONG=1).
func TestFaultsIngest(t *testing.T) {
	srv := Need(t, "neo4j", "weaviate", "embedder")
	corpus, faults, batch := testrig.KB, shortIngestFaults, "4"
	if Long() {
		corpus, faults, batch = testrig.SharedOrSkip(t, "corpus/kb"), allIngestFaults, "16"
	}
	bin := buildExtract(t)
	ctx := context.Background()

	clean := newTarget(t, "clean")
	out, errOut, code := clean.extract(t, bin, corpus, batch, "")
	if code != 0 {
		t.Fatalf("clean run exit %d\n%s\n%s", code, out, errOut)
	}
	want := clean.state(t)
	if p := want.Problems(); len(p) > 0 {
		t.Fatalf("clean run: %v", p)
	}
	t.Logf("clean run: %+v, %d vectors", want.Graph.Counts, len(want.Vector.Objects))

	for _, f := range faults {
		t.Run(f.server+"@"+f.point, func(t *testing.T) {
			tg := newTarget(t, "fault")
			start := time.Now()
			cmd, stdout, stderr := tg.start(t, bin, corpus, batch, f.point)
			waitFor(t, stderr, "FAULT_POINT", 10*time.Minute)
			killedAt := time.Since(start)
			if err := srv.Kill(f.server); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			failCode := cmd.ProcessState.ExitCode()
			t.Logf("killed %s at %s (%.1fs into the run); the job exited %d after %.1fs", f.server, f.point,
				killedAt.Seconds(), failCode, time.Since(start).Seconds())
			if failCode != 1 {
				t.Errorf("exit %d (%v), want 1\nstdout:\n%s\nstderr:\n%s", failCode, err, stdout, stderr)
			}
			msg := errorLine(stderr.String())
			if !strings.Contains(msg, f.names) {
				t.Errorf("the error does not name %s: %q", f.names, msg)
			}
			if strings.Contains(stdout.String(), "summary") {
				t.Errorf("a failed run printed a summary:\n%s", stdout)
			}
			if err := srv.Start(ctx, f.server); err != nil {
				t.Fatal(err)
			}
			restarted := time.Since(start)
			// Nothing reported as written that was not: the graph holds every document of the
			// batches the job reported before it failed, and at most one batch more — the one
			// whose graph transaction was committing when the server died (the commit can be
			// durable while its acknowledgement is lost; batch n+1's vectors are written while
			// batch n's graph is, so a kill at a point of batch n+1 can land there).
			reported := lastProgress(stdout.String())
			d, err := tg.graph(t).Digest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			per, _ := strconv.Atoi(batch)
			if d.Counts.Documents < reported || d.Counts.Documents > reported+per {
				t.Errorf("the job reported %d documents written, the graph holds %d (want %d to %d)", reported, d.Counts.Documents,
					reported, reported+per)
			}
			out, errOut, code := tg.extract(t, bin, corpus, batch, "")
			if code != 0 {
				t.Fatalf("re-run exit %d\n%s\n%s", code, out, errOut)
			}
			got := tg.state(t)
			if p := got.Problems(); len(p) > 0 {
				t.Errorf("after the re-run: %v", p)
			}
			if diff := got.Diff(want); len(diff) > 0 {
				t.Errorf("after the re-run the stores differ from the clean run: %v", diff)
			}
			t.Logf("RESULT ingest-fault server=%s point=%s killed_after=%.1fs exit=%d error=%q reported_docs=%d graph_docs_after_fault=%d restarted_after=%.1fs rerun=%s equal=%v problems=%d",
				f.server, f.point, killedAt.Seconds(), failCode, msg, reported, d.Counts.Documents, restarted.Seconds(),
				summaryLine(out), len(got.Diff(want)) == 0, len(got.Problems()))
		})
	}
}

// target is one Neo4j namespace and Weaviate class of a run.
type target struct {
	ns, class string
	g         *graph.Store
	v         *vector.Store
}

func newTarget(t *testing.T, what string) *target {
	tg := &target{ns: testrig.Namespace(), class: fmt.Sprintf("Fault%s%d", what, time.Now().UnixNano())}
	t.Cleanup(func() {
		ctx := context.Background()
		if g := tg.graph(t); g != nil {
			g.DropNamespace(ctx)
			g.Close(ctx)
		}
		if tg.v != nil {
			tg.v.DropClass(ctx)
		}
	})
	return tg
}

func (tg *target) graph(t *testing.T) *graph.Store {
	t.Helper()
	if tg.g == nil {
		g, err := graph.Open(context.Background(), graph.Config{URI: testenv.Neo4jURI(), User: testenv.Neo4jUser(),
			Password: testenv.Neo4jPassword(), Namespace: tg.ns})
		if err != nil {
			t.Fatal(err)
		}
		tg.g = g
	}
	return tg.g
}

func (tg *target) vector(t *testing.T) *vector.Store {
	t.Helper()
	if tg.v == nil {
		v, err := vector.Open(context.Background(), vector.Config{URL: testenv.WeaviateURL(), GRPCAddr: testenv.WeaviateGRPC(), APIKey: testenv.WeaviateAPIKey(), Class: tg.class})
		if err != nil {
			t.Fatal(err)
		}
		tg.v = v
	}
	return tg.v
}

func (tg *target) state(t *testing.T) testrig.State {
	t.Helper()
	s, err := testrig.StateDigest(context.Background(), tg.graph(t), tg.vector(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (tg *target) command(bin, corpus, batch, faultAt string) *exec.Cmd {
	cmd := exec.Command(bin, "--corpus", corpus, "--batch", batch, "--embedder", "e5", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "ARIADNE_NEO4J_URI="+testenv.Neo4jURI(), "ARIADNE_WEAVIATE_URL="+testenv.WeaviateURL(),
		"ARIADNE_WEAVIATE_GRPC="+testenv.WeaviateGRPC(), "ARIADNE_WEAVIATE_API_KEY="+testenv.WeaviateAPIKey(), "ARIADNE_E5_URL="+testenv.EmbedderURL(),
		"ARIADNE_NEO4J_NAMESPACE="+tg.ns, "ARIADNE_WEAVIATE_CLASS="+tg.class, "ARIADNE_FAULT_AT="+faultAt,
		"ARIADNE_LLM_PROVIDER=none", "ARIADNE_LOCAL_LLM=none", "ARIADNE_EXTRACTOR=dictionary")
	return cmd
}

// syncBuffer is a bytes.Buffer safe to read while the process writes it.
type syncBuffer struct {
	mu chan struct{}
	b  bytes.Buffer
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{mu: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.b.String()
}

func (tg *target) start(t *testing.T, bin, corpus, batch, faultAt string) (*exec.Cmd, *syncBuffer, *syncBuffer) {
	t.Helper()
	cmd := tg.command(bin, corpus, batch, faultAt)
	stdout, stderr := newSyncBuffer(), newSyncBuffer()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, stdout, stderr
}

func (tg *target) extract(t *testing.T, bin, corpus, batch, faultAt string) (string, string, int) {
	t.Helper()
	cmd, stdout, stderr := tg.start(t, bin, corpus, batch, faultAt)
	cmd.Wait()
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

func waitFor(t *testing.T, b *syncBuffer, marker string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if strings.Contains(b.String(), marker) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s within %s; stderr:\n%s", marker, within, b.String())
}

var progressRE = regexp.MustCompile(`(?m)^progress: (\d+)/\d+ documents written$`)

func lastProgress(out string) int {
	m := progressRE.FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

// errorLine is the job's error: the line main prints as "extract: …" (errors.Join continues it
// on further lines).
func errorLine(s string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "extract: ") {
			return l
		}
	}
	return ""
}

func summaryLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "documents") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// buildExtract builds cmd/extract with the faultinject tag into a temporary folder.
func buildExtract(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "extract")
	cmd := exec.Command("go", "build", "-tags", "faultinject", "-o", bin, "./cmd/extract")
	cmd.Dir = RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags faultinject ./cmd/extract: %v\n%s", err, out)
	}
	return bin
}
