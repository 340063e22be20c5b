package graph

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
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

// TestIntegrationLongQuestionLinks: a question of 400 distinct words (a long paragraph pasted in)
// still gets its entity candidates; the first version sent a term per word form, past Lucene's
// 1 024 clauses, and the question failed with a 400 (security audit, stop 58).
func TestIntegrationLongQuestionLinks(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "lucene")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteDocuments(ctx, []ariadne.DocumentGraph{sameSentence("notes/a", []string{"all"})}, nil, nil, testLabeler{}, "test"); err != nil {
		t.Fatal(err)
	}
	var words []string
	for i := range 400 {
		words = append(words, fmt.Sprintf("word%dlong", i))
	}
	text := "Where did Sergey Pakhomov move? " + strings.Join(words, " ")
	if n := strings.Count(luceneQuery(text), " OR ") + 1; n != maxLuceneTerms {
		t.Errorf("%d terms, want %d", n, maxLuceneTerms)
	}
	cands, err := s.EntityCandidates(ctx, text, []string{"all"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, c := range cands {
		keys = append(keys, c.Key)
	}
	if !strings.Contains(strings.Join(keys, " "), "person:sergey pakhomov") {
		t.Errorf("candidates %v, want person:sergey pakhomov among them", keys)
	}
}
