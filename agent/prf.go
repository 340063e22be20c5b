package agent

import (
	"context"
	"math"

	"github.com/ariadne-graphrag/ariadne"
)

// Second hop by vector pseudo-relevance feedback (Rocchio's relevance feedback, "Relevance
// feedback in information retrieval", 1971, applied to dense retrieval as in Li et al.,
// "Pseudo Relevance Feedback with Deep Language Models and Dense Retrievers: Successes and
// Pitfalls", TOIS 2023): the question's embedding moved toward the stored embeddings of the first
// pass's top chunks finds the passages that are near the first hop's text rather than near the
// question's words — the bridge passage of a multi-hop question names the entity the question
// does not.

// feedbackQuery returns normalize(q/|q| + beta·mean(v/|v| for v in top)); q unchanged (a copy)
// when top is empty. Vectors of another length than q are skipped.
func feedbackQuery(q []float32, top [][]float32, beta float64) []float32 {
	out := make([]float64, len(q))
	add := func(v []float32, w float64) {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if n == 0 {
			return
		}
		w /= math.Sqrt(n)
		for i, x := range v {
			out[i] += w * float64(x)
		}
	}
	add(q, 1)
	var usable [][]float32
	for _, v := range top {
		if len(v) == len(q) {
			usable = append(usable, v)
		}
	}
	for _, v := range usable {
		add(v, beta/float64(len(usable)))
	}
	var n float64
	for _, x := range out {
		n += x * x
	}
	res := make([]float32, len(q))
	if n == 0 {
		return res
	}
	n = math.Sqrt(n)
	for i, x := range out {
		res[i] = float32(x / n)
	}
	return res
}

// SecondHop reads the stored embeddings of the top depth chunks of first (a search the caller
// ran), moves vec toward them by beta (feedbackQuery) and returns the vector search with the moved
// query: Candidates chunks, best first. Both searches take the caller's groups, so the feedback
// comes only from chunks the caller may read. With no first-pass chunk it returns nil.
func (r *Retriever) SecondHop(ctx context.Context, req Request, vec []float32, first []ariadne.ScoredChunk, depth int, beta float64, tr *Trace) ([]ariadne.ScoredChunk, error) {
	if tr == nil {
		tr = newTrace()
	}
	var ids []string
	for _, c := range first[:min(depth, len(first))] {
		ids = append(ids, c.ID)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	got, err := r.search(ctx, ariadne.SearchVector, ariadne.SearchQuery{Vector: vec, Groups: req.Groups, Limit: len(ids), ChunkIDs: ids,
		ScoresOnly: true, WithVectors: true}, tr)
	if err != nil {
		return nil, err
	}
	var top [][]float32
	for _, c := range got {
		top = append(top, c.Vector)
	}
	if len(top) == 0 {
		return nil, nil
	}
	out, err := r.search(ctx, ariadne.SearchVector, ariadne.SearchQuery{Vector: feedbackQuery(vec, top, beta), Groups: req.Groups, Limit: r.cfg.Candidates}, tr)
	for i := range out {
		out[i].Sources = []string{"second_hop"}
	}
	return out, err
}
