package agent

import (
	"slices"
	"sort"

	"github.com/ariadne-graphrag/ariadne"
)

// FuseRRF merges ranked lists by reciprocal rank fusion: each chunk scores Σ 1/(k + rank) over the
// lists that contain it (rank from 1), k = 60 (Cormack, Clarke and Büttcher, "Reciprocal Rank
// Fusion outperforms Condorcet and individual rank learning methods", SIGIR 2009). Ties keep the
// order of first appearance. Sources are merged.
func FuseRRF(lists ...[]ariadne.ScoredChunk) []ariadne.ScoredChunk {
	weights := make([]float64, len(lists))
	for i := range weights {
		weights[i] = 1
	}
	return FuseRRFWeighted(lists, weights)
}

// FuseRRFWeighted is FuseRRF with a weight per list: a chunk scores Σ w_i/(k + rank_i).
func FuseRRFWeighted(lists [][]ariadne.ScoredChunk, weights []float64) []ariadne.ScoredChunk {
	type acc struct {
		c     ariadne.ScoredChunk
		score float64
		first int
	}
	byID := map[string]*acc{}
	order := 0
	for li, list := range lists {
		for rank, c := range list {
			a, ok := byID[c.ID]
			if !ok {
				a = &acc{c: c, first: order}
				a.c.Sources = nil
				byID[c.ID] = a
				order++
			}
			a.score += weights[li] / float64(rrfK+rank+1)
			for _, s := range c.Sources {
				if !slices.Contains(a.c.Sources, s) {
					a.c.Sources = append(a.c.Sources, s)
				}
			}
		}
	}
	out := make([]*acc, 0, len(byID))
	for _, a := range byID {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].first < out[j].first
	})
	res := make([]ariadne.ScoredChunk, len(out))
	for i, a := range out {
		res[i] = a.c
		res[i].Score = a.score
	}
	return res
}

// diversify keeps at most perDoc chunks of one document ahead of the others' chunks, so that a
// multi-hop answer sees several documents; the rest follow in their order.
func diversify(chunks []ariadne.ScoredChunk, perDoc int) []ariadne.ScoredChunk {
	count := map[string]int{}
	var head, tail []ariadne.ScoredChunk
	for _, c := range chunks {
		if count[c.DocID] < perDoc {
			head = append(head, c)
		} else {
			tail = append(tail, c)
		}
		count[c.DocID]++
	}
	return append(head, tail...)
}
