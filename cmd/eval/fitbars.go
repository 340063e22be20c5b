package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/evaluation"
)

// fitBarsCmd fits the term-coverage generator's thresholds (agent.TermBars) on a question set of
// our own: every question is retrieved and answered once with the thresholds off, the generator's
// input is kept, and a grid of thresholds is replayed over those inputs.
type fitBarsCmd struct {
	common
	goldenArgs
	Out      string  `name:"out" help:"Write the fitted thresholds as JSON to this file."`
	Escalate bool    `name:"escalate" help:"Fit for an answerer that asks a question refused on simple or hybrid once more on multi_hop (simulated from the recorded passes; not an answerer setting: measured worse, docs/evaluation.md)."`
	Wrong    float64 `name:"wrong-cost" default:"1.5" help:"What a wrong answer costs against 1 for a right one (a refusal costs 0)."`
	Cross    bool    `name:"cross" help:"Also fit the bars for a best unit in the other script than the question (TermBars.BestCross, UnionCross)."`
	Dump     string  `name:"dump-units" help:"Also write, per question (JSON lines), its routed route's candidate units with their term coverage and the embedder's cosine to the question, then stop."`
}

// recordingGenerator keeps each question's last generation input.
type recordingGenerator struct {
	agent.Generator
	mu     sync.Mutex
	inputs map[string]agent.GenerationInput
}

func (r *recordingGenerator) Generate(ctx context.Context, in agent.GenerationInput) (string, error) {
	r.mu.Lock()
	r.inputs[in.Question] = in
	r.mu.Unlock()
	return r.Generator.Generate(ctx, in)
}

func (c fitBarsCmd) run(ctx context.Context, stdout, stderr io.Writer) error {
	qs, err := evaluation.LoadGolden(c.Golden)
	if err != nil {
		return err
	}
	docs, problems, err := corpus.Load(os.DirFS(c.Corpus))
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "skipped malformed document %s: %s\n", p.Path, p.Reason)
	}
	e, err := c.open(ctx, stderr, docs, c.Index)
	if err != nil {
		return err
	}
	defer e.closeAll()
	// Thresholds at zero: the generator answers whenever it has a unit, so every input is kept;
	// each question is asked on its routed route and, when that is not multi_hop, on multi_hop
	// too (to simulate escalating a refusal there, --escalate).
	rec := &recordingGenerator{Generator: agent.TermExtractive{Lexicon: e.lexicon, Bars: agent.TermBars{Gain: 0.01}},
		inputs: map[string]agent.GenerationInput{}}
	a := agent.NewAnswerer(e.retriever, rec, e.index, agent.AnswerConfig{Chunks: e.graph, Lexicon: e.lexicon}, agent.Hooks{}, e.log)
	exs := make([]agent.BarsExample, len(qs))
	for i, q := range qs {
		exs[i] = agent.BarsExample{Answerable: q.Type != "no_answer" && q.Type != "acl", GoldDocs: q.GoldDocs}
		for pass, mode := range []string{"auto", string(ariadne.RouteMultiHop)} {
			delete(rec.inputs, q.Question)
			ans, err := a.Answer(ctx, agent.Request{Question: q.Question, Groups: q.UserGroups, TopK: 8, Mode: mode}, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", q.ID, err)
			}
			in, ok := rec.inputs[q.Question]
			if pass == 0 {
				exs[i].Input, exs[i].Reached = in, ok
				exs[i].Input.Route = ans.Route // also when weak evidence stopped it before the generator
				if ans.Route == ariadne.RouteMultiHop {
					break
				}
			} else {
				exs[i].Escalated, exs[i].EscalatedReached = in, ok
			}
		}
	}
	fmt.Fprintf(stderr, "recorded the generation inputs of %d questions\n", len(qs))
	if c.Dump != "" {
		return dumpUnits(ctx, c.Dump, qs, exs, e)
	}
	agent.WrongCost = c.Wrong
	type row struct {
		name string
		out  agent.BarsOutcome
	}
	var rows []row
	var final agent.TermBars
	var folds []agent.TermBars
	for _, escalate := range []bool{false, true} {
		f := agent.NewBarsFitter(exs, e.lexicon, escalate)
		f.Cross = c.Cross
		// 4-fold cross-validation of the fitting procedure, against the hand-set thresholds on
		// the same held-out folds.
		var cvFit, cvWave agent.BarsOutcome
		var fs []agent.TermBars
		for k := range 4 {
			held := func(i int) bool { return i%4 == k }
			bars := f.Fit(func(i int) bool { return !held(i) })
			fs = append(fs, bars)
			cvFit = cvFit.Add(f.Score(bars, held))
			cvWave = cvWave.Add(f.Score(agent.WaveOneBars, held))
		}
		esc := "off"
		if escalate {
			esc = "on"
		}
		rows = append(rows, row{"escalation " + esc + ", wave 1's thresholds", cvWave}, row{"escalation " + esc + ", fitted per fold", cvFit})
		if escalate == c.Escalate {
			final, folds = f.Fit(nil), fs
			rows = append(rows, row{fmt.Sprintf("escalation %s, fitted on every question %+v (in-sample)", esc, final), f.Score(final, nil)},
				row{fmt.Sprintf("escalation %s, the shipped agent.DefaultTermBars %+v (in-sample)", esc, agent.DefaultTermBars), f.Score(agent.DefaultTermBars, nil)})
		}
	}
	fmt.Fprintf(stdout, "## Term thresholds fitted on %s (%d questions)\n\n", c.Golden, len(qs))
	fmt.Fprintf(stdout, "Objective: a right answer (answered, citing a gold document) counts 1, a wrong answer −%g. "+
		"Cross-validated: each question scored by thresholds fitted on the other three folds (questions by index mod 4).\n\n", c.Wrong)
	fmt.Fprintln(stdout, "| thresholds | 4-fold held-out outcome |")
	fmt.Fprintln(stdout, "|---|---|")
	for _, r := range rows {
		fmt.Fprintf(stdout, "| %s | %s |\n", r.name, r.out)
	}
	fmt.Fprintf(stdout, "\nPer fold: %+v\n", folds)
	if c.Out == "" {
		return nil
	}
	raw, err := json.MarshalIndent(final, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(c.Out, append(raw, '\n'), 0o644)
}

// dumpUnits writes each question's routed-route candidate units (agent.TermExtractive.ScoredUnits)
// with the cosine of their passage vector to the question's query vector, one JSON object per
// question: what a new answerability rule can be fitted and checked on.
func dumpUnits(ctx context.Context, path string, qs []evaluation.Question, exs []agent.BarsExample, e *env) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	type unit struct {
		agent.UnitCoverage
		Cos float64 `json:"cos"`
	}
	for i, q := range qs {
		row := struct {
			evaluation.Question
			Route   ariadne.Route `json:"route"`
			Reached bool          `json:"reached"`
			Units   []unit        `json:"units"`
		}{Question: q, Route: exs[i].Input.Route, Reached: exs[i].Reached}
		if exs[i].Reached {
			us := agent.TermExtractive{Lexicon: e.lexicon}.ScoredUnits(exs[i].Input)
			qv, err := e.cached.EmbedQuery(ctx, q.Question)
			if err != nil {
				return err
			}
			aclOf := map[string][]string{}
			for _, f := range exs[i].Input.Fragments {
				aclOf[f.Chunk.ID] = f.Chunk.ACL
			}
			texts, acls := make([]string, len(us)), make([][]string, len(us))
			for j, u := range us {
				texts[j], acls[j] = u.Text, aclOf[u.ChunkID]
			}
			vs, err := agent.EmbedUnits(ctx, e.cached, texts, acls)
			if err != nil {
				return err
			}
			for j, u := range us {
				row.Units = append(row.Units, unit{u, agent.Cosine(qv, vs[j])})
			}
		}
		if err := enc.Encode(row); err != nil {
			return err
		}
	}
	return nil
}
