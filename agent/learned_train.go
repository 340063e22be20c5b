package agent

import (
	"fmt"
	"math"
	"slices"

	"github.com/ariadne-graphrag/ariadne"
)

// RouterExample is one training question for the learned router: its features, the recall its
// gold documents get under each route, and the set it comes from.
type RouterExample struct {
	ID       string                    `json:"id"`
	Set      string                    `json:"set"`
	Embedder string                    `json:"embedder"`
	Features []float64                 `json:"features"`
	Recall5  map[ariadne.Route]float64 `json:"recall5"`
	Recall10 map[ariadne.Route]float64 `json:"recall10"`
}

// routeOrder lists the model's routes.
var routeOrder = []ariadne.Route{ariadne.RouteSimple, ariadne.RouteHybrid, ariadne.RouteMultiHop}

// tiePreference orders routes for ties in recall: hybrid first (one Weaviate query, like simple,
// and the better of the two wherever they differ on the training sets), then simple, then
// multi_hop (several graph reads and searches).
var tiePreference = []ariadne.Route{ariadne.RouteHybrid, ariadne.RouteSimple, ariadne.RouteMultiHop}

// OutcomeLabel is the route that ranks the example's gold best: highest recall@5, then
// recall@10, then tiePreference.
func (e RouterExample) OutcomeLabel() ariadne.Route {
	best := tiePreference[0]
	for _, r := range tiePreference[1:] {
		if e.Recall5[r] > e.Recall5[best]+1e-9 || math.Abs(e.Recall5[r]-e.Recall5[best]) < 1e-9 && e.Recall10[r] > e.Recall10[best]+1e-9 {
			best = r
		}
	}
	return best
}

// TrainRouter fits multinomial logistic regression (softmax, L2 penalty lambda on the weights,
// not the biases) on standardized features by full-batch gradient descent (iters steps, rate
// 0.5), labels from OutcomeLabel. Deterministic: zero initial weights.
func TrainRouter(ex []RouterExample, lambda float64, iters int) (*RouterModel, error) {
	if len(ex) == 0 {
		return nil, fmt.Errorf("agent: no router examples: %w", ariadne.ErrInvalid)
	}
	d := len(RouterFeatureNames)
	for _, e := range ex {
		if len(e.Features) != d {
			return nil, fmt.Errorf("agent: example %s has %d features, want %d: %w", e.ID, len(e.Features), d, ariadne.ErrInvalid)
		}
	}
	m := &RouterModel{Features: slices.Clone(RouterFeatureNames), Routes: slices.Clone(routeOrder), Mean: make([]float64, d),
		Std: make([]float64, d), Lambda: lambda, Examples: len(ex)}
	n := float64(len(ex))
	for _, e := range ex {
		for i, v := range e.Features {
			m.Mean[i] += v / n
		}
	}
	for _, e := range ex {
		for i, v := range e.Features {
			m.Std[i] += (v - m.Mean[i]) * (v - m.Mean[i]) / n
		}
	}
	for i := range m.Std {
		m.Std[i] = math.Sqrt(m.Std[i])
		if m.Std[i] < 1e-9 {
			m.Std[i] = 1
		}
	}
	k := len(m.Routes)
	z := make([][]float64, len(ex))
	y := make([]int, len(ex))
	for j, e := range ex {
		z[j] = make([]float64, d)
		for i, v := range e.Features {
			z[j][i] = (v - m.Mean[i]) / m.Std[i]
		}
		y[j] = slices.Index(m.Routes, e.OutcomeLabel())
	}
	w := make([][]float64, k)
	for c := range w {
		w[c] = make([]float64, d+1)
	}
	const rate = 0.5
	for range iters {
		grad := make([][]float64, k)
		for c := range grad {
			grad[c] = make([]float64, d+1)
		}
		for j := range z {
			p := softmax(logits(w, z[j]))
			for c := range k {
				g := p[c]
				if c == y[j] {
					g--
				}
				for i, zi := range z[j] {
					grad[c][i] += g * zi / n
				}
				grad[c][d] += g / n
			}
		}
		for c := range k {
			for i := 0; i < d; i++ {
				w[c][i] -= rate * (grad[c][i] + lambda*w[c][i])
			}
			w[c][d] -= rate * grad[c][d]
		}
	}
	m.Weights = w
	return m, nil
}

// Predict returns the model's route for a feature vector (argmax, no fallback).
func (m *RouterModel) Predict(x []float64) ariadne.Route {
	p := m.Probabilities(x)
	best := 0
	for i := range p {
		if p[i] > p[best] {
			best = i
		}
	}
	return m.Routes[best]
}

// CrossValidate trains on all folds but one and predicts the held-out fold, for folds folds
// assigned round-robin in example order; it returns the prediction for every example, each from
// a model that never saw it.
func CrossValidate(ex []RouterExample, folds int, lambda float64, iters int) ([]ariadne.Route, error) {
	pred := make([]ariadne.Route, len(ex))
	for f := range folds {
		var train []RouterExample
		for j, e := range ex {
			if j%folds != f {
				train = append(train, e)
			}
		}
		m, err := TrainRouter(train, lambda, iters)
		if err != nil {
			return nil, err
		}
		for j, e := range ex {
			if j%folds == f {
				pred[j] = m.Predict(e.Features)
			}
		}
	}
	return pred, nil
}

// LeaveSetOut predicts every example of set s with a model trained on the other sets only.
func LeaveSetOut(ex []RouterExample, set string, lambda float64, iters int) ([]ariadne.Route, []RouterExample, error) {
	var train, test []RouterExample
	for _, e := range ex {
		if e.Set == set {
			test = append(test, e)
		} else {
			train = append(train, e)
		}
	}
	m, err := TrainRouter(train, lambda, iters)
	if err != nil {
		return nil, nil, err
	}
	pred := make([]ariadne.Route, len(test))
	for j, e := range test {
		pred[j] = m.Predict(e.Features)
	}
	return pred, test, nil
}
