package agent

import (
	"math"
	"testing"
)

func scored(n int, score float64, cover, cos, other float64) ScoredUnit {
	u := ScoredUnit{Fragment: Fragment{N: n}, Score: score}
	u.Features[featCover], u.Features[featCos], u.Features[featOtherLang] = cover, cos, other
	return u
}

func TestAnswerabilityFeatures(t *testing.T) {
	units := []ScoredUnit{scored(1, 0.8, 0.6, 0.85, 1), scored(1, 0.7, 0.2, 0.8, 1), scored(2, 0.2, 0.1, 0.7, 0), scored(3, 0.1, 0, 0.6, 0)}
	units[0].Features[featTypeAsked] = 1 // asks for a number the best unit lacks
	x := AnswerabilityFeatures(units)
	l := func(p float64) float64 { return math.Log(p / (1 - p)) }
	want := AnswerVector{
		ansBest: l(0.8), ansGap: l(0.8) - l(0.7), ansGapDoc: l(0.8) - l(0.2), ansTop3: (l(0.8) + l(0.7) + l(0.2)) / 3,
		ansClose: math.Log(2), ansCover: 0.6, ansCos: 0.85, ansOther: 1, ansTypeMiss: 1,
	}
	for i := range want {
		if math.Abs(x[i]-want[i]) > 1e-9 {
			t.Errorf("%s = %.6f, want %.6f", AnswerFeatureNames[i], x[i], want[i])
		}
	}
	if x := AnswerabilityFeatures(nil); x[ansBest] > -20 {
		t.Errorf("no units: best %.3f", x[ansBest])
	}
}

// The answerability model separates questions whose best unit stands out from those whose best
// unit is one of many alike, and WeightSet.Answerable uses it in place of the unit threshold.
func TestAnswerModelDecides(t *testing.T) {
	var xs []AnswerVector
	var ok []bool
	for i := range 40 {
		var x AnswerVector
		x[ansGap] = float64(i%10) / 3 // right answers stand out: a wide gap
		x[ansBest] = -1
		xs, ok = append(xs, x), append(ok, i%10 >= 5)
	}
	m, err := FitAnswerModel(xs, ok, []string{"best", "gap"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m.Threshold = 0.5
	set := WeightSet{Threshold: 0.99, Answer: &m}
	wide := []ScoredUnit{scored(1, 0.6, 0, 0, 0), scored(2, 0.05, 0, 0, 0)}
	narrow := []ScoredUnit{scored(1, 0.6, 0, 0, 0), scored(2, 0.58, 0, 0, 0)}
	if got, p := set.Answerable(wide); !got {
		t.Errorf("a best unit far ahead is refused (p %.3f)", p)
	}
	if got, p := set.Answerable(narrow); got {
		t.Errorf("a best unit among equals is answered (p %.3f)", p)
	}
	// Without the model, the best unit's score decides against Threshold.
	set.Answer = nil
	if got, _ := set.Answerable(wide); got {
		t.Error("0.6 passes the unit threshold 0.99")
	}
	if _, err := FitAnswerModel(xs, ok, []string{"nope"}, 0); err == nil {
		t.Error("an unknown feature fits")
	}
}
