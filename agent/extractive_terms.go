package agent

import (
	"context"
	"slices"
	"sort"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Thresholds of TermExtractive, as shares of the question's IDF-weighted terms. They were set by
// hand on wave 1's development questions, the kind of fitted rule wave 2 replaces; the calibrated
// Extractive has none (its threshold is fitted on public data, cmd/fitevidence).
const (
	minBest  = 0.25 // the best unit must cover this much …
	minUnion = 0.4  // … and the chosen units (on one subject, see onSubjectV1) together this much, or NOT_FOUND
	minGain  = 0.08 // a further claim must add this much

	// Multi-hop evidence is spread over documents: a lower bar per unit, and a higher one for the
	// union, since its claims need not share the question's terms (a chain's bridge is unnamed).
	minBestMultiHop  = 0.15
	minUnionMultiHop = 0.45
)

// TermExtractive (extractive-v1) is the offline generator of wave 1, kept as the default while the
// calibrated Extractive (extractive-v2) refuses too often (docs/evaluation.md). It is the offline generator: it does not write, it selects. It splits the fragments into
// sentences, table rows and list items, scores each by the question's terms it contains (IDF over
// the fragments; textnorm.SearchTerms, so «отпуска» matches «отпуск» and «впн» matches VPN), with
// a bonus when the unit has what the question asks for (a number for «сколько»/"how many", a name
// for «кто»/"who", a date for «когда»/"when"), and returns the best units as claims quoted
// verbatim: the best unit, then, greedily, units of other fragments that add the question terms
// still missing (so a multi-hop answer quotes each document of the chain). It answers NOT_FOUND
// when the best unit or the chosen units together cover too little of the question (minBest,
// minUnion), or when a code or id
// in the question (ERR-7713, INC-9071) appears in no fragment. Units that address an AI model
// (planted instructions) are never selected.
type TermExtractive struct {
	// MaxClaims bounds the answer; default 4.
	MaxClaims int
	// Lexicon, when set, lets a sentence in the other language state a question term by one of
	// its translations (questionTerms); nil matches terms in the question's language only.
	Lexicon *lexicon.Lexicon
}

// Name says what it is.
func (TermExtractive) Name() string { return "extractive-v1" }

type termUnit struct {
	frag    Fragment
	text    string
	score   float64
	cover   float64            // IDF-weighted share of the question's terms, in [0, 1]
	covered map[string]float64 // term → 1 (in the unit) or 0.5 (in its title or section only)
}

// Generate selects the answer sentences.
func (g TermExtractive) Generate(_ context.Context, in GenerationInput) (string, error) {
	question, frags := in.Question, in.Fragments
	// A multi-hop answer is spread over documents: no single unit covers much of the question,
	// so the per-unit bar is lower and the chain as a whole must cover it.
	needBest, needUnion := minBest, minUnion
	if in.Route == ariadne.RouteMultiHop {
		needBest, needUnion = minBestMultiHop, minUnionMultiHop
	}
	maxClaims := g.MaxClaims
	if maxClaims == 0 {
		maxClaims = 4
	}
	q := newQuestionTerms(question, g.Lexicon)
	notFound := func() (string, error) { return `{"status":"not_found","claims":[]}`, nil }
	if len(q.terms) == 0 || len(frags) == 0 {
		return notFound()
	}
	// Codes and ids the question names must be in the evidence.
	all := ""
	for _, f := range frags {
		all += " " + f.Chunk.ContextText()
	}
	for _, code := range codeRE.FindAllString(question, -1) {
		if _, _, ok := textnorm.Index(all, code); !ok {
			return notFound()
		}
	}
	idf, total := termIDF(q, frags)
	want := askFor(question)
	var units []termUnit
	for i, f := range frags {
		ctxTerms := contextTerms(q, f)
		for _, u := range splitUnits(f.Chunk.Text) {
			if injectionRE.MatchString(u) {
				continue // an instruction planted in a document is data, not an answer
			}
			covered, cov := termCover(q, u, ctxTerms, idf, total)
			score := cov
			if want != "" && hasKind(u, want) {
				score += 0.15
			}
			score -= 0.01 * float64(i) // earlier fragments ranked higher by retrieval
			units = append(units, termUnit{frag: f, text: u, score: score, cover: cov, covered: covered})
		}
	}
	sort.SliceStable(units, func(i, j int) bool { return units[i].score > units[j].score })
	if len(units) == 0 {
		return notFound()
	}
	// A multi-hop answer chains documents through terms the question does not name; any other
	// answer stays on its subject: a further claim comes from the best claim's document or shares
	// one of the question's terms with it (sentences of unrelated documents that each share
	// another word with the question do not add up to an answer).
	chosen, union := coverGreedyV1(units, idf, total, want, maxClaims, in.Route != ariadne.RouteMultiHop)
	if chosen[0].cover < needBest || union < needUnion {
		return notFound()
	}
	// The answer must hold the kind of thing asked for (a name for "who", a number for "how
	// many"): if no chosen unit does, add the most relevant unit that does.
	if want != "" && len(chosen) < maxClaims+1 && !slices.ContainsFunc(chosen, func(u termUnit) bool { return hasKind(u.text, want) }) {
		for _, u := range units {
			if u.cover > 0 && hasKind(u.text, want) && (in.Route == ariadne.RouteMultiHop || onSubjectV1(chosen[0], u)) && !slices.ContainsFunc(chosen, func(c termUnit) bool { return c.text == u.text }) {
				chosen = append(chosen, u)
				break
			}
		}
	}
	out := make([]quoted, 0, len(chosen))
	for _, u := range chosen {
		out = append(out, quoted{frag: u.frag, text: u.text})
	}
	return quoteClaims(out)
}

// coverGreedy picks claims by greedy set cover (units sorted best first): the best unit, then
// units of other fragments that add the most of the question's still-uncovered IDF-weighted
// terms, while a unit adds at least minGain; with anchored, only units on the best unit's subject
// (see onSubject). It returns the claims and the share of the question's terms they cover
// together, in [0, 1].
func coverGreedyV1(units []termUnit, idf map[string]float64, total float64, want string, maxClaims int, anchored bool) ([]termUnit, float64) {
	chosen := []termUnit{units[0]}
	got := map[string]float64{}
	for t, w := range units[0].covered {
		got[t] = w
	}
	used := map[int]bool{units[0].frag.N: true}
	for len(chosen) < maxClaims {
		bestGain, bestIdx := 0.0, -1
		for i, u := range units {
			if used[u.frag.N] || anchored && !onSubjectV1(units[0], u) {
				continue
			}
			var gain float64
			for _, t := range sortedKeys(u.covered) {
				if w := u.covered[t]; w > got[t] {
					gain += (w - got[t]) * idf[t]
				}
			}
			gain /= total
			if want != "" && hasKind(u.text, want) {
				gain += 0.02
			}
			if gain > bestGain {
				bestGain, bestIdx = gain, i
			}
		}
		if bestIdx < 0 || bestGain < minGain {
			break
		}
		u := units[bestIdx]
		chosen = append(chosen, u)
		used[u.frag.N] = true
		for t, w := range u.covered {
			got[t] = max(got[t], w)
		}
	}
	var union float64
	for _, t := range sortedKeys(got) {
		union += got[t] * idf[t]
	}
	return chosen, union / total
}

// onSubject reports whether u may join an answer whose best claim is first: it comes from the
// same document or one of the same title (parts of one work), or it covers a question term that
// first covers too (in the text or in the title and section of its chunk).
func onSubjectV1(first, u termUnit) bool {
	if u.frag.Chunk.DocID == first.frag.Chunk.DocID || u.frag.Chunk.Title == first.frag.Chunk.Title {
		return true
	}
	for t := range u.covered {
		if first.covered[t] > 0 {
			return true
		}
	}
	return false
}
