package agent

import (
	"fmt"
	"math"
	"slices"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
)

// BarsExample is one labelled question for fitting TermBars: the generator's input as the
// answerer built it (Reached false when retrieval's evidence was too weak to reach a generator;
// such a question is refused whatever the thresholds), whether the question has an answer, and
// the documents an answer must cite.
type BarsExample struct {
	Input      GenerationInput
	Reached    bool
	Answerable bool
	GoldDocs   []string
}

// BarsOutcome counts a threshold set's results on examples: right answers (answered, citing a
// gold document), wrong answers (to an unanswerable question, or citing none of the gold
// documents), refused answerable questions.
type BarsOutcome struct {
	Right, Wrong, FalseRefusals, Answerable, Unanswerable int
}

// WrongCost is what a wrong answer costs in Objective, against 1 for a right one (and 0 for a
// refusal).
var WrongCost = 2.0

// Objective is the fitting target: a right answer counts 1, a wrong answer −WrongCost.
func (o BarsOutcome) Objective() float64 { return float64(o.Right) - WrongCost*float64(o.Wrong) }

func (o BarsOutcome) String() string {
	return fmt.Sprintf("right %d, wrong %d, false refusals %d/%d, unanswerable %d (objective %.0f)",
		o.Right, o.Wrong, o.FalseRefusals, o.Answerable, o.Unanswerable, o.Objective())
}

// Add sums two outcomes.
func (o BarsOutcome) Add(p BarsOutcome) BarsOutcome {
	return BarsOutcome{o.Right + p.Right, o.Wrong + p.Wrong, o.FalseRefusals + p.FalseRefusals, o.Answerable + p.Answerable, o.Unanswerable + p.Unanswerable}
}

// BarsFitter replays TermExtractive over labelled examples; the units are scored once.
type BarsFitter struct {
	exs   []BarsExample
	cands []termCandidates
}

// NewBarsFitter scores the examples' units with the lexicon (may be nil).
func NewBarsFitter(exs []BarsExample, lex *lexicon.Lexicon) *BarsFitter {
	f := &BarsFitter{exs: exs, cands: make([]termCandidates, len(exs))}
	for i, ex := range exs {
		if ex.Reached {
			f.cands[i] = TermExtractive{Lexicon: lex}.candidates(ex.Input)
		}
	}
	return f
}

// Score returns the outcome of bars on the examples whose index keep accepts (nil: all) and whose
// route is multi_hop (multiHop) or not; an example that never reached the generator counts with
// the other routes.
func (f *BarsFitter) Score(bars TermBars, multiHop bool, keep func(int) bool) BarsOutcome {
	var o BarsOutcome
	for i, ex := range f.exs {
		if keep != nil && !keep(i) || (ex.Reached && ex.Input.Route == ariadne.RouteMultiHop) != multiHop {
			continue
		}
		if ex.Answerable {
			o.Answerable++
		} else {
			o.Unanswerable++
		}
		chosen := f.cands[i].choose(bars, 4, ex.Input.Route)
		gold := slices.ContainsFunc(chosen, func(u termUnit) bool { return slices.Contains(ex.GoldDocs, u.frag.Chunk.DocID) })
		switch {
		case len(chosen) > 0 && ex.Answerable && gold:
			o.Right++
		case len(chosen) > 0:
			o.Wrong++
		case ex.Answerable:
			o.FalseRefusals++
		}
	}
	return o
}

// Fit searches a grid (Best 0.05–0.50, Union 0.20–0.80, steps of 0.05; Gain 0.04–0.12 in steps
// of 0.02; the multi-hop pair 0.05–0.40 and 0.20–0.80) for the thresholds with the best
// Objective on the examples keep accepts: first the simple/hybrid triple, then the multi-hop
// pair with that gain. Ties keep the first found (lower thresholds: fewer refusals).
func (f *BarsFitter) Fit(keep func(int) bool) TermBars {
	grid := func(lo, hi float64) []float64 {
		var xs []float64
		for k := int(math.Round(lo * 100)); k <= int(math.Round(hi*100)); k += 5 {
			xs = append(xs, float64(k)/100)
		}
		return xs
	}
	best, bestO := TermBars{}, math.Inf(-1)
	for _, gain := range []float64{0.04, 0.06, 0.08, 0.1, 0.12} {
		for _, b := range grid(0.05, 0.5) {
			for _, u := range grid(0.2, 0.8) {
				bars := TermBars{Best: b, Union: u, Gain: gain}
				if o := f.Score(bars, false, keep).Objective(); o > bestO {
					best, bestO = bars, o
				}
			}
		}
	}
	bestO = math.Inf(-1)
	out := best
	for _, b := range grid(0.05, 0.4) {
		for _, u := range grid(0.2, 0.8) {
			bars := best
			bars.BestMultiHop, bars.UnionMultiHop = b, u
			if o := f.Score(bars, true, keep).Objective(); o > bestO {
				out, bestO = bars, o
			}
		}
	}
	return out
}
