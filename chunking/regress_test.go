package chunking

import (
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// countingCounter counts how many bytes go through the token counter.
type countingCounter struct {
	Counter
	bytes int
}

func (c *countingCounter) Count(s string) int {
	c.bytes += len(s)
	return c.Counter.Count(s)
}

// TestSplitLongWordRegressions holds the inputs FuzzSplit found, minimized. A word longer than the
// budget (an inline base64 image, a long URL or hash, a run of one letter) was cut into grapheme
// runs by adding one cluster at a time and recounting the whole run, so the counter saw about
// n²/2 bytes: a 4 KB word took 1–6 s, the fuzz worker was reported hung, and the 8 MiB documents
// POST /v1/documents accepts could take hours. Now the bytes counted grow as n·log n.
func TestSplitLongWordRegressions(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"fuzz 3560ab7d: one 4 KB word of one letter", "u\uFFFD" + strings.Repeat("A", 4000)},
		{"base64-like word", strings.Repeat("aGVsbG8gd29ybGQ", 1100)},
		{"two-letter word", strings.Repeat("ab", 8000)},
		{"long word between sentences", "Intro sentence. " + strings.Repeat("x9", 6000) + " Outro sentence."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cnt := &countingCounter{Counter: cl100k(t)}
			opts := DefaultOptions()
			c, err := New(opts, cnt)
			if err != nil {
				t.Fatal(err)
			}
			doc := ariadne.Document{ID: "d", Body: tc.body}
			chunks := c.Split(doc)
			// n·log2(n) is about 14·n here; the quadratic version counted 170–1100·n.
			if limit := 40 * len(tc.body); cnt.bytes > limit {
				t.Errorf("the counter saw %d bytes for a %d-byte body (limit %d): quadratic splitting is back", cnt.bytes, len(tc.body), limit)
			}
			checkChunks(t, cl100k(t), opts, doc, chunks)
		})
	}
}
