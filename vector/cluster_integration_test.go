package vector

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
)

// clusterScript is the script that runs the three-node Weaviate on loopback.
const clusterScript = "../deploy/weaviate-cluster.sh"

// clusterNodes starts the three-node cluster of deploy/weaviate-cluster.sh unless it is up (and
// stops it at the end if it started it), and returns each node's REST URL and gRPC address. It
// skips the test when the cluster cannot start, or fails it under ARIADNE_REQUIRE_INTEGRATION=1.
func clusterNodes(t *testing.T) (urls, grpcs []string) {
	t.Helper()
	if err := exec.Command(clusterScript, "status").Run(); err != nil {
		out, err := exec.Command(clusterScript, "up").CombinedOutput()
		if err != nil {
			if testenv.Required() {
				t.Fatalf("%s up (ARIADNE_REQUIRE_INTEGRATION=1): %v\n%s", clusterScript, err, out)
			}
			t.Skipf("the three-node Weaviate cannot start (%v); run %s up to include this test\n%s", err, clusterScript, out)
		}
		t.Cleanup(func() {
			if out, err := exec.Command(clusterScript, "down").CombinedOutput(); err != nil {
				t.Errorf("%s down: %v\n%s", clusterScript, err, out)
			}
		})
	}
	out, err := exec.Command(clusterScript, "env").Output()
	if err != nil {
		t.Fatalf("%s env: %v", clusterScript, err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		switch k {
		case "ARIADNE_WEAVIATE_CLUSTER_URLS":
			urls = strings.Split(v, ",")
		case "ARIADNE_WEAVIATE_CLUSTER_GRPCS":
			grpcs = strings.Split(v, ",")
		}
	}
	if len(urls) != 3 || len(grpcs) != 3 {
		t.Fatalf("%s env gave %q", clusterScript, out)
	}
	return urls, grpcs
}

func clusterScriptRun(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command(clusterScript, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", clusterScript, strings.Join(args, " "), err, out)
	}
}

// clusterChunk is chunk i of the test: one word of its own for BM25 ("topic<i>") and a vector
// of its own direction.
func clusterChunk(i int) ariadne.IndexedChunk {
	vec := make([]float32, 8)
	vec[i%8] = 1
	vec[(i/8)%8] += 0.5
	id := fmt.Sprintf("cluster/doc%02d#0000-%08x", i, i)
	return ariadne.IndexedChunk{
		Chunk: ariadne.Chunk{ID: id, DocID: fmt.Sprintf("cluster/doc%02d", i), DocVersion: 1, Position: 0,
			Title: fmt.Sprintf("Doc %d", i), Text: fmt.Sprintf("chunk number %d of the cluster test", i), Lang: "en",
			ACL: []string{ariadne.PublicGroup}, Updated: "2026-01-01"},
		Vector: vec, SearchText: fmt.Sprintf("topic%d cluster chunk", i),
	}
}

func clusterIDs(from, to int, drop ...int) []string {
	var ids []string
	for i := from; i < to; i++ {
		if !slices.Contains(drop, i) {
			ids = append(ids, clusterChunk(i).ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// TestIntegrationWeaviateCluster runs the chunk store on a three-node Weaviate cluster
// (deploy/weaviate-cluster.sh) with replication factor 3, 2 shards and consistency level QUORUM
// for reads and writes: every node holds a replica of both shards; with one node stopped, writes, deletes and
// vector, BM25 and hybrid searches keep answering through either remaining node, while the same
// write at consistency ALL fails (so the node is really down and the level is really sent); after
// the node comes back, async replication brings its replica up to date (writes and deletes it
// missed) within a bounded time.
func TestIntegrationWeaviateCluster(t *testing.T) {
	urls, grpcs := clusterNodes(t)
	ctx := context.Background()
	class := fmt.Sprintf("AriadneCluster%d", time.Now().UnixNano())
	quorum := Placement{ReplicationFactor: 3, Shards: 2, Consistency: "QUORUM"}
	open := func(node int, p Placement) *Store {
		t.Helper()
		s, err := Open(ctx, Config{URL: urls[node], GRPCAddr: grpcs[node], APIKey: testenv.WeaviateAPIKey(), Class: class, Placement: p})
		if err != nil {
			t.Fatalf("open node%d: %v", node+1, err)
		}
		return s
	}
	s1 := open(0, quorum)
	emb := ariadne.Embedding{Name: "cluster-test", Dim: 8}
	if err := s1.EnsureClass(ctx, emb); err != nil {
		t.Fatalf("EnsureClass: %v", err)
	}
	t.Cleanup(func() {
		if err := s1.DropClass(context.Background()); err != nil {
			t.Errorf("DropClass: %v", err)
		}
	})

	// The class as Weaviate holds it: factor 3 and 2 shards, so each node holds a replica of both.
	cls, err := s1.client.Schema().ClassGetter().WithClassName(class).Do(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rc := cls.ReplicationConfig; rc == nil || rc.Factor != 3 || !rc.AsyncEnabled || rc.DeletionStrategy != "DeleteOnConflict" {
		t.Fatalf("replicationConfig = %+v, want factor 3, async replication, DeleteOnConflict", cls.ReplicationConfig)
	}
	nodes, err := s1.client.Cluster().NodesStatusGetter().WithClass(class).WithOutput("verbose").Do(ctx)
	if err != nil {
		t.Fatal(err)
	}
	shardsOn := map[string]int{}
	for _, n := range nodes.Nodes {
		for _, sh := range n.Shards {
			if sh.Class == class {
				shardsOn[n.Name]++
			}
		}
	}
	if len(shardsOn) != 3 || shardsOn[nodes.Nodes[0].Name] != 2 || shardsOn[nodes.Nodes[1].Name] != 2 || shardsOn[nodes.Nodes[2].Name] != 2 {
		t.Fatalf("shards of %s per node = %v, want 2 on each of 3 nodes", class, shardsOn)
	}
	// An existing class with another factor is refused rather than silently used.
	if err := open(1, Placement{ReplicationFactor: 2}).EnsureClass(ctx, emb); err == nil {
		t.Error("EnsureClass with factor 2 on a factor-3 class: no error")
	}

	write := func(s *Store, from, to int) (ariadne.UpsertResult, error) {
		var chunks []ariadne.IndexedChunk
		for i := from; i < to; i++ {
			chunks = append(chunks, clusterChunk(i))
		}
		return s.Upsert(ctx, chunks)
	}
	if res, err := write(s1, 0, 20); err != nil || res.Written != 20 || len(res.Failed) != 0 {
		t.Fatalf("upsert with three nodes: %+v, %v", res, err)
	}

	// Opened (Ping: ready) before node 3 stops: when node 3 leads Raft, the others answer 503 on
	// /.well-known/ready for a few seconds while leadership moves; reads and writes go on.
	s2 := open(1, quorum)
	sAll := open(0, Placement{Consistency: "ALL"})
	clusterScriptRun(t, "stop-node", "3")
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			clusterScriptRun(t, "start-node", "3")
		}
	})

	// Node 3 down: QUORUM (2 of 3) writes and deletes succeed through node 1 ...
	if res, err := write(s1, 20, 30); err != nil || res.Written != 10 || len(res.Failed) != 0 {
		t.Fatalf("upsert with node 3 down at QUORUM: %+v, %v", res, err)
	}
	if n, err := s1.DeleteChunks(ctx, []string{clusterChunk(3).ID, clusterChunk(25).ID}); err != nil || n != 2 {
		t.Fatalf("delete with node 3 down at QUORUM: %d, %v", n, err)
	}
	// ... while ALL (3 of 3) cannot be met.
	if res, err := write(sAll, 30, 31); err == nil && len(res.Failed) == 0 {
		t.Fatalf("upsert with node 3 down at ALL succeeded (%+v): is the node down, is the level sent?", res)
	}

	want := clusterIDs(0, 30, 3, 25)
	for name, s := range map[string]*Store{"node1": s1, "node2": s2} {
		ids, err := s.ChunkIDs(ctx)
		if err != nil || !slices.Equal(ids, want) {
			t.Errorf("%s ChunkIDs with node 3 down = %d ids (%v), want %d", name, len(ids), err, len(want))
		}
		searches(t, ctx, name+" with node 3 down", s)
	}

	clusterScriptRun(t, "start-node", "3")
	restarted = true
	s3 := open(2, quorum)
	// Node 3 missed chunks 20..29 and the two deletes. Searches read one replica per shard, so
	// through node 3 they first see its stale replica; async replication (on for factor > 1)
	// copies the missed writes and deletes to it in the background. Wait for that, bounded.
	start := time.Now()
	var got []string
	for {
		hits, err := s3.Search(ctx, ariadne.SearchBM25, ariadne.SearchQuery{Text: "cluster", Terms: []string{"cluster"},
			Groups: []string{ariadne.PublicGroup}, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		got = got[:0]
		for _, h := range hits {
			got = append(got, h.Chunk.ID)
		}
		slices.Sort(got)
		if slices.Equal(got, want) || time.Since(start) > 3*time.Minute {
			break
		}
		time.Sleep(time.Second)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("BM25 through node 3, %s after its restart: %d chunks, want %d (missing or resurrected: %v)",
			time.Since(start).Round(time.Second), len(got), len(want), symmetricDiff(got, want))
	}
	t.Logf("node 3's replica caught up %s after its restart (async replication)", time.Since(start).Round(time.Second))
	searches(t, ctx, "node3 after catching up", s3)
}

// searches checks that vector, BM25 and hybrid search through s rank the expected chunk first:
// chunk 22 (written while node 3 was down) and chunk 7 (before), and never a deleted chunk.
func searches(t *testing.T, ctx context.Context, name string, s *Store) {
	t.Helper()
	for _, i := range []int{7, 22} {
		c := clusterChunk(i)
		term := fmt.Sprintf("topic%d", i)
		for _, tc := range []struct {
			mode ariadne.SearchMode
			q    ariadne.SearchQuery
		}{
			{ariadne.SearchVector, ariadne.SearchQuery{Vector: c.Vector}},
			{ariadne.SearchBM25, ariadne.SearchQuery{Text: term, Terms: []string{term}}},
			{ariadne.SearchHybrid, ariadne.SearchQuery{Text: term, Terms: []string{term}, Vector: c.Vector, Alpha: 0.5, Fusion: ariadne.FusionRelativeScore}},
		} {
			tc.q.Groups = []string{ariadne.PublicGroup}
			tc.q.Limit = 5
			hits, err := s.Search(ctx, tc.mode, tc.q)
			if err != nil {
				t.Errorf("%s: %s search for chunk %d: %v", name, tc.mode, i, err)
				continue
			}
			if len(hits) == 0 || hits[0].Chunk.ID != c.ID {
				t.Errorf("%s: %s search for chunk %d: first of %d hits is %v", name, tc.mode, i, len(hits), first(hits))
			}
			for _, h := range hits {
				if h.Chunk.ID == clusterChunk(3).ID || h.Chunk.ID == clusterChunk(25).ID {
					t.Errorf("%s: %s search returned deleted chunk %s", name, tc.mode, h.Chunk.ID)
				}
			}
		}
	}
}

func first(hits []ariadne.ScoredChunk) string {
	if len(hits) == 0 {
		return "none"
	}
	return hits[0].Chunk.ID
}

func symmetricDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, "+"+x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			out = append(out, "-"+x)
		}
	}
	return out
}
