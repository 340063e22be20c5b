package agent

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Term coverage shared by the extractive generators (TermExtractive scores with it alone; the
// evidence model of Extractive uses it as features).

// termIDF returns the IDF of each question term over the fragments, log(1 + (N+1)/(df+1)) with N
// fragments and df of them containing the term (in text, title or section), and the sum over the
// terms (0 when there are none).
func termIDF(qterms []string, frags []Fragment) (map[string]float64, float64) {
	idf := map[string]float64{}
	var total float64
	if len(qterms) == 0 {
		return idf, 0
	}
	df := map[string]int{}
	for _, f := range frags {
		ft := toSet(textnorm.SearchTerms(f.Chunk.ContextText()))
		for _, t := range qterms {
			if ft[t] {
				df[t]++
			}
		}
	}
	for _, t := range qterms {
		idf[t] = math.Log(1 + float64(len(frags)+1)/float64(df[t]+1))
		total += idf[t]
	}
	return idf, total
}

// termCover returns which question terms a unit covers — 1 when the unit has the term, 0.5 when
// only its chunk's title or section (ctxTerms) does — and the IDF-weighted share they make of
// total, in [0, 1] (summed in term order, so the float result does not depend on map order).
func termCover(qterms []string, unit string, ctxTerms map[string]bool, idf map[string]float64, total float64) (map[string]float64, float64) {
	ut := toSet(textnorm.SearchTerms(unit))
	covered := map[string]float64{}
	for _, t := range qterms {
		switch {
		case ut[t]:
			covered[t] = 1
		case ctxTerms[t]:
			covered[t] = 0.5
		}
	}
	var cov float64
	for _, t := range sortedKeys(covered) {
		cov += covered[t] * idf[t]
	}
	if total > 0 {
		cov /= total
	}
	return covered, cov
}

// quoted is a unit chosen as a claim: its text quoted verbatim from its fragment.
type quoted struct {
	frag Fragment
	text string
}

// quoteClaims encodes chosen units as an answer in the contract (ParseOutput): one claim per unit,
// citing the unit itself as its quote.
func quoteClaims(chosen []quoted) (string, error) {
	type claim struct {
		Text      string           `json:"text"`
		Citations []OutputCitation `json:"citations"`
	}
	claims := make([]claim, 0, len(chosen))
	for _, u := range chosen {
		claims = append(claims, claim{Text: u.text, Citations: []OutputCitation{{Fragment: u.frag.N, ChunkID: u.frag.Chunk.ID, Quote: u.text}}})
	}
	raw, err := json.Marshal(map[string]any{"status": "answer", "claims": claims})
	if err != nil {
		return "", fmt.Errorf("extractive: %w", err)
	}
	return string(raw), nil
}
