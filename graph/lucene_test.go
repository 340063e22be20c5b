package graph

import (
	"strings"
	"testing"
)

// TestLuceneQueryLeavesOutOverlongWords: a word no name could have is not sent to the fulltext
// index, whose prefix query refuses it (a question of one 1 000-letter word failed with a 400).
func TestLuceneQueryLeavesOutOverlongWords(t *testing.T) {
	if q := luceneQuery(strings.Repeat("Ж", 1000)); q != "" {
		t.Errorf("luceneQuery(1 000 × Ж) = %.80q…, want none", q)
	}
	long := strings.Repeat("Ж", 1000)
	if q := luceneQuery("Где работает " + long + " Орехов?"); strings.Contains(q, "ЖЖЖ") || !strings.Contains(q, "орехов") {
		t.Errorf("luceneQuery keeps the other words only: got %.200q", q)
	}
}
