package agent

import (
	"fmt"
	"math"
	"sort"
)

// LabeledUnit is one training example for the evidence model: a unit's features and whether it
// states the answer.
type LabeledUnit struct {
	Features [numEvidenceFeatures]float64
	Positive bool
}

// FitWeightSet fits an L2-regularised logistic regression (full-batch gradient descent on
// standardised features) over the named features. lambda is the L2 weight (0: 1e-3), iters the
// number of steps (0: 2000). balance weighs positives so both classes count equally (better
// ranking of rare positives, but scores that no longer estimate a probability); without it the
// scores are calibrated to the data's base rate, which the answerability threshold needs.
func FitWeightSet(data []LabeledUnit, features []string, lambda float64, iters int, balance bool) (WeightSet, error) {
	if lambda == 0 {
		lambda = 1e-3
	}
	if iters == 0 {
		iters = 2000
	}
	rows := make([][]float64, len(data))
	y := make([]bool, len(data))
	pos := 0
	for k := range data {
		rows[k], y[k] = data[k].Features[:], data[k].Positive
		if y[k] {
			pos++
		}
	}
	if len(data) == 0 || pos == 0 || pos == len(data) {
		return WeightSet{}, fmt.Errorf("agent: training data has %d positives of %d", pos, len(data))
	}
	lr, err := fitLogReg(rows, y, features, EvidenceFeatureNames[:], lambda, iters, balance)
	if err != nil {
		return WeightSet{}, fmt.Errorf("agent: evidence fit: %w", err)
	}
	return WeightSet{LogReg: lr}, nil
}

// fitLogistic fits p = σ(b + w·x) to standardised rows x and labels y by full-batch gradient
// descent (step 0.5) with L2 weight lambda on w; balance weighs positives up to the negatives'
// count.
func fitLogistic(x [][]float64, y []bool, lambda float64, iters int, balance bool) ([]float64, float64) {
	n, d := len(x), len(x[0])
	pos := 0
	for _, v := range y {
		if v {
			pos++
		}
	}
	w, b := make([]float64, d), 0.0
	wPos := 1.0
	if balance && pos > 0 {
		wPos = float64(n-pos) / float64(pos)
	}
	lr := 0.5
	grad := make([]float64, d)
	for it := 0; it < iters; it++ {
		var gb, wsum float64
		clear(grad)
		for k := range x {
			z := b
			for i := range d {
				z += w[i] * x[k][i]
			}
			p := 1 / (1 + math.Exp(-z))
			t, cw := 0.0, 1.0
			if y[k] {
				t, cw = 1, wPos
			}
			g := cw * (p - t)
			gb += g
			wsum += cw
			for i := range d {
				grad[i] += g * x[k][i]
			}
		}
		b -= lr * gb / wsum
		for i := range d {
			w[i] -= lr * (grad[i]/wsum + lambda*w[i])
		}
	}
	return w, b
}

// AnswerDecision is one question's best evidence score and whether answering it would be right: the
// question is answerable from its candidates and the best unit states the answer.
type AnswerDecision struct {
	Best        float64
	Answerable  bool
	TopPositive bool
}

// ThresholdPoint is one row of the refusal precision/recall curve.
type ThresholdPoint struct {
	Threshold       float64 `json:"threshold"`
	Answered        int     `json:"answered"`
	AnswerPrecision float64 `json:"answer_precision"` // answered questions whose best unit states the answer
	RefusalPrec     float64 `json:"refusal_precision"`
	RefusalRecall   float64 `json:"refusal_recall"` // unanswerable questions refused
	FalseRefusals   int     `json:"false_refusals"` // answerable questions refused
	Answerable      int     `json:"answerable"`
}

// ThresholdCurve evaluates every threshold of ts on the decisions.
func ThresholdCurve(ds []AnswerDecision, ts []float64) []ThresholdPoint {
	var out []ThresholdPoint
	for _, t := range ts {
		p := ThresholdPoint{Threshold: t}
		var good, refused, refusedRight, unans int
		for _, d := range ds {
			if d.Answerable {
				p.Answerable++
			} else {
				unans++
			}
			if d.Best >= t {
				p.Answered++
				if d.Answerable && d.TopPositive {
					good++
				}
				continue
			}
			refused++
			if !d.Answerable {
				refusedRight++
			} else {
				p.FalseRefusals++
			}
		}
		if p.Answered > 0 {
			p.AnswerPrecision = float64(good) / float64(p.Answered)
		}
		if refused > 0 {
			p.RefusalPrec = float64(refusedRight) / float64(refused)
		}
		if unans > 0 {
			p.RefusalRecall = float64(refusedRight) / float64(unans)
		}
		out = append(out, p)
	}
	return out
}

// ChooseThreshold returns the lowest threshold whose answer precision on ds is at least target
// (so the fewest refusals for that precision), searched over the distinct best scores; 1 when
// none reaches it.
func ChooseThreshold(ds []AnswerDecision, target float64) float64 {
	var ts []float64
	for _, d := range ds {
		ts = append(ts, d.Best)
	}
	sort.Float64s(ts)
	for _, p := range ThresholdCurve(ds, ts) {
		if p.Answered > 0 && p.AnswerPrecision >= target {
			return p.Threshold
		}
	}
	return 1
}

// AUC is the area under the ROC curve of scores for the positives (rank statistic); 0.5 when
// one class is empty.
func AUC(scores []float64, positive []bool) float64 {
	type sp struct {
		s float64
		p bool
	}
	xs := make([]sp, len(scores))
	var np, nn float64
	for i := range scores {
		xs[i] = sp{scores[i], positive[i]}
		if positive[i] {
			np++
		} else {
			nn++
		}
	}
	if np == 0 || nn == 0 {
		return 0.5
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i].s < xs[j].s })
	var rankSum float64
	for i := 0; i < len(xs); {
		j := i
		for j < len(xs) && xs[j].s == xs[i].s {
			j++
		}
		r := float64(i+j+1) / 2 // average 1-based rank of the tie group
		for k := i; k < j; k++ {
			if xs[k].p {
				rankSum += r
			}
		}
		i = j
	}
	return (rankSum - np*(np+1)/2) / (np * nn)
}
