package agent

import (
	"slices"

	"github.com/ariadne-graphrag/ariadne"
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

// coverage is the share of the question's search terms the top n chunks state (in text, title
// or section; in either language when q has translations).
func coverage(q questionTerms, chunks []ariadne.ScoredChunk, n int) float64 {
	if len(q.terms) == 0 {
		return 1
	}
	have := map[string]bool{}
	for i, c := range chunks {
		if i == n {
			break
		}
		for t := range q.stated(c.ContextText()) {
			have[t] = true
		}
	}
	return float64(len(have)) / float64(len(q.terms))
}

func dedupeStrings(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}
