package agent

import (
	"context"
	"sync"
	"testing"
)

// countingEmbedder embeds a text as its length and counts the texts it was asked for.
type countingEmbedder struct {
	mu               sync.Mutex
	queries, passage int
}

func (e *countingEmbedder) Name() string { return "counting" }
func (e *countingEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.queries++
	return []float32{float32(len(text))}, nil
}
func (e *countingEmbedder) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.passage += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t))}
	}
	return out, nil
}

// queryCaching reports that it caches queries itself, as embedding.QueryCache does.
type queryCaching struct{ *countingEmbedder }

func (queryCaching) CachesQueries() bool { return true }

func TestCachingEmbedder(t *testing.T) {
	ctx := context.Background()
	inner := &countingEmbedder{}
	c := NewCachingEmbedder(inner, 8, nil)
	for range 3 {
		if v, err := c.EmbedQuery(ctx, "кто?"); err != nil || v[0] != 7 {
			t.Fatalf("query vector %v, %v", v, err)
		}
	}
	// The same text twice in one call and again in a second call is embedded once.
	for range 2 {
		vs, err := c.EmbedPassages(ctx, []string{"a", "bb", "a"})
		if err != nil || len(vs) != 3 || vs[0][0] != 1 || vs[1][0] != 2 || vs[2][0] != 1 {
			t.Fatalf("passage vectors %v, %v", vs, err)
		}
	}
	if inner.queries != 1 || inner.passage != 2 {
		t.Errorf("embedded %d queries, %d passages; want 1 and 2", inner.queries, inner.passage)
	}
	// Over an embedder that caches its queries, queries pass through: one query cache per process.
	inner2 := &countingEmbedder{}
	c2 := NewCachingEmbedder(queryCaching{inner2}, 8, nil)
	for range 3 {
		c2.EmbedQuery(ctx, "кто?")
	}
	if inner2.queries != 3 {
		t.Errorf("over a query cache: %d query calls reached it, want 3 (pass-through)", inner2.queries)
	}
}
