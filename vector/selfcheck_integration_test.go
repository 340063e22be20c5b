package vector

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
)

// TestIntegrationSelfCheck: a healthy index finds every sampled chunk by its own vector; an
// absent class is a zero check. (The damaged case — HNSW entries lost after kill -9 — is what
// internal/faults TestFaultsQuery reports with it.)
func TestIntegrationSelfCheck(t *testing.T) {
	class := fmt.Sprintf("AriadneSelfCheck%d", time.Now().UnixNano())
	s := openTestStore(t, class)
	ctx := context.Background()
	if c, err := s.SelfCheck(ctx, 4); err != nil || c.Sampled != 0 || !c.OK() {
		t.Fatalf("absent class: %+v %v", c, err)
	}
	emb := ariadne.Embedding{Name: "test/4", Dim: 4}
	if err := s.EnsureClass(ctx, emb); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.DropClass(context.Background()) })
	var chunks []ariadne.IndexedChunk
	for i, v := range [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {1, 1, 0, 0}, {0, 1, 1, 0}} {
		c := ariadne.Chunk{ID: fmt.Sprintf("d%d#0000-%08d", i, i), DocID: fmt.Sprintf("d%d", i), Title: "T", Text: fmt.Sprintf("text %d", i), ACL: []string{"all"}}
		chunks = append(chunks, ariadne.IndexedChunk{Chunk: c, Vector: v, SearchText: c.Text, ContentKey: c.ContentKey(emb.Name)})
	}
	if res, err := s.Upsert(ctx, chunks); err != nil || res.Written != len(chunks) {
		t.Fatalf("upsert: %+v %v", res, err)
	}
	c, err := s.SelfCheck(ctx, 4)
	if err != nil || c.Sampled != 4 || !c.OK() {
		t.Fatalf("healthy index: %+v %v", c, err)
	}
	if d := c.Describe(class); d != "the sampled chunks are found by their own vectors" {
		t.Errorf("describe: %q", d)
	}
	// The check run before a sync or an evaluation: nothing lost, nothing written again.
	if rep, err := s.CheckIndex(ctx, true, false, slog.New(slog.DiscardHandler)); err != nil || rep.Scanned != len(chunks) || len(rep.Lost) != 0 {
		t.Fatalf("full check of a healthy index: %+v %v", rep, err)
	}
	if rep, err := s.CheckIndex(ctx, false, false, slog.New(slog.DiscardHandler)); err != nil || rep.Scanned != 0 {
		t.Fatalf("sampled check of a healthy index: %+v %v (a passed sample starts no repair)", rep, err)
	}
	broken := IndexCheck{Sampled: 4, Lost: []string{"d1#0000-00000001"}}
	if d := broken.Describe(class); d == "" || broken.OK() {
		t.Errorf("a lost entry: %q ok=%v", d, broken.OK())
	}
}
