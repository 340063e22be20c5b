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
// pair of the grid fuses the same two lists, so the grid costs no retrieval. It also measures the
// second hop by query feedback (agent.Retriever.SecondHop) at each depth and weight, alone and
// fused. Fit on the fitting split (questions 1–50, --limit 50) and measure the held-out split
// with --from 50; never on the golden dev set. --kind xquad fits on XQuAD-ru's single-hop
// questions instead: the route receives those too whenever a router takes a question for
// multi-hop, and its fused list must not lose what hybrid finds for them.
type fitWalkCmd struct {
	common
	Dataset string    `name:"dataset" required:"" help:"MuSiQue or XQuAD JSON (its corpus must already be indexed in --neo4j-namespace and --weaviate-class)."`
	Kind    string    `name:"kind" default:"musique" enum:"musique,xquad,golden" help:"What --dataset is (golden: a question set in the golden format over an indexed corpus of our own)."`
	Lows    []float64 `name:"lows" default:"0.25,0.5,1,1.5,2" help:"Walk weights at zero confidence to try."`
	Highs   []float64 `name:"highs" default:"0.5,1,1.5,2,3,5" help:"Walk weights at full confidence to try (pairs with low > high are skipped)."`
	Depths  []int     `name:"second-hop-depths" default:"1,2,3" help:"Second hop: first-pass chunks whose embeddings move the question's (agent.Retriever.SecondHop)."`
	Betas   []float64 `name:"second-hop-betas" default:"0.5,1" help:"Second hop: weight of their mean embedding next to the question's 1."`
	Bridges []int     `name:"bridges" default:"1,2,3" help:"Bridge hop: entities of the first pass's top chunks searched together with the question (agent.Retriever.BridgeHop), each count scored fused by RRF and inserted as the route does; 0 skips it."`
	BDepth  int       `name:"bridge-depth" default:"3" help:"Bridge hop: first-pass chunks whose entities are candidates."`
}

// fusedScore is one list's mean figures over the questions.
type fusedScore struct {
	name                 string
	lo, hi               float64
	r2, r5, r10, mrr, h1 float64
}

// fitWalkRow is a fusedScore as `fit-walk --json` writes it and `fit-walk-mix` reads it: one
// list's mean figures over N questions; Low and High are the walk's weights for the grid's rows
// (both 0 on the other rows).
type fitWalkRow struct {
	Name     string  `json:"name"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	Hit1     float64 `json:"hit1"`
	Recall2  float64 `json:"recall2"`
	Recall5  float64 `json:"recall5"`
	Recall10 float64 `json:"recall10"`
	MRR10    float64 `json:"mrr10"`
	N        int     `json:"n"`
}

// fitWalkReport is what `fit-walk --json` writes.
type fitWalkReport struct {
	Dataset string       `json:"dataset"`
	Kind    string       `json:"kind"`
	From    int          `json:"from"`
	Limit   int          `json:"limit"`
	Rows    []fitWalkRow `json:"rows"`
}

// walkExample is one question: its gold documents, the walk's lists and the second hop's lists.
type walkExample struct {
	gold  []string
	lists *agent.WalkLists
	hops  map[[2]float64][]ariadne.ScoredChunk // (depth, beta) → the second hop's list
	// bridges: the bridge hop's lists, one per bridge entity, best bridge first (at most the
	// largest of Bridges).
	bridges [][]ariadne.ScoredChunk
}

func (f fitWalkCmd) run(ctx context.Context, stdout, stderr io.Writer) error {
	var qs []evaluation.Question
	var err error
	switch f.Kind {
	case "xquad":
		_, qs, err = evaluation.LoadXQuAD(f.Dataset, "ru")
	case "golden":
		qs, err = evaluation.LoadGolden(f.Dataset)
	default:
		_, qs, err = evaluation.LoadMuSiQue(f.Dataset)
	}
	if err != nil {
		return err
	}
	qs = f.limit(qs)
	e, err := f.open(ctx, stderr, nil, false)
	if err != nil {
		return err
	}
	defer e.closeAll()
	var ex []walkExample
	for i, q := range qs {
		if len(q.GoldDocs) == 0 || q.Type == "acl" { // as RunRetrieval scores them
			continue
		}
		req := agent.Request{Question: q.Question, Groups: q.UserGroups, TopK: f.K}
		l, err := e.retriever.WalkLists(ctx, req)
		if err != nil {
			return fmt.Errorf("%s: %w", q.ID, err)
		}
		if l == nil { // no entity in the first pass: the route is hybrid alone, whatever the weights
			res, err := e.retriever.Run(ctx, agent.StrategyHybrid, req)
			if err != nil {
				return fmt.Errorf("%s: %w", q.ID, err)
			}
			l = &agent.WalkLists{Hybrid: res.Chunks}
			if l.Query, err = e.cached.EmbedQuery(ctx, q.Question); err != nil {
				return fmt.Errorf("%s: %w", q.ID, err)
			}
		}
		x := walkExample{gold: q.GoldDocs, lists: l, hops: map[[2]float64][]ariadne.ScoredChunk{}}
		for _, d := range f.Depths {
			for _, b := range f.Betas {
				if x.hops[[2]float64{float64(d), b}], err = e.retriever.SecondHop(ctx, req, l.Query, l.Hybrid, d, b, nil); err != nil {
					return fmt.Errorf("%s second hop: %w", q.ID, err)
				}
			}
		}
		if mb := slices.Max(append([]int{0}, f.Bridges...)); mb > 0 {
			var names [][2]string
			if x.bridges, names, err = e.retriever.BridgeHop(ctx, req, l.Hybrid, f.BDepth, mb, nil); err != nil {
				return fmt.Errorf("%s bridge hop: %w", q.ID, err)
			}
			fmt.Fprintf(stderr, "fit-walk %s bridges %v\n", q.ID, names)
		}
		ex = append(ex, x)
		fmt.Fprintf(stderr, "fit-walk %d/%d %s: confidence %.2f\n", i+1, len(qs), q.ID, l.Confidence)
	}
	if len(ex) == 0 {
		return fmt.Errorf("fit-walk: no question with gold documents")
	}
	lo, hi, perDoc := e.retriever.GraphWeights()
	// docsAtK is the document ranking of a list's first K chunks, what every row scores.
	docsAtK := func(chunks []ariadne.ScoredChunk) []string {
		return evaluation.DocRanking(chunks[:min(f.K, len(chunks))])
	}
	score := func(name string, pick func(x walkExample) []ariadne.ScoredChunk) fusedScore {
		s := fusedScore{name: name}
		for _, x := range ex {
			ranked := docsAtK(pick(x))
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
	for _, a := range f.Lows {
		for _, b := range f.Highs {
			if a > b {
				continue
			}
			s := score(fmt.Sprintf("walk weight %.2g–%.2g", a, b), func(x walkExample) []ariadne.ScoredChunk { return x.lists.Fuse(a, b, perDoc) })
			s.lo, s.hi = a, b
			grid = append(grid, s)
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
	fmt.Fprintf(stdout, "## fit-walk: %s, %d questions (from %d), embedder %s, top %d chunks; current weights %.2g–%.2g\n\n",
		f.Dataset, len(ex), f.From, e.embedder, f.K, lo, hi)
	fmt.Fprintln(stdout, "| list | hit@1 | recall@2 | recall@5 | recall@10 | MRR@10 |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|")
	rep := fitWalkReport{Dataset: f.Dataset, Kind: f.Kind, From: f.From, Limit: f.Limit}
	row := func(s fusedScore) {
		fmt.Fprintf(stdout, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f |\n", s.name, s.h1, s.r2, s.r5, s.r10, s.mrr)
		rep.Rows = append(rep.Rows, fitWalkRow{Name: s.name, Low: s.lo, High: s.hi, Hit1: s.h1, Recall2: s.r2, Recall5: s.r5,
			Recall10: s.r10, MRR10: s.mrr, N: len(ex)})
	}
	row(score("hybrid alone", func(x walkExample) []ariadne.ScoredChunk { return x.lists.Hybrid }))
	row(score("walk alone", func(x walkExample) []ariadne.ScoredChunk {
		if len(x.lists.Walk) == 0 {
			return x.lists.Hybrid
		}
		return x.lists.Walk
	}))
	cur := score(fmt.Sprintf("current weights %.2g–%.2g", lo, hi), func(x walkExample) []ariadne.ScoredChunk { return x.lists.Fuse(lo, hi, perDoc) })
	cur.lo, cur.hi = lo, hi
	row(cur)
	for _, d := range f.Depths {
		for _, b := range f.Betas {
			k := [2]float64{float64(d), b}
			row(score(fmt.Sprintf("second hop alone, depth %d, beta %.2g", d, b), func(x walkExample) []ariadne.ScoredChunk { return x.hops[k] }))
			row(score(fmt.Sprintf("RRF(hybrid, second hop), depth %d, beta %.2g", d, b), func(x walkExample) []ariadne.ScoredChunk {
				return agent.FuseRRFWeighted([][]ariadne.ScoredChunk{x.lists.Hybrid, x.hops[k]}, []float64{1, 1})
			}))
			row(score(fmt.Sprintf("RRF(current fused list, second hop), depth %d, beta %.2g", d, b), func(x walkExample) []ariadne.ScoredChunk {
				return agent.FuseRRFWeighted([][]ariadne.ScoredChunk{x.lists.Fuse(lo, hi, perDoc), x.hops[k]}, []float64{1, 1})
			}))
		}
	}
	// The bridge hop: its first n lists fused with hybrid's (weight 1 each, bridges at w each),
	// or with the current fused list.
	for _, n := range f.Bridges {
		if n <= 0 {
			continue
		}
		for _, w := range []float64{0.5, 1} {
			with := func(base func(x walkExample) []ariadne.ScoredChunk) func(x walkExample) []ariadne.ScoredChunk {
				return func(x walkExample) []ariadne.ScoredChunk {
					lists, weights := [][]ariadne.ScoredChunk{base(x)}, []float64{1}
					for _, b := range x.bridges[:min(n, len(x.bridges))] {
						lists, weights = append(lists, b), append(weights, w)
					}
					return agent.FuseRRFWeighted(lists, weights)
				}
			}
			row(score(fmt.Sprintf("RRF(hybrid, %d bridge hops at %.2g)", n, w), with(func(x walkExample) []ariadne.ScoredChunk { return x.lists.Hybrid })))
			row(score(fmt.Sprintf("RRF(current fused list, %d bridge hops at %.2g)", n, w), with(func(x walkExample) []ariadne.ScoredChunk { return x.lists.Fuse(lo, hi, perDoc) })))
		}
	}
	// The route's own join: the first n bridge lists' new documents after the fused list's first
	// chunk (agent.Retriever.InsertBridge; the multi_hop route's default is one bridge).
	for _, n := range f.Bridges {
		if n > 0 {
			row(score(fmt.Sprintf("route: current fused list, %d bridge hops inserted", n), func(x walkExample) []ariadne.ScoredChunk {
				return e.retriever.InsertBridge(x.lists.Fuse(lo, hi, perDoc), x.bridges[:min(n, len(x.bridges))])
			}))
		}
	}
	// Oracles: the best single bridge of each question's candidates (by recall@5 of the current
	// fused list with it, fused by RRF or inserted as the route does), the ceiling of any rule or
	// model that picks one bridge.
	if mb := slices.Max(append([]int{0}, f.Bridges...)); mb > 0 {
		oracle := func(join func(base, b []ariadne.ScoredChunk) []ariadne.ScoredChunk) func(x walkExample) []ariadne.ScoredChunk {
			return func(x walkExample) []ariadne.ScoredChunk {
				base := x.lists.Fuse(lo, hi, perDoc)
				best, bestR := base, -1.0
				for _, b := range x.bridges {
					l := join(base, b)
					if r := evaluation.RecallAt(docsAtK(l), x.gold, 5); r > bestR {
						best, bestR = l, r
					}
				}
				return best
			}
		}
		row(score(fmt.Sprintf("oracle: best single bridge of %d, RRF(current fused list, it at 1)", mb), oracle(func(base, b []ariadne.ScoredChunk) []ariadne.ScoredChunk {
			return agent.FuseRRFWeighted([][]ariadne.ScoredChunk{base, b}, []float64{1, 1})
		})))
		row(score(fmt.Sprintf("oracle: best single bridge of %d, inserted as the route does", mb), oracle(func(base, b []ariadne.ScoredChunk) []ariadne.ScoredChunk {
			return e.retriever.InsertBridge(base, [][]ariadne.ScoredChunk{b})
		})))
	}
	if i := slices.IndexFunc(grid, func(s fusedScore) bool { return s.lo == lo && s.hi == hi }); i >= 0 {
		grid = slices.Delete(grid, i, i+1) // printed above
	}
	for _, s := range grid {
		row(s)
	}
	return writeJSON(f.JSONOut, rep)
}
