package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

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
	Out   string  `name:"out" help:"Write the fitted thresholds as JSON to this file."`
	Wrong float64 `name:"wrong-cost" default:"1.5" help:"What a wrong answer costs against 1 for a right one (a refusal costs 0)."`
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
	// Thresholds at zero: the generator answers whenever it has a unit, so every input is kept.
	rec := &recordingGenerator{Generator: agent.TermExtractive{Lexicon: e.lexicon, Bars: agent.TermBars{Gain: 0.01}},
		inputs: map[string]agent.GenerationInput{}}
	a := agent.NewAnswerer(e.retriever, rec, e.index, agent.AnswerConfig{Chunks: e.graph, Lexicon: e.lexicon}, agent.Hooks{}, e.log)
	for _, q := range qs {
		if _, err := a.Answer(ctx, agent.Request{Question: q.Question, Groups: q.UserGroups, TopK: 8}, nil); err != nil {
			return fmt.Errorf("%s: %w", q.ID, err)
		}
	}
	fmt.Fprintf(stderr, "recorded %d generation inputs of %d questions\n", len(rec.inputs), len(qs))
	exs := make([]agent.BarsExample, len(qs))
	for i, q := range qs {
		in, ok := rec.inputs[q.Question]
		exs[i] = agent.BarsExample{Input: in, Reached: ok, Answerable: q.Type != "no_answer" && q.Type != "acl", GoldDocs: q.GoldDocs}
	}
	agent.WrongCost = c.Wrong
	f := agent.NewBarsFitter(exs, e.lexicon)
	// 4-fold cross-validation of the fitting procedure, against the hand-set thresholds on the
	// same held-out folds; then the thresholds fitted on every question.
	var cvFit, cvWave [2]agent.BarsOutcome
	var folds []agent.TermBars
	for k := range 4 {
		held := func(i int) bool { return i%4 == k }
		bars := f.Fit(func(i int) bool { return !held(i) })
		folds = append(folds, bars)
		for j, mh := range []bool{false, true} {
			cvFit[j] = cvFit[j].Add(f.Score(bars, mh, held))
			cvWave[j] = cvWave[j].Add(f.Score(agent.WaveOneBars, mh, held))
		}
	}
	final := f.Fit(nil)
	fmt.Fprintf(stdout, "## Term thresholds fitted on %s (%d questions)\n\n", c.Golden, len(qs))
	fmt.Fprintf(stdout, "Objective: a right answer (answered, citing a gold document) counts 1, a wrong answer −2. "+
		"Cross-validated: each question scored by thresholds fitted on the other three folds (questions by index mod 4).\n\n")
	fmt.Fprintln(stdout, "| thresholds | routes | 4-fold held-out outcome |")
	fmt.Fprintln(stdout, "|---|---|---|")
	for j, routes := range []string{"simple, hybrid", "multi_hop"} {
		fmt.Fprintf(stdout, "| wave 1, hand-set %+v | %s | %s |\n", agent.WaveOneBars, routes, cvWave[j])
		fmt.Fprintf(stdout, "| fitted per fold | %s | %s |\n", routes, cvFit[j])
	}
	fmt.Fprintf(stdout, "\nPer fold: %+v\n\nFitted on every question: %+v; on them: %s; %s\n", folds, final, f.Score(final, false, nil), f.Score(final, true, nil))
	if c.Out == "" {
		return nil
	}
	raw, err := json.MarshalIndent(final, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(c.Out, append(raw, '\n'), 0o644)
}
