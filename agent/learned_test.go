package agent

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func TestOutcomeLabel(t *testing.T) {
	s, h, m := ariadne.RouteSimple, ariadne.RouteHybrid, ariadne.RouteMultiHop
	for _, tc := range []struct {
		r5, r10 [3]float64
		want    ariadne.Route
	}{
		{[3]float64{1, 1, 1}, [3]float64{1, 1, 1}, h},         // a full tie goes to hybrid
		{[3]float64{1, 0.5, 1}, [3]float64{1, 1, 1}, s},       // then to simple before multi_hop
		{[3]float64{0.5, 0.5, 1}, [3]float64{1, 1, 1}, m},     // best recall@5
		{[3]float64{0.5, 0.5, 0.5}, [3]float64{1, 0.5, 1}, s}, // recall@5 ties, recall@10 decides, preferred of the rest
		{[3]float64{0, 0.5, 0}, [3]float64{1, 0.5, 1}, h},
	} {
		e := RouterExample{Recall5: map[ariadne.Route]float64{s: tc.r5[0], h: tc.r5[1], m: tc.r5[2]},
			Recall10: map[ariadne.Route]float64{s: tc.r10[0], h: tc.r10[1], m: tc.r10[2]}}
		if got := e.OutcomeLabel(); got != tc.want {
			t.Errorf("OutcomeLabel(%v, %v) = %s, want %s", tc.r5, tc.r10, got, tc.want)
		}
	}
}

// examples whose label follows two features: relative_clause → multi_hop, else lexical_signals
// → hybrid, else simple; the other features are noise-free constants.
func syntheticExamples(n int) []RouterExample {
	d := len(RouterFeatureNames)
	var out []RouterExample
	for i := range n {
		x := make([]float64, d)
		x[8] = math.Log1p(float64(5 + i%7)) // question_words varies, carries no label
		r5 := map[ariadne.Route]float64{ariadne.RouteSimple: 1, ariadne.RouteHybrid: 1, ariadne.RouteMultiHop: 1}
		switch i % 3 {
		case 0:
			x[0] = 1
			r5[ariadne.RouteSimple], r5[ariadne.RouteHybrid] = 0.5, 0.5
		case 1:
			x[6] = math.Log1p(1)
			r5[ariadne.RouteSimple] = 0
		default:
			r5[ariadne.RouteHybrid] = 0.5
		}
		out = append(out, RouterExample{ID: string(rune('a' + i%26)), Set: []string{"one", "two"}[i%2], Features: x, Recall5: r5, Recall10: r5})
	}
	return out
}

func TestTrainRouterLearnsSeparableRoutes(t *testing.T) {
	ex := syntheticExamples(60)
	pred, err := CrossValidate(ex, 5, 0.01, 300)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range ex {
		if pred[i] != e.OutcomeLabel() {
			t.Fatalf("example %d: CV predicted %s, want %s", i, pred[i], e.OutcomeLabel())
		}
	}
	p, test, err := LeaveSetOut(ex, "two", 0.01, 300)
	if err != nil || len(test) != 30 {
		t.Fatalf("leave-set-out: %d test examples, err %v", len(test), err)
	}
	for i, e := range test {
		if p[i] != e.OutcomeLabel() {
			t.Fatalf("held-out %d: %s, want %s", i, p[i], e.OutcomeLabel())
		}
	}
	if _, err := TrainRouter([]RouterExample{{Features: []float64{1}}}, 0.01, 10); err == nil {
		t.Fatal("a short feature vector must be rejected")
	}
}

func TestLoadRouterModelRejectsMismatch(t *testing.T) {
	for _, raw := range []string{`{`, `{"version":"x","features":["a"],"routes":["simple"],"mean":[0],"std":[1],"weights":[[0,0]]}`} {
		if _, err := LoadRouterModel([]byte(raw)); err == nil {
			t.Errorf("LoadRouterModel(%s) accepted", raw)
		}
	}
}

// The learned router falls back to the rules when it is unsure, and says so.
func TestLearnedRouterFallsBackWhenUnsure(t *testing.T) {
	m, err := TrainRouter(syntheticExamples(30), 0.01, 200)
	if err != nil {
		t.Fatal(err)
	}
	m.Version = "test"
	m.MinConfidence = 1.01 // never sure
	d := LearnedRouter{Model: m}.RouteFirstPass(context.Background(), "Сколько пекарен у клиента?", nil, FirstPass{})
	if d.Classifier != "rules" || !strings.Contains(d.Reasons[0], "learned router test unsure") {
		t.Fatalf("decision %+v", d)
	}
	m.MinConfidence = 0
	d = LearnedRouter{Model: m}.RouteFirstPass(context.Background(), "Сколько пекарен у клиента?", nil, FirstPass{})
	if d.Classifier != "learned:test" || d.Route != ariadne.RouteSimple {
		t.Fatalf("decision %+v", d)
	}
}

// The versioned model (router_model.json) loads, names its training sets (never the golden dev
// set), and routes fixed feature vectors: the training mean (z = 0: the biases decide) and a
// question with a code and a clear first pass both go to hybrid, with confidence enough that
// the learned router, not the rules, decides.
func TestVersionedRouterModel(t *testing.T) {
	m, err := DefaultRouterModel()
	if err != nil {
		t.Fatal(err)
	}
	if m.Version != "router-v1" || m.Examples < 100 || m.CVAccuracy < 0.85 {
		t.Fatalf("model %s: %d examples, CV accuracy %.3f", m.Version, m.Examples, m.CVAccuracy)
	}
	for _, s := range m.TrainedOn {
		if strings.Contains(s, "golden") || strings.Contains(s, "dev") {
			t.Fatalf("trained on %s", s)
		}
	}
	code := make([]float64, len(RouterFeatureNames))
	code[6], code[7], code[8] = math.Log1p(1), math.Log1p(1), math.Log1p(6) // a code, one linked entity, six words
	code[9], code[10], code[11], code[12], code[13], code[14], code[15], code[16] = 1, 0.4, 0.7, 0.6, 1, 1, 1, 1
	for name, x := range map[string][]float64{"mean": m.Mean, "code": code} {
		p := m.Probabilities(x)
		if got := m.Predict(x); got != ariadne.RouteHybrid || p[1] < m.MinConfidence {
			t.Errorf("%s: route %s, p %v", name, got, p)
		}
	}
	d := LearnedRouter{Model: m}.RouteFirstPass(context.Background(), "What does error ERR-7713 mean?", nil, FirstPass{})
	if d.Classifier != "learned:router-v1" || !strings.HasPrefix(d.Reasons[0], "p(simple)=") {
		t.Fatalf("decision %+v", d)
	}
}
