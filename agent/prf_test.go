package agent

import (
	"math"
	"testing"
)

func TestFeedbackQuery(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    []float32
		top  [][]float32
		beta float64
		want []float32
	}{
		{"no feedback: the question, normalized", []float32{3, 4}, nil, 0.5, []float32{0.6, 0.8}},
		{"one chunk, beta 1: the bisector", []float32{1, 0}, [][]float32{{0, 2}}, 1, []float32{float32(math.Sqrt2 / 2), float32(math.Sqrt2 / 2)}},
		// q + 0.5·mean((0,1), (0,1)) = (1, 0.5) → /√1.25
		{"two chunks, beta 0.5", []float32{1, 0}, [][]float32{{0, 1}, {0, 3}}, 0.5, []float32{float32(1 / math.Sqrt(1.25)), float32(0.5 / math.Sqrt(1.25))}},
		{"a vector of another length is skipped", []float32{1, 0}, [][]float32{{0, 1, 0}}, 1, []float32{1, 0}},
	} {
		got := feedbackQuery(tc.q, tc.top, tc.beta)
		for i := range tc.want {
			if math.Abs(float64(got[i]-tc.want[i])) > 1e-6 {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}
