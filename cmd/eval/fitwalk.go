package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/evaluation"
)

// fitWalkCmd fits the multi_hop route's fusion weights (the walk's RRF weight at zero and at full
// confidence, next to hybrid's 1) on a MuSiQue split: the walk runs once per question, and every
// pair of the grid fuses the same two lists, so the grid costs no retrieval. Fit on the fitting
// split (questions 1–50, --limit 50) and measure the held-out split with `eval musique --from 50`;
// never on the golden dev set.
type fitWalkCmd struct {
	common
	Dataset string    `name:"dataset" required:"" help:"MuSiQue JSON (its corpus must already be indexed in --neo4j-namespace and --weaviate-class)."`
	Lows    []float64 `name:"lows" default:"0.25,0.5,1,1.5,2" help:"Walk weights at zero confidence to try."`
	Highs   []float64 `name:"highs" default:"0.5,1,1.5,2,3,5" help:"Walk weights at full confidence to try (pairs with low > high are skipped)."`
}

// fusedScore is one grid point's mean figures over the questions.
type fusedScore struct {
	lo, hi               float64
	r2, r5, r10, mrr, h1 float64
}

func (f fitWalkCmd) run(ctx context.Context, stdout, stderr io.Writer) error {
	_, qs, err := evaluation.LoadMuSiQue(f.Dataset)
	if err != nil {
		return err
	}
	qs = f.limit(qs)
	e, err := f.open(ctx, stderr, nil, false)
	if err != nil {
		return err
	}
	defer e.closeAll()
	type example struct {
		gold  []string
		lists *agent.WalkLists
	}
	var ex []example
	for i, q := range qs {
		if len(q.GoldDocs) == 0 {
			continue
		}
		l, err := e.retriever.WalkLists(ctx, agent.Request{Question: q.Question, Groups: q.UserGroups, TopK: f.K})
		if err != nil {
			return fmt.Errorf("%s: %w", q.ID, err)
		}
		if l == nil { // no entity in the first pass: the route is hybrid alone, whatever the weights
			res, err := e.retriever.Run(ctx, agent.StrategyHybrid, agent.Request{Question: q.Question, Groups: q.UserGroups, TopK: f.K})
			if err != nil {
				return fmt.Errorf("%s: %w", q.ID, err)
			}
			l = &agent.WalkLists{Hybrid: res.Chunks}
		}
		ex = append(ex, example{gold: q.GoldDocs, lists: l})
		fmt.Fprintf(stderr, "fit-walk %d/%d %s: confidence %.2f\n", i+1, len(qs), q.ID, l.Confidence)
	}
	if len(ex) == 0 {
		return fmt.Errorf("fit-walk: no question with gold documents")
	}
	_, _, perDoc := e.retriever.GraphWeights()
	score := func(lo, hi float64, pick func(*agent.WalkLists) []ariadne.ScoredChunk) fusedScore {
		s := fusedScore{lo: lo, hi: hi}
		for _, x := range ex {
			chunks := pick(x.lists)
			if len(chunks) > f.K {
				chunks = chunks[:f.K]
			}
			ranked := evaluation.DocRanking(chunks)
			s.r2 += evaluation.RecallAt(ranked, x.gold, 2)
			s.r5 += evaluation.RecallAt(ranked, x.gold, 5)
			s.r10 += evaluation.RecallAt(ranked, x.gold, 10)
			s.mrr += evaluation.MRRAt(ranked, x.gold, 10)
			s.h1 += evaluation.HitAt(ranked, x.gold, 1)
		}
		n := float64(len(ex))
		s.r2, s.r5, s.r10, s.mrr, s.h1 = s.r2/n, s.r5/n, s.r10/n, s.mrr/n, s.h1/n
		return s
	}
	var grid []fusedScore
	for _, lo := range f.Lows {
		for _, hi := range f.Highs {
			if lo > hi {
				continue
			}
			grid = append(grid, score(lo, hi, func(l *agent.WalkLists) []ariadne.ScoredChunk { return l.Fuse(lo, hi, perDoc) }))
		}
	}
	// Best first: recall@5, then recall@2, then the smaller weights (closer to hybrid).
	sort.SliceStable(grid, func(i, j int) bool {
		a, b := grid[i], grid[j]
		if a.r5 != b.r5 {
			return a.r5 > b.r5
		}
		if a.r2 != b.r2 {
			return a.r2 > b.r2
		}
		return a.lo+a.hi < b.lo+b.hi
	})
	lo, hi, _ := e.retriever.GraphWeights()
	fmt.Fprintf(stdout, "## fit-walk: %s, %d questions (from %d), embedder %s, top %d chunks; current weights %.2g–%.2g\n\n",
		f.Dataset, len(ex), f.From, e.embedder, f.K, lo, hi)
	fmt.Fprintln(stdout, "| fused list | hit@1 | recall@2 | recall@5 | recall@10 | MRR@10 |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|")
	row := func(name string, s fusedScore) {
		fmt.Fprintf(stdout, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f |\n", name, s.h1, s.r2, s.r5, s.r10, s.mrr)
	}
	row("hybrid alone", score(0, 0, func(l *agent.WalkLists) []ariadne.ScoredChunk { return l.Hybrid }))
	row("walk alone", score(0, 0, func(l *agent.WalkLists) []ariadne.ScoredChunk {
		if len(l.Walk) == 0 {
			return l.Hybrid
		}
		return l.Walk
	}))
	cur := slices.IndexFunc(grid, func(s fusedScore) bool { return s.lo == lo && s.hi == hi })
	if cur >= 0 {
		row(fmt.Sprintf("current weights %.2g–%.2g", lo, hi), grid[cur])
	} else {
		row(fmt.Sprintf("current weights %.2g–%.2g", lo, hi), score(lo, hi, func(l *agent.WalkLists) []ariadne.ScoredChunk { return l.Fuse(lo, hi, perDoc) }))
	}
	for _, s := range grid {
		row(fmt.Sprintf("walk weight %.2g–%.2g", s.lo, s.hi), s)
	}
	return nil
}
