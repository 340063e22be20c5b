package evaluation

import (
	"strings"
	"unicode"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Answer-correctness metrics in the style of the SQuAD evaluation script (Rajpurkar et al. 2016,
// evaluate-v1.1.py): both texts are normalized — folded (NFKC, case, ё→е, quotes; textnorm.Fold),
// punctuation and symbols replaced by spaces, the English articles a/an/the dropped — and split on
// white space into tokens.
//
//   - ExactMatch is 1 when the normalized token sequences are equal.
//   - TokenF1 is the harmonic mean of token precision and recall, counting tokens as a multiset.
//   - TokenRecall is the share of the gold answer's tokens that the prediction contains (multiset):
//     the figure that suits an extractive answer, which quotes a whole sentence around a short
//     gold answer and so scores a low precision by construction.
//
// Each takes the best score over the gold answers (SQuAD keeps several; golden sets have one).
// With no gold answer, or a gold answer with no tokens, every score is 0.

// AnswerTokens returns the normalized tokens of s.
func AnswerTokens(s string) []string {
	f := textnorm.FoldString(s)
	f = strings.Map(func(r rune) rune {
		if unicode.IsPunct(r) || unicode.IsSymbol(r) {
			return ' '
		}
		return r
	}, f)
	var out []string
	for _, t := range strings.Fields(f) {
		switch t {
		case "a", "an", "the":
			continue
		}
		out = append(out, t)
	}
	return out
}

// ExactMatch is 1 when pred equals one of gold after normalization, else 0.
func ExactMatch(pred string, gold ...string) float64 {
	p := strings.Join(AnswerTokens(pred), " ")
	for _, g := range gold {
		if gt := AnswerTokens(g); len(gt) > 0 && p == strings.Join(gt, " ") {
			return 1
		}
	}
	return 0
}

// TokenF1 is the best token F1 of pred against the gold answers, in [0, 1].
func TokenF1(pred string, gold ...string) float64 {
	best := 0.0
	pt := AnswerTokens(pred)
	for _, g := range gold {
		common, gn := overlap(pt, AnswerTokens(g))
		if common == 0 || gn == 0 {
			continue
		}
		p, r := float64(common)/float64(len(pt)), float64(common)/float64(gn)
		best = max(best, 2*p*r/(p+r))
	}
	return best
}

// TokenRecall is the best share of a gold answer's tokens found in pred, in [0, 1].
func TokenRecall(pred string, gold ...string) float64 {
	best := 0.0
	pt := AnswerTokens(pred)
	for _, g := range gold {
		if common, gn := overlap(pt, AnswerTokens(g)); gn > 0 {
			best = max(best, float64(common)/float64(gn))
		}
	}
	return best
}

// overlap counts the tokens pred and gold share as multisets, and returns len(gold).
func overlap(pred, gold []string) (common, goldN int) {
	counts := map[string]int{}
	for _, t := range pred {
		counts[t]++
	}
	for _, t := range gold {
		if counts[t] > 0 {
			counts[t]--
			common++
		}
	}
	return common, len(gold)
}
