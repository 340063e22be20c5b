package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// The learned router (Adaptive-RAG, Jeong et al., NAACL 2024: a small classifier picks the
// retrieval strategy per question, trained on which strategy answered each training question).
// Here the label of a training question is the route whose retrieval ranks its gold documents
// best (recall@5, then recall@10, then the cheaper route), and the classifier is multinomial
// logistic regression over RouterFeatureNames: the rule features, counts of linked entities,
// and first-pass retrieval signals. No feature reads a raw embedding or a cosine: hybrid's
// relative-score fusion is scaled to [0, 1] per query and the rest are ranks, overlaps and
// counts, so one model serves the lexical and e5 embedders (docs/multi-hop.md).

// RouterFeatureNames are the learned router's features, in model order.
var RouterFeatureNames = []string{
	"relative_clause", "nested_relation", "scenario_then_question", "subordinate_clause", "anaphoric_second_question",
	"linked_entity_types", "lexical_signals", "linked_entities", "question_words",
	"hybrid_top", "hybrid_margin_1_2", "hybrid_margin_1_5", "bm25_vector_overlap5", "term_coverage3",
	"linked_covered5", "distinct_docs5", "hybrid_vector_agree1", "entities_top5",
}

// FirstPass is the retrieval the learned router looks at before it decides: BM25, vector and
// hybrid hits (best first) and the entity keys the top hybrid chunks mention.
type FirstPass struct {
	BM25, Vector, Hybrid []ariadne.ScoredChunk
	ChunkEntities        map[string][]string
	Groups               []string // the caller's: text analyses are cached for them only (callerScope)
}

// RouterFeatures computes the learned router's feature vector (RouterFeatureNames order).
func RouterFeatures(question string, linked []Linked, fp FirstPass) []float64 {
	f := Features(question, linked)
	b := func(name string) float64 {
		if f[name] > 0 {
			return 1
		}
		return 0
	}
	x := []float64{b("relative_clause"), b("nested_relation"), b("scenario_then_question"), b("subordinate_clause"),
		b("anaphoric_second_question"), math.Min(float64(f["linked_entity_types"]), 3), math.Log1p(float64(lexicalWeight(f))),
		math.Log1p(float64(len(linked))), math.Log1p(float64(len(textnorm.Words(question))))}
	score := func(i int) float64 {
		if i < len(fp.Hybrid) {
			return fp.Hybrid[i].Score
		}
		return 0
	}
	last := min(4, len(fp.Hybrid)-1)
	x = append(x, score(0), score(0)-score(1), score(0)-score(max(last, 0)))
	docs := func(cs []ariadne.ScoredChunk, n int) []string {
		var out []string
		for _, c := range cs {
			if len(out) == n {
				break
			}
			if !slices.Contains(out, c.DocID) {
				out = append(out, c.DocID)
			}
		}
		return out
	}
	bd, vd := docs(fp.BM25, 5), docs(fp.Vector, 5)
	inter := 0
	for _, d := range bd {
		if slices.Contains(vd, d) {
			inter++
		}
	}
	overlap := 0.0
	if union := len(bd) + len(vd) - inter; union > 0 {
		overlap = float64(inter) / float64(union)
	}
	x = append(x, overlap, coverage(newQuestionTerms(question, nil, callerScope(fp.Groups)), fp.Hybrid, 3))
	ents := map[string]bool{}
	for i, c := range fp.Hybrid {
		if i == 5 {
			break
		}
		for _, k := range fp.ChunkEntities[c.ID] {
			ents[k] = true
		}
	}
	covered := 0.0
	if len(linked) > 0 {
		n := 0
		for _, l := range linked {
			if ents[l.Key] {
				n++
			}
		}
		covered = float64(n) / float64(len(linked))
	}
	agree := 0.0
	if len(fp.Hybrid) > 0 && len(fp.Vector) > 0 && fp.Hybrid[0].DocID == fp.Vector[0].DocID {
		agree = 1
	}
	x = append(x, covered, float64(len(docs(fp.Hybrid, 5)))/5, agree, math.Log1p(float64(len(ents))))
	return x
}

// RouterModel is a trained multinomial logistic regression over RouterFeatureNames: p(route) =
// softmax(W·z + b) with z the features standardized by Mean and Std. The JSON file
// (router_model.json, embedded) also names what it was trained on and how well it did on data
// it did not see.
type RouterModel struct {
	Version  string          `json:"version"`
	Features []string        `json:"features"`
	Routes   []ariadne.Route `json:"routes"`
	Mean     []float64       `json:"mean"`
	Std      []float64       `json:"std"`
	Weights  [][]float64     `json:"weights"` // per route: one weight per feature, then the bias
	// MinConfidence: below this top probability the rule router decides.
	MinConfidence float64            `json:"min_confidence"`
	TrainedOn     []string           `json:"trained_on"`
	Examples      int                `json:"examples"`
	CVAccuracy    float64            `json:"cv_accuracy"`       // k-fold, against the outcome labels
	HeldOut       map[string]float64 `json:"held_out_accuracy"` // per set, trained on the other sets
	Lambda        float64            `json:"lambda"`
}

//go:embed router_model.json
var routerModelJSON []byte

// LoadRouterModel parses a model and checks it against RouterFeatureNames. Errors wrap
// ariadne.ErrInvalid.
func LoadRouterModel(raw []byte) (*RouterModel, error) {
	var m RouterModel
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("agent: router model: %v: %w", err, ariadne.ErrInvalid)
	}
	d := len(RouterFeatureNames)
	ok := slices.Equal(m.Features, RouterFeatureNames) && len(m.Mean) == d && len(m.Std) == d && len(m.Routes) == len(m.Weights) && len(m.Routes) > 0
	for i, w := range m.Weights {
		ok = ok && len(w) == d+1 && m.Routes[i].Valid()
	}
	if !ok {
		return nil, fmt.Errorf("agent: router model %q does not match this build's features: %w", m.Version, ariadne.ErrInvalid)
	}
	return &m, nil
}

// DefaultRouterModel returns the versioned model embedded in the binary.
func DefaultRouterModel() (*RouterModel, error) { return LoadRouterModel(routerModelJSON) }

// Probabilities returns p(route) for a feature vector, in m.Routes order.
func (m *RouterModel) Probabilities(x []float64) []float64 {
	z := make([]float64, len(x))
	for i := range x {
		s := m.Std[i]
		if s == 0 {
			s = 1
		}
		z[i] = (x[i] - m.Mean[i]) / s
	}
	return softmax(logits(m.Weights, z))
}

func logits(w [][]float64, z []float64) []float64 {
	out := make([]float64, len(w))
	for c, wc := range w {
		v := wc[len(z)]
		for i, zi := range z {
			v += wc[i] * zi
		}
		out[c] = v
	}
	return out
}

func softmax(l []float64) []float64 {
	mx := math.Inf(-1)
	for _, v := range l {
		mx = math.Max(mx, v)
	}
	out := make([]float64, len(l))
	var s float64
	for i, v := range l {
		out[i] = math.Exp(v - mx)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

// LearnedRouter routes with a RouterModel over the first pass; when the model is unsure (top
// probability below its MinConfidence) or no first pass is available, the rule router decides
// and the trace says why.
type LearnedRouter struct {
	Model    *RouterModel
	Fallback RuleRouter
}

// Route without a first pass: the rules decide (Retriever calls RouteFirstPass instead).
func (l LearnedRouter) Route(ctx context.Context, question string, linked []Linked) Decision {
	d := l.Fallback.Route(ctx, question, linked)
	d.Reasons = append([]string{"learned router: no first-pass retrieval; rules used"}, d.Reasons...)
	return d
}

// RouteFirstPass classifies the question from its features and first-pass retrieval.
func (l LearnedRouter) RouteFirstPass(ctx context.Context, question string, linked []Linked, fp FirstPass) Decision {
	x := RouterFeatures(question, linked, fp)
	p := l.Model.Probabilities(x)
	best := 0
	for i := range p {
		if p[i] > p[best] {
			best = i
		}
	}
	var probs []string
	for i, r := range l.Model.Routes {
		probs = append(probs, fmt.Sprintf("p(%s)=%.2f", r, p[i]))
	}
	if p[best] < l.Model.MinConfidence {
		d := l.Fallback.Route(ctx, question, linked)
		d.Reasons = append([]string{fmt.Sprintf("learned router %s unsure (%s < %.2f); rules used", l.Model.Version,
			strings.Join(probs, " "), l.Model.MinConfidence)}, d.Reasons...)
		return d
	}
	d := Decision{Route: l.Model.Routes[best], Classifier: "learned:" + l.Model.Version, Features: Features(question, linked)}
	d.Reasons = append(d.Reasons, strings.Join(probs, " "))
	d.Reasons = append(d.Reasons, l.Model.explain(x, best, 3)...)
	return d
}

// explain lists the n features that pushed the chosen route's logit up the most, relative to
// the other routes' mean.
func (m *RouterModel) explain(x []float64, c, n int) []string {
	type contrib struct {
		name string
		v    float64
	}
	var cs []contrib
	for i := range x {
		s := m.Std[i]
		if s == 0 {
			s = 1
		}
		z := (x[i] - m.Mean[i]) / s
		var other float64
		for k := range m.Weights {
			if k != c {
				other += m.Weights[k][i]
			}
		}
		other /= float64(max(len(m.Weights)-1, 1))
		cs = append(cs, contrib{m.Features[i], (m.Weights[c][i] - other) * z})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].v > cs[j].v })
	var out []string
	for i := 0; i < n && i < len(cs) && cs[i].v > 0; i++ {
		out = append(out, fmt.Sprintf("%s=%.2f (+%.2f)", cs[i].name, x[indexOf(m.Features, cs[i].name)], cs[i].v))
	}
	return out
}

func indexOf(xs []string, s string) int { return slices.Index(xs, s) }

// firstPassRouter is a router that wants the first-pass retrieval (LearnedRouter).
type firstPassRouter interface {
	RouteFirstPass(ctx context.Context, question string, linked []Linked, fp FirstPass) Decision
}

// FirstPass runs the learned router's first pass for a question: BM25 and vector search (10 hits
// each), the hybrid search (Candidates hits; in Retrieve, the one its routes reuse) and the
// entities of the top five hybrid chunks, all as the caller (groups).
func (r *Retriever) FirstPass(ctx context.Context, question string, groups []string, vec []float32, tr *Trace) (FirstPass, error) {
	return r.firstPass(ctx, Request{Question: question, Groups: groups}, vec, tr)
}

func (r *Retriever) firstPass(ctx context.Context, req Request, vec []float32, tr *Trace) (FirstPass, error) {
	question, groups := req.Question, req.Groups
	fp := FirstPass{Groups: groups}
	terms := textnorm.SearchTerms(question)
	// The three searches are independent: they run at once.
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		fp.BM25, err = r.search(gctx, ariadne.SearchBM25, ariadne.SearchQuery{Text: question, Terms: terms, Groups: groups, Limit: 10}, tr)
		return err
	})
	g.Go(func() (err error) {
		fp.Vector, err = r.search(gctx, ariadne.SearchVector, ariadne.SearchQuery{Vector: vec, Groups: groups, Limit: 10}, tr)
		return err
	})
	g.Go(func() (err error) {
		fp.Hybrid, err = r.questionSearch(gctx, ariadne.SearchHybrid, req, vec, tr)
		return err
	})
	if err := g.Wait(); err != nil {
		return fp, err
	}
	var top []string
	for i := 0; i < len(fp.Hybrid) && i < 5; i++ {
		top = append(top, fp.Hybrid[i].ID)
	}
	var err error
	fp.ChunkEntities, err = r.graph.EntitiesOfChunks(ctx, top, groups)
	return fp, err
}

// RouterInput links the question, embeds it and runs the first pass: what the learned router's
// training command records per question (cmd/eval route-data).
func (r *Retriever) RouterInput(ctx context.Context, question string, groups []string) ([]Linked, FirstPass, error) {
	tr := newTrace()
	linked, err := r.Link(ctx, question, groups)
	if err != nil {
		return nil, FirstPass{}, err
	}
	linked = wholeLinks(linked)
	vec, err := r.embedQuery(ctx, question, tr)
	if err != nil {
		return nil, FirstPass{}, err
	}
	fp, err := r.FirstPass(ctx, question, groups, vec, tr)
	return linked, fp, err
}
