package agent

import (
	"fmt"
	"math"
	"slices"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
)

// BarsExample is one labelled question for fitting TermBars: the generator's input as the
// answerer built it on the routed route (Reached false when retrieval's evidence was too weak to
// reach a generator; such a pass is a refusal whatever the thresholds) and, when that route was not
// multi_hop, on the multi_hop route the answerer escalates a refusal to (Escalated, EscalatedReached);
// whether the question has an answer, and the documents an answer must cite.
type BarsExample struct {
	Input            GenerationInput
	Reached          bool
	Escalated        GenerationInput
	EscalatedReached bool
	Answerable       bool
	GoldDocs         []string
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

// BarsFitter replays TermExtractive over labelled examples — and, with escalate, a second pass on
// multi_hop after a refusal on another route (a design measured and not adopted) — scoring the
// units once.
type BarsFitter struct {
	exs        []BarsExample
	cands, esc []termCandidates
	escalate   bool
	// Cross also fits the other-script bars (TermBars.BestCross, UnionCross) in a third block of
	// each round (0.05–0.50, 0.10–0.80).
	Cross bool
}

// NewBarsFitter scores the examples' units with the lexicon (may be nil); escalate replays a
// second pass on multi_hop after a refusal on another route.
func NewBarsFitter(exs []BarsExample, lex *lexicon.Lexicon, escalate bool) *BarsFitter {
	f := &BarsFitter{exs: exs, cands: make([]termCandidates, len(exs)), esc: make([]termCandidates, len(exs)), escalate: escalate}
	for i, ex := range exs {
		if ex.Reached {
			f.cands[i] = TermExtractive{Lexicon: lex}.candidates(ex.Input)
		}
		if ex.EscalatedReached {
			f.esc[i] = TermExtractive{Lexicon: lex}.candidates(ex.Escalated)
		}
	}
	return f
}

// Score returns the outcome of bars on the examples whose index keep accepts (nil: all).
func (f *BarsFitter) Score(bars TermBars, keep func(int) bool) BarsOutcome {
	var o BarsOutcome
	for i, ex := range f.exs {
		if keep != nil && !keep(i) {
			continue
		}
		if ex.Answerable {
			o.Answerable++
		} else {
			o.Unanswerable++
		}
		chosen := f.cands[i].choose(bars, 4, ex.Input.Route)
		if len(chosen) == 0 && f.escalate && ex.Input.Route != ariadne.RouteMultiHop {
			chosen = f.esc[i].choose(bars, 4, ariadne.RouteMultiHop)
		}
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

// Fit searches a grid for the thresholds with the best Objective on the examples keep accepts, by
// coordinate ascent from wave 1's: the simple/hybrid triple (Best 0.05–0.50, Union 0.20–0.80,
// steps of 0.05; Gain 0.04–0.12 in steps of 0.02) with the multi-hop pair fixed, then the pair
// (0.05–0.40, 0.20–0.80) with the triple fixed, then, with Cross, the other-script pair
// (0.05–0.50, 0.10–0.80); three rounds. Ties keep what was found first.
func (f *BarsFitter) Fit(keep func(int) bool) TermBars {
	grid := func(lo, hi float64) []float64 {
		var xs []float64
		for k := int(math.Round(lo * 100)); k <= int(math.Round(hi*100)); k += 5 {
			xs = append(xs, float64(k)/100)
		}
		return xs
	}
	best := WaveOneBars
	bestO := f.Score(best, keep).Objective()
	try := func(bars TermBars) {
		if o := f.Score(bars, keep).Objective(); o > bestO {
			best, bestO = bars, o
		}
	}
	// pair tries a grid of one (best, union) pair of bars from the best found so far.
	pair := func(bs, us []float64, set func(b *TermBars, best, union float64)) {
		cur := best
		for _, b := range bs {
			for _, u := range us {
				bars := cur
				set(&bars, b, u)
				try(bars)
			}
		}
	}
	for range 3 {
		cur := best
		for _, gain := range []float64{0.04, 0.06, 0.08, 0.1, 0.12} {
			for _, b := range grid(0.05, 0.5) {
				for _, u := range grid(0.2, 0.8) {
					bars := cur
					bars.Best, bars.Union, bars.Gain = b, u, gain
					try(bars)
				}
			}
		}
		pair(grid(0.05, 0.4), grid(0.2, 0.8), func(b *TermBars, best, union float64) { b.BestMultiHop, b.UnionMultiHop = best, union })
		if f.Cross {
			pair(grid(0.05, 0.5), grid(0.1, 0.8), func(b *TermBars, best, union float64) { b.BestCross, b.UnionCross = best, union })
		}
	}
	// Sibling changes which units of the best claim's chunk are quoted, never a status or the
	// documents cited, so the objective cannot choose it: it is carried over (chosen by evidence
	// coverage, see DefaultTermBars).
	best.Sibling = DefaultTermBars.Sibling
	return best
}

// UnitCoverage is one candidate unit of a question as TermExtractive scores it (for diagnostics
// and fitting; best first): its chunk and document, its text, its score and its IDF-weighted share
// of the question's terms in [0, 1].
type UnitCoverage struct {
	ChunkID string  `json:"chunk_id"`
	DocID   string  `json:"doc_id"`
	Text    string  `json:"text"`
	Score   float64 `json:"score"`
	Cover   float64 `json:"cover"`
	// Covered maps each question term the unit states to 1 (in its text) or 0.5 (in its title or
	// section only); IDF is each question term's weight over the fragments.
	Covered map[string]float64 `json:"covered"`
	IDF     map[string]float64 `json:"idf"`
}

// ScoredUnits returns every candidate unit of in, best first, as TermExtractive scores them; none
// when the generator would have no candidate (no search term, a named code absent).
func (g TermExtractive) ScoredUnits(in GenerationInput) []UnitCoverage {
	c := g.candidates(in)
	out := make([]UnitCoverage, len(c.units))
	for i, u := range c.units {
		out[i] = UnitCoverage{ChunkID: u.frag.Chunk.ID, DocID: u.frag.Chunk.DocID, Text: u.text, Score: u.score, Cover: u.cover, Covered: u.covered, IDF: c.idf}
	}
	return out
}
