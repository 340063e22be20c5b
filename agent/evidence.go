package agent

import (
	"slices"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// weak decides whether a step's evidence is too weak to stop at: too few hits, or (for vector
// search) a top cosine below the embedder's floor while the top hits share few of the question's
// terms.
func (r *Retriever) weak(s Strategy, st Evidence) bool {
	if st.Hits < r.cfg.MinHits {
		return true
	}
	if s == StrategyVector && r.cfg.MinVectorScore > 0 && st.TopScore < r.cfg.MinVectorScore && st.Coverage < r.cfg.MinCoverage {
		return true
	}
	return st.Coverage < r.cfg.MinCoverage/2
}

// coverage is the share of the question's search terms found in the top n chunks' text.
func coverage(question string, chunks []ariadne.ScoredChunk, n int) float64 {
	q := dedupeStrings(textnorm.SearchTerms(question))
	if len(q) == 0 {
		return 1
	}
	have := map[string]bool{}
	for i, c := range chunks {
		if i == n {
			break
		}
		for _, t := range textnorm.SearchTerms(c.ContextText()) {
			have[t] = true
		}
	}
	hit := 0
	for _, t := range q {
		if have[t] {
			hit++
		}
	}
	return float64(hit) / float64(len(q))
}

func dedupeStrings(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}
