package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/evaluation"
)

// routeDataCmd records, per question of a set, the learned router's features and the recall
// each forced route gets: the training data of train-router.
type routeDataCmd struct {
	common
	Kind    string `name:"kind" required:"" enum:"musique,xquad,golden" help:"Set format: musique, xquad (SQuAD JSON), golden (JSONL with --corpus)."`
	Dataset string `name:"dataset" required:"" help:"The set's file."`
	Corpus  string `name:"corpus" help:"golden: the corpus folder its questions are asked against."`
	Set     string `name:"set" required:"" help:"Name recorded for the set (leave-one-set-out groups by it)."`
	Index   bool   `name:"index" help:"(Re)index the set's corpus first."`
	Out     string `name:"out" required:"" help:"JSONL file the examples are appended to."`
}

func (d routeDataCmd) run(ctx context.Context, stderr io.Writer) error {
	var docs []ariadne.Document
	var qs []evaluation.Question
	var err error
	switch d.Kind {
	case "musique":
		docs, qs, err = evaluation.LoadMuSiQue(d.Dataset)
	case "xquad":
		docs, qs, err = evaluation.LoadXQuAD(d.Dataset, "ru")
	default:
		if d.Corpus == "" {
			return usageError{fmt.Errorf("--kind golden needs --corpus")}
		}
		if qs, err = evaluation.LoadGolden(d.Dataset); err == nil {
			docs, _, err = corpus.Load(os.DirFS(d.Corpus))
		}
	}
	if err != nil {
		return err
	}
	qs = d.limit(qs)
	e, err := d.open(ctx, stderr, docs, d.Index)
	if err != nil {
		return err
	}
	defer e.closeAll()
	f, err := os.OpenFile(d.Out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	n := 0
	for _, q := range qs {
		if len(q.GoldDocs) == 0 || q.Type == "acl" {
			continue
		}
		linked, fp, err := e.retriever.RouterInput(ctx, q.Question, q.UserGroups)
		if err != nil {
			return fmt.Errorf("%s: %w", q.ID, err)
		}
		ex := agent.RouterExample{ID: q.ID, Set: d.Set, Embedder: e.embedder, Features: agent.RouterFeatures(q.Question, linked, fp),
			Recall5: map[ariadne.Route]float64{}, Recall10: map[ariadne.Route]float64{}}
		for _, r := range []ariadne.Route{ariadne.RouteSimple, ariadne.RouteHybrid, ariadne.RouteMultiHop} {
			res, err := e.retriever.Retrieve(ctx, agent.Request{Question: q.Question, Groups: q.UserGroups, Mode: string(r), TopK: d.K})
			if err != nil {
				return fmt.Errorf("%s %s: %w", q.ID, r, err)
			}
			ranked := evaluation.DocRanking(res.Chunks)
			ex.Recall5[r], ex.Recall10[r] = evaluation.RecallAt(ranked, q.GoldDocs, 5), evaluation.RecallAt(ranked, q.GoldDocs, 10)
		}
		raw, _ := json.Marshal(ex)
		w.Write(append(raw, '\n'))
		n++
	}
	fmt.Fprintf(stderr, "route-data: %d examples of %s (%s) appended to %s\n", n, d.Set, e.embedder, d.Out)
	return w.Flush()
}

// trainRouterCmd fits the learned router on recorded examples and reports accuracy on data
// each model did not see: k-fold cross-validation and leave-one-set-out.
type trainRouterCmd struct {
	Data   []string `name:"data" required:"" help:"JSONL files written by route-data."`
	Out    string   `name:"out" help:"Write the model here (agent/router_model.json is the versioned one)."`
	Folds  int      `name:"folds" default:"5" help:"Cross-validation folds."`
	Lambda float64  `name:"lambda" default:"0.01" help:"L2 penalty."`
	Iters  int      `name:"iters" default:"400" help:"Gradient steps."`
	MinP   float64  `name:"min-confidence" default:"0.5" help:"Below this top probability the rules decide."`
	Ver    string   `name:"version" default:"router-v1" help:"Model version recorded in the file and the trace."`
}

func (t trainRouterCmd) run(stdout io.Writer) error {
	var ex []agent.RouterExample
	for _, p := range t.Data {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var e agent.RouterExample
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				f.Close()
				return fmt.Errorf("%s: %w", p, err)
			}
			ex = append(ex, e)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return err
		}
	}
	// Shuffle deterministically (by id) so folds mix the sets.
	sort.SliceStable(ex, func(i, j int) bool { return hashID(ex[i].ID+ex[i].Embedder) < hashID(ex[j].ID+ex[j].Embedder) })
	pred, err := agent.CrossValidate(ex, t.Folds, t.Lambda, t.Iters)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "## Learned router: %d examples, %d-fold cross-validation (lambda %g, %d steps)\n\n", len(ex), t.Folds, t.Lambda, t.Iters)
	fmt.Fprintln(stdout, "| set | embedder | n | labels s/h/m | CV accuracy | held-out-set accuracy | recall@5 simple | hybrid | multi_hop | oracle | CV-routed | held-out-routed |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	type key struct{ set, emb string }
	groups := map[key][]int{}
	var keys []key
	for i, e := range ex {
		k := key{e.Set, e.Embedder}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].set+keys[i].emb < keys[j].set+keys[j].emb })
	sets := map[string]bool{}
	for _, e := range ex {
		sets[e.Set] = true
	}
	heldPred := map[string]ariadne.Route{}
	heldAcc := map[string]float64{}
	for s := range sets {
		p, test, err := agent.LeaveSetOut(ex, s, t.Lambda, t.Iters)
		if err != nil {
			return err
		}
		ok := 0
		for i, e := range test {
			heldPred[e.ID+"|"+e.Embedder] = p[i]
			if p[i] == e.OutcomeLabel() {
				ok++
			}
		}
		heldAcc[s] = float64(ok) / float64(max(len(test), 1))
	}
	correct := 0
	for _, k := range keys {
		idx := groups[k]
		var cv, ho, lab [3]int
		var r5 [3]float64
		var oracle, cvr, hor float64
		for _, i := range idx {
			e := ex[i]
			l := e.OutcomeLabel()
			lab[slices.Index(routes(), l)]++
			if pred[i] == l {
				cv[0]++
				correct++
			}
			hp := heldPred[e.ID+"|"+e.Embedder]
			if hp == l {
				ho[0]++
			}
			for j, r := range routes() {
				r5[j] += e.Recall5[r]
			}
			oracle += e.Recall5[l]
			cvr += e.Recall5[pred[i]]
			hor += e.Recall5[hp]
		}
		n := float64(len(idx))
		fmt.Fprintf(stdout, "| %s | %s | %d | %d/%d/%d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", k.set, k.emb, len(idx),
			lab[0], lab[1], lab[2], float64(cv[0])/n, float64(ho[0])/n, r5[0]/n, r5[1]/n, r5[2]/n, oracle/n, cvr/n, hor/n)
	}
	cvAcc := float64(correct) / float64(len(ex))
	fmt.Fprintf(stdout, "\nCV accuracy (outcome labels) %.3f over %d examples.\n", cvAcc, len(ex))
	if t.Out == "" {
		return nil
	}
	m, err := agent.TrainRouter(ex, t.Lambda, t.Iters)
	if err != nil {
		return err
	}
	m.Version, m.MinConfidence, m.CVAccuracy, m.HeldOut = t.Ver, t.MinP, cvAcc, heldAcc
	for s := range sets {
		m.TrainedOn = append(m.TrainedOn, s)
	}
	sort.Strings(m.TrainedOn)
	raw, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "model %s written to %s (trained on %s)\n", m.Version, t.Out, strings.Join(m.TrainedOn, ", "))
	return os.WriteFile(t.Out, append(raw, '\n'), 0o644)
}

func routes() []ariadne.Route {
	return []ariadne.Route{ariadne.RouteSimple, ariadne.RouteHybrid, ariadne.RouteMultiHop}
}

// hashID is FNV-1a of s: a fixed shuffle order.
func hashID(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
