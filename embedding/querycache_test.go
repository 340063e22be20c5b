package embedding

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
)

// countingEmbedder is the real Lexical embedder that counts its query calls, optionally waits on
// a gate before answering, and fails texts listed in fail.
type countingEmbedder struct {
	*Lexical
	calls atomic.Int64
	texts sync.Map // text → true, what reached the model
	gate  chan struct{}
	fail  map[string]bool
}

func (c *countingEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	c.calls.Add(1)
	c.texts.Store(text, true)
	if c.gate != nil {
		<-c.gate
	}
	if c.fail[text] {
		return nil, ariadne.ErrUnavailable
	}
	return c.Lexical.EmbedQuery(ctx, text)
}

type lookups struct{ hit, miss atomic.Int64 }

func (l *lookups) on(hit bool) {
	if hit {
		l.hit.Add(1)
	} else {
		l.miss.Add(1)
	}
}

func TestNormalizeQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"  Who leads\tthe project?\n", "Who leads the project?"},
		{"Кто\u00a0ведёт  проект", "Кто ведёт проект"},
		{"e\u0301te", "\u00e9te"}, // NFC composes
		{"Case Stays", "Case Stays"},
		{"", ""},
	} {
		if got := NormalizeQuery(tc.in); got != tc.want {
			t.Errorf("NormalizeQuery(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestQueryCacheHitsEvictsAndCopies(t *testing.T) {
	ctx := context.Background()
	inner := &countingEmbedder{Lexical: NewLexical(64)}
	var l lookups
	qc, err := NewQueryCache(inner, QueryCacheConfig{Size: 2, Prefix: "none", OnLookup: l.on})
	if err != nil {
		t.Fatal(err)
	}
	if qc.Name() != "lexical-ngram-v1/64" {
		t.Fatalf("Name = %q", qc.Name())
	}
	a1, _ := qc.EmbedQuery(ctx, "who leads  Tundra?")
	a2, _ := qc.EmbedQuery(ctx, " who leads Tundra? ")
	if !slices.Equal(a1, a2) || inner.calls.Load() != 1 {
		t.Fatalf("same normalised question: calls %d, equal %v", inner.calls.Load(), slices.Equal(a1, a2))
	}
	if _, ok := inner.texts.Load("who leads Tundra?"); !ok {
		t.Fatal("the model was not given the normalised text")
	}
	want := inner.Embed("who leads Tundra?")
	if !slices.Equal(a1, want) {
		t.Fatal("cached vector differs from the model's vector of the normalised text")
	}
	a2[0] = 42 // the caller's copy
	a3, _ := qc.EmbedQuery(ctx, "who leads Tundra?")
	if a3[0] == 42 {
		t.Fatal("a caller's write reached the cache")
	}
	// Size 2: b and c push out a (least recently used), so a is embedded again.
	qc.EmbedQuery(ctx, "b")
	qc.EmbedQuery(ctx, "c")
	qc.EmbedQuery(ctx, "who leads Tundra?")
	if got := inner.calls.Load(); got != 4 {
		t.Fatalf("calls = %d, want 4 (a, b, c, a again)", got)
	}
	if qc.Len() != 2 {
		t.Fatalf("Len = %d, want 2", qc.Len())
	}
	if l.hit.Load() != 2 || l.miss.Load() != 4 {
		t.Fatalf("hits %d misses %d, want 2 and 4", l.hit.Load(), l.miss.Load())
	}
	// Passages pass through, uncached.
	if _, err := qc.EmbedPassages(ctx, []string{"b"}); err != nil || inner.calls.Load() != 4 {
		t.Fatalf("passages: err %v, query calls %d", err, inner.calls.Load())
	}
}

func TestQueryCacheErrorsAreNotCached(t *testing.T) {
	ctx := context.Background()
	inner := &countingEmbedder{Lexical: NewLexical(64), fail: map[string]bool{"down": true}}
	var l lookups
	qc, _ := NewQueryCache(inner, QueryCacheConfig{Size: 8, OnLookup: l.on})
	for range 2 {
		if _, err := qc.EmbedQuery(ctx, "down"); !errors.Is(err, ariadne.ErrUnavailable) {
			t.Fatalf("err = %v, want ErrUnavailable", err)
		}
	}
	if inner.calls.Load() != 2 || qc.Len() != 0 || l.miss.Load() != 2 {
		t.Fatalf("calls %d len %d misses %d, want 2, 0, 2", inner.calls.Load(), qc.Len(), l.miss.Load())
	}
	if _, err := NewQueryCache(inner, QueryCacheConfig{Size: 0}); !errors.Is(err, ariadne.ErrInvalid) {
		t.Fatalf("size 0: err = %v, want ErrInvalid", err)
	}
}

func TestQueryCacheConcurrentMissesMakeOneRequest(t *testing.T) {
	inner := &countingEmbedder{Lexical: NewLexical(64), gate: make(chan struct{})}
	var l lookups
	qc, _ := NewQueryCache(inner, QueryCacheConfig{Size: 8, OnLookup: l.on})
	const n = 20
	var wg sync.WaitGroup
	vecs := make([][]float32, n)
	for i := range n {
		wg.Go(func() {
			v, err := qc.EmbedQuery(context.Background(), "same question")
			if err != nil {
				t.Error(err)
			}
			vecs[i] = v
		})
	}
	// One caller that gives up (after the others have started the request) does not fail them.
	time.Sleep(20 * time.Millisecond)
	cctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() { _, err := qc.EmbedQuery(cctx, "same question"); gaveUp <- err }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: err = %v", err)
	}
	close(inner.gate)
	wg.Wait()
	if inner.calls.Load() != 1 {
		t.Fatalf("calls = %d, want 1", inner.calls.Load())
	}
	for i := range vecs {
		if !slices.Equal(vecs[i], vecs[0]) || len(vecs[i]) != 64 {
			t.Fatalf("caller %d got another vector", i)
		}
	}
	if l.miss.Load() != 1 || l.hit.Load() != n-1 {
		t.Fatalf("hits %d misses %d, want %d and 1", l.hit.Load(), l.miss.Load(), n-1)
	}
}

// TestQueryCacheScopes: an entry made under one cache scope never answers a lookup under
// another: the second caller's first lookup of the same question is a miss that reaches the
// model, and each caller's repeat is a hit of its own.
func TestQueryCacheScopes(t *testing.T) {
	inner := &countingEmbedder{Lexical: NewLexical(64)}
	var l lookups
	qc, _ := NewQueryCache(inner, QueryCacheConfig{Size: 8, OnLookup: l.on})
	alice := WithCacheScope(context.Background(), "key:alice")
	anon := WithCacheScope(context.Background(), "addr:192.0.2.1")
	steps := []struct {
		ctx              context.Context
		calls, hit, miss int64
	}{
		{alice, 1, 0, 1},
		{anon, 2, 0, 2}, // the same question from another caller: a miss
		{alice, 2, 1, 2},
		{anon, 2, 2, 2},
		{context.Background(), 3, 2, 3}, // no scope is a scope of its own
	}
	for i, s := range steps {
		if _, err := qc.EmbedQuery(s.ctx, "Who leads Tundra?"); err != nil {
			t.Fatal(err)
		}
		if inner.calls.Load() != s.calls || l.hit.Load() != s.hit || l.miss.Load() != s.miss {
			t.Fatalf("step %d (scope %q): calls %d hits %d misses %d, want %d %d %d", i, CacheScope(s.ctx),
				inner.calls.Load(), l.hit.Load(), l.miss.Load(), s.calls, s.hit, s.miss)
		}
	}
	if qc.Len() != 3 {
		t.Errorf("Len = %d, want 3 (one entry per scope)", qc.Len())
	}
}
