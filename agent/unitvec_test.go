package agent

import (
	"context"
	"sync"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/embedding"
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
		vs, err := c.EmbedPassages(WithPassageReaders(ctx, nil), []string{"a", "bb", "a"})
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

// memUnitIndex is a UnitVectorIndex in memory.
type memUnitIndex struct{ vecs map[string][]float32 }

func (m *memUnitIndex) UnitVectors(_ context.Context, keys []string) (map[string][]float32, error) {
	out := map[string][]float32{}
	for _, k := range keys {
		if v, ok := m.vecs[k]; ok {
			out[k] = v
		}
	}
	return out, nil
}
func (m *memUnitIndex) PutUnitVectors(_ context.Context, vecs map[string][]float32) error {
	for k, v := range vecs {
		m.vecs[k] = v
	}
	return nil
}
func (m *memUnitIndex) UnitVectorKeys(context.Context) ([]string, error) {
	var out []string
	for k := range m.vecs {
		out = append(out, k)
	}
	return out, nil
}
func (m *memUnitIndex) DeleteUnitVectors(_ context.Context, keys []string) (int, error) {
	n := 0
	for _, k := range keys {
		if _, ok := m.vecs[k]; ok {
			delete(m.vecs, k)
			n++
		}
	}
	return n, nil
}

func TestSyncUnitVectors(t *testing.T) {
	ctx := context.Background()
	inner := &countingEmbedder{}
	index := &memUnitIndex{vecs: map[string][]float32{}}
	v1 := []ariadne.Chunk{{Text: "The pier opens at six in the morning. Boats pay a fee at the gate.", ACL: []string{ariadne.PublicGroup}},
		{Text: "| Berth | Length |\n|---|---|\n| North | 120 m |"}}
	got, err := SyncUnitVectors(ctx, inner, index, v1)
	if err != nil {
		t.Fatal(err)
	}
	if want := (UnitVectorSync{Units: 4, Embedded: 4}); got != want || inner.passage != 4 || len(index.vecs) != 4 {
		t.Fatalf("first sync %+v (embedded %d, stored %d), want %+v", got, inner.passage, len(index.vecs), want)
	}
	// One sentence changes: one unit embedded, the old one deleted, the others untouched.
	v2 := []ariadne.Chunk{{Text: "The pier opens at seven in the morning. Boats pay a fee at the gate."}, v1[1]}
	if got, err = SyncUnitVectors(ctx, inner, index, v2); err != nil {
		t.Fatal(err)
	}
	if want := (UnitVectorSync{Units: 4, Embedded: 1, Deleted: 1}); got != want || inner.passage != 5 || len(index.vecs) != 4 {
		t.Fatalf("second sync %+v (embedded %d in all, stored %d), want %+v", got, inner.passage, len(index.vecs), want)
	}
	// The query path finds every unit in the store: nothing more is embedded.
	c := NewCachingEmbedder(inner, 0, index)
	if _, err := c.EmbedPassages(WithPassageReaders(ctx, nil), SplitUnits(v2[0].Text)); err != nil || inner.passage != 5 {
		t.Fatalf("query path embedded %d passages, err %v", inner.passage-5, err)
	}
	// A restricted chunk's unit is stored under its readers' key: a public chunk with the same
	// sentence does not find it (and is embedded), a chunk with the same readers does.
	secret := ariadne.Chunk{Text: "The pier closes for the board visit on 4 July.", ACL: []string{"management"}}
	if got, err = SyncUnitVectors(ctx, inner, index, append(v2, secret)); err != nil || got.Embedded != 1 || inner.passage != 6 {
		t.Fatalf("sync with a restricted chunk %+v, %v (embedded %d in all), want 1 embedded", got, err, inner.passage)
	}
	c = NewCachingEmbedder(inner, 0, index)
	if _, err := c.EmbedPassages(WithPassageReaders(ctx, []string{"management"}), []string{secret.Text}); err != nil || inner.passage != 6 {
		t.Fatalf("its readers embedded %d passages, err %v; want its stored vector", inner.passage-6, err)
	}
	if _, err := c.EmbedPassages(WithPassageReaders(ctx, nil), []string{secret.Text}); err != nil || inner.passage != 7 {
		t.Fatalf("a public chunk's copy embedded %d passages, err %v; want 1 (no vector of a restricted chunk)", inner.passage-6, err)
	}
}

// TestCachingEmbedderReaders: a unit vector is shared only among chunks with the same readers,
// in memory and in the store (security audit, stop 59: an anonymous question over a planted
// public copy of a restricted sentence was answered in 2 ms when a management query had embedded
// it, 110–170 ms otherwise); passages embedded without readers are not cached at all; EmbedUnits
// keeps each text's readers and its order.
func TestCachingEmbedderReaders(t *testing.T) {
	ctx := context.Background()
	inner := &countingEmbedder{}
	index := &memUnitIndex{vecs: map[string][]float32{}}
	c := NewCachingEmbedder(inner, 8, index)
	const s = "Marta briefed Oswin in Geneva."
	mgmt, public := []string{"management"}, []string{ariadne.PublicGroup}
	steps := []struct {
		name  string
		acl   []string
		want  int // passages embedded by this step
		scope bool
	}{
		{"management's query embeds it", mgmt, 1, true},
		{"management again: a hit", []string{"management", "management"}, 0, true},
		{"a public copy: embedded again", public, 1, true},
		{"public again (empty acl is public): a hit", nil, 0, true},
		{"another group: embedded again", []string{"hr"}, 1, true},
		{"no readers given: embedded, uncached", nil, 1, false},
		{"no readers given again: embedded again", nil, 1, false},
	}
	for _, st := range steps {
		before := inner.passage
		sctx := ctx
		if st.scope {
			sctx = WithPassageReaders(ctx, st.acl)
		}
		if _, err := c.EmbedPassages(sctx, []string{s}); err != nil {
			t.Fatal(err)
		}
		if got := inner.passage - before; got != st.want {
			t.Errorf("%s: %d passages embedded, want %d", st.name, got, st.want)
		}
	}
	if len(index.vecs) != 3 {
		t.Errorf("%d vectors stored, want 3 (management, public, hr)", len(index.vecs))
	}
	if UnitVectorKeyFor("e5", public, s) != UnitVectorKey("e5", s) || UnitVectorKeyFor("e5", mgmt, s) == UnitVectorKey("e5", s) ||
		UnitVectorKeyFor("e5", []string{"b", "a"}, s) != UnitVectorKeyFor("e5", []string{"a", "b", "a"}, s) {
		t.Error("UnitVectorKeyFor: public keys are UnitVectorKey's, restricted ones differ, and a set of groups is one key")
	}
	fresh := &countingEmbedder{}
	vecs, err := EmbedUnits(ctx, NewCachingEmbedder(fresh, 8, nil), []string{"a", "bbb", "cc", "a"}, [][]string{mgmt, nil, mgmt, public})
	if err != nil || len(vecs) != 4 || vecs[0][0] != 1 || vecs[1][0] != 3 || vecs[2][0] != 2 || vecs[3][0] != 1 || fresh.passage != 4 {
		t.Errorf("EmbedUnits = %v, %v with %d passages embedded; want [1 3 2 1], 4 (\"a\" once per readers)", vecs, err, fresh.passage)
	}
}

// TestCachingEmbedderScopes: query vectors are cached per cache scope — a question asked under
// one scope is embedded again under another, and a scope's own repeat is a hit.
func TestCachingEmbedderScopes(t *testing.T) {
	inner := &countingEmbedder{}
	c := NewCachingEmbedder(inner, 8, nil)
	alice := embedding.WithCacheScope(context.Background(), "key:alice")
	bob := embedding.WithCacheScope(context.Background(), "key:bob")
	for _, step := range []struct {
		ctx   context.Context
		calls int
	}{{alice, 1}, {alice, 1}, {bob, 2}, {bob, 2}, {context.Background(), 3}} {
		if _, err := c.EmbedQuery(step.ctx, "who leads geolink?"); err != nil {
			t.Fatal(err)
		}
		if inner.queries != step.calls {
			t.Fatalf("scope %q: %d model calls, want %d", embedding.CacheScope(step.ctx), inner.queries, step.calls)
		}
	}
}
