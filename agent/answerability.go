package agent

import (
	"fmt"
	"math"
)

// Answerability features of a question, computed from its candidate units once the evidence model
// has scored them (AnswerabilityFeatures). The unit model says how likely each unit is to state
// the answer; these say how the best unit stands among the others, so that a question whose best
// unit is only the least bad of many (a near miss: right subject, missing fact) and one whose
// evidence is in the other language (lower cosines throughout) are told apart from the score alone.
const (
	ansBest     = iota // logit of the best unit's score
	ansGap             // best logit minus the second best unit's
	ansGapDoc          // best logit minus the best logit among units of other fragments
	ansTop3            // mean logit of the three best units
	ansClose           // log(1 + units within 1 logit of the best)
	ansCover           // the best unit's cover feature
	ansCos             // the best unit's cosine (0 for the lexical set)
	ansOther           // 1 when the best unit is in the other script than the question
	ansTypeMiss        // 1 when the question asks for a number/date/person and the best unit has none
	numAnswerFeatures
)

// AnswerFeatureNames names the answerability features, as in the weights file.
var AnswerFeatureNames = [numAnswerFeatures]string{"best", "gap", "gap_doc", "top3", "close", "best_cover", "best_cos",
	"best_other", "type_miss"}

// AnswerModel decides answerability: a logistic regression over a question's answerability
// features, fitted on public data (cmd/fitevidence) with the unit scores of questions it was not
// fitted on (cross-fitting), and a threshold chosen on held-out questions for a stated answer
// precision.
type AnswerModel struct {
	LogReg
	// Threshold: answer only when Score is at least this (AnswerPrecision on held-out data).
	Threshold       float64 `json:"threshold"`
	AnswerPrecision float64 `json:"answer_precision"`
}

// AnswerVector is a question's answerability features.
type AnswerVector [numAnswerFeatures]float64

func logit(p float64) float64 {
	p = min(max(p, 1e-9), 1-1e-9)
	return math.Log(p / (1 - p))
}

// AnswerabilityFeatures computes a question's answerability features from its units, scored and
// sorted best first (RankUnits). No units give the zero vector with best at the floor logit.
func AnswerabilityFeatures(units []ScoredUnit) AnswerVector {
	var x AnswerVector
	if len(units) == 0 {
		x[ansBest], x[ansTop3] = logit(0), logit(0)
		return x
	}
	best := logit(units[0].Score)
	x[ansBest] = best
	second, otherDoc := logit(0), logit(0)
	if len(units) > 1 {
		second = logit(units[1].Score)
	}
	var top float64
	n := 0
	for i, u := range units {
		z := logit(u.Score)
		if i < 3 {
			top += z
			n++
		}
		if u.Fragment.N != units[0].Fragment.N && otherDoc == logit(0) {
			otherDoc = z
		}
		if best-z <= 1 {
			x[ansClose]++
		}
	}
	x[ansGap] = best - second
	x[ansGapDoc] = best - otherDoc
	x[ansTop3] = top / float64(n)
	x[ansClose] = math.Log(x[ansClose])
	f := units[0].Features
	x[ansCover], x[ansCos], x[ansOther] = f[featCover], f[featCos], f[featOtherLang]
	if f[featTypeAsked] == 1 && f[featTypeMatch] == 0 {
		x[ansTypeMiss] = 1
	}
	return x
}

// Score returns the probability, in [0, 1], that answering with the best unit is right.
func (m AnswerModel) Score(x AnswerVector) float64 { return m.score(x[:]) }

// FitAnswerModel fits the answerability regression (calibrated: classes are not reweighed) over
// the named features; ok[i] says whether answering question i with its best unit is right.
func FitAnswerModel(xs []AnswerVector, ok []bool, features []string, iters int) (AnswerModel, error) {
	rows := make([][]float64, len(xs))
	for i := range xs {
		rows[i] = xs[i][:]
	}
	if iters == 0 {
		iters = 2000
	}
	lr, err := fitLogReg(rows, ok, features, AnswerFeatureNames[:], 1e-2, iters, false)
	if err != nil {
		return AnswerModel{}, fmt.Errorf("agent: answerability fit: %w", err)
	}
	return AnswerModel{LogReg: lr}, nil
}
