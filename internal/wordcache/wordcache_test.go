package wordcache

import (
	"strings"
	"sync"
	"testing"
)

func TestCache(t *testing.T) {
	c := New[string](2)
	calls := 0
	upper := func(w string) string { calls++; return strings.ToUpper(w) }
	for _, w := range []string{"a", "b", "a", "c", "c", "b", "x1", "x1"} {
		if got := c.Get(w, upper); got != strings.ToUpper(w) {
			t.Fatalf("Get(%q) = %q", w, got)
		}
	}
	// a and b are kept (the first two words), c is computed each time, and so is x1 (a digit):
	// 2 + 2 + 2 calls.
	if calls != 6 {
		t.Errorf("f called %d times, want 6", calls)
	}
}

func TestCacheConcurrent(t *testing.T) {
	c := New[int](100)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 1000 {
				w := strings.Repeat("x", (i+j)%50+1)
				if got := c.Get(w, func(s string) int { return len(s) }); got != len(w) {
					t.Errorf("Get(%d x) = %d", len(w), got)
				}
			}
		}()
	}
	wg.Wait()
	if n := c.n.Load(); n != 50 {
		t.Errorf("%d words kept, want 50", n)
	}
}
