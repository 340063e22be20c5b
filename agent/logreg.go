package agent

import (
	"fmt"
	"math"
	"slices"
)

// LogReg is a fitted logistic regression over named features, on standardised inputs:
// p = σ(bias + Σ w_i·(x_i − mean_i)/std_i). The evidence model's weight sets and the answerability
// model are LogRegs over their own feature vectors.
type LogReg struct {
	Features []string  `json:"features"`
	Mean     []float64 `json:"mean"`
	Std      []float64 `json:"std"`
	Weights  []float64 `json:"weights"`
	Bias     float64   `json:"bias"`
	idx      []int     // position of each feature in the vector, from bind
}

// bind checks the lengths and resolves each feature name to its position in known.
func (m *LogReg) bind(known []string) error {
	if len(m.Mean) != len(m.Features) || len(m.Std) != len(m.Features) || len(m.Weights) != len(m.Features) {
		return fmt.Errorf("%d features, %d means, %d stds, %d weights", len(m.Features), len(m.Mean), len(m.Std), len(m.Weights))
	}
	m.idx = make([]int, len(m.Features))
	for i, f := range m.Features {
		if m.idx[i] = slices.Index(known, f); m.idx[i] < 0 {
			return fmt.Errorf("unknown feature %q", f)
		}
	}
	return nil
}

// score returns p in [0, 1] for a full feature vector.
func (m LogReg) score(x []float64) float64 {
	z := m.Bias
	for i, j := range m.idx {
		sd := m.Std[i]
		if sd == 0 {
			sd = 1
		}
		z += m.Weights[i] * (x[j] - m.Mean[i]) / sd
	}
	return 1 / (1 + math.Exp(-z))
}

// fitLogReg fits a LogReg over the named features (of known) to full feature vectors xs and
// labels y: the features are standardised (a constant one gets std 1), then fitLogistic runs.
func fitLogReg(xs [][]float64, y []bool, features, known []string, lambda float64, iters int, balance bool) (LogReg, error) {
	d := len(features)
	m := LogReg{Features: features, Mean: make([]float64, d), Std: make([]float64, d), Weights: make([]float64, d)}
	if err := m.bind(known); err != nil {
		return m, err
	}
	n := len(xs)
	if n == 0 || n != len(y) {
		return m, fmt.Errorf("%d rows, %d labels", n, len(y))
	}
	for _, x := range xs {
		for i, j := range m.idx {
			m.Mean[i] += x[j]
		}
	}
	for i := range m.Mean {
		m.Mean[i] /= float64(n)
	}
	for _, x := range xs {
		for i, j := range m.idx {
			m.Std[i] += (x[j] - m.Mean[i]) * (x[j] - m.Mean[i])
		}
	}
	for i := range m.Std {
		m.Std[i] = math.Sqrt(m.Std[i] / float64(n))
		if m.Std[i] < 1e-9 {
			m.Std[i] = 1
		}
	}
	rows := make([][]float64, n)
	for k, x := range xs {
		rows[k] = make([]float64, d)
		for i, j := range m.idx {
			rows[k][i] = (x[j] - m.Mean[i]) / m.Std[i]
		}
	}
	m.Weights, m.Bias = fitLogistic(rows, y, lambda, iters, balance)
	return m, nil
}
