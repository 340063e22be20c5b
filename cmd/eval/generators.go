package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/evaluation"
)

// tokenCount accumulates the chat model's token usage (setup.Chat.OnUsage).
type tokenCount struct{ prompt, completion, calls atomic.Int64 }

func (t *tokenCount) add(_ string, prompt, completion int) {
	t.prompt.Add(int64(prompt))
	t.completion.Add(int64(completion))
	t.calls.Add(1)
}

// generatorRun is one generator's answers: the shared report plus what the traces show.
type generatorRun struct {
	Name              string                   `json:"name"`
	Generator         string                   `json:"generator"`
	Report            evaluation.AnswerReport  `json:"report"`
	Questions         int                      `json:"questions"`
	Attempts          int                      `json:"attempts"`
	InvalidAttempts   int                      `json:"invalid_attempts"`    // outputs that broke the contract, before retries
	InvalidFinal      int                      `json:"invalid_after_retry"` // questions refused because every attempt broke the contract
	Retried           int                      `json:"retried"`             // questions that needed more than one attempt
	Judged            int                      `json:"judged"`              // answered questions whose claims the judge saw
	JudgeAllPass      int                      `json:"judge_all_pass"`      // … and passed every one of them
	GateFallbacks     int                      `json:"gate_fallbacks"`      // gated: answers that are the gate's, the model's not verifying
	ModelCalls        int64                    `json:"model_calls"`
	PromptTokens      int64                    `json:"prompt_tokens"`
	CompletionTokens  int64                    `json:"completion_tokens"`
	ModelMS           map[string][]float64     `json:"-"`
	RetrievalMS       map[string][]float64     `json:"-"`
	ModelLatency      map[string]latencySummar `json:"model_latency_ms"`     // route → generation + judge time
	RetrievalLatency  map[string]latencySummar `json:"retrieval_latency_ms"` // route → retrieval time
	ReasonsOfRefusals map[string]int           `json:"refusal_reasons"`
}

type latencySummar struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	N   int     `json:"n"`
}

// recording wraps an answerer and reads every answer's trace.
type recording struct {
	a        *agent.Answerer
	run      *generatorRun
	tokens   *tokenCount
	progress io.Writer // per-question lines (stderr)
}

func (r recording) Answer(ctx context.Context, req agent.Request, progress func(agent.Event)) (agent.Answer, error) {
	ans, err := r.a.Answer(ctx, req, progress)
	if err != nil || ans.Trace == nil {
		return ans, err
	}
	run := r.run
	run.Questions++
	route := string(ans.Route)
	if route == "" {
		route = "none"
	}
	tr := ans.Trace
	// The model's attempts: a gated answerer's trace also holds the gate's (AnswerConfig.Gate).
	var attempts []agent.Attempt
	gate := r.a.GateName()
	for _, at := range tr.Attempts {
		if gate == "" || at.Generator != gate {
			attempts = append(attempts, at)
		}
	}
	run.Attempts += len(attempts)
	invalid := 0
	for _, at := range attempts {
		if at.Outcome == "invalid" {
			invalid++
		}
	}
	run.InvalidAttempts += invalid
	if len(attempts) > 0 && invalid == len(attempts) && ans.Status == ariadne.StatusRefused {
		run.InvalidFinal++
	}
	if len(attempts) > 1 {
		run.Retried++
	}
	if tr.GateFallback != "" {
		run.GateFallbacks++
	}
	if ans.Status == ariadne.StatusAnswered && len(attempts) > 0 {
		if last := attempts[len(attempts)-1]; len(last.Verdicts) > 0 {
			run.Judged++
			all := true
			for _, v := range last.Verdicts {
				all = all && v.Supported
			}
			if all {
				run.JudgeAllPass++
			}
		}
	}
	if ans.Status != ariadne.StatusAnswered && ans.Reason != "" {
		key := ans.Reason
		if i := strings.IndexAny(key, "(:"); i > 0 {
			key = strings.TrimSpace(key[:i])
		}
		run.ReasonsOfRefusals[string(ans.Status)+": "+key]++
	}
	var modelMS, retrievalMS float64
	if tr.Trace != nil {
		modelMS, retrievalMS = tr.Timings["generation"]+tr.Timings["judge"], tr.Timings["total"]
		run.ModelMS[route] = append(run.ModelMS[route], modelMS)
		run.RetrievalMS[route] = append(run.RetrievalMS[route], retrievalMS)
	}
	if r.progress != nil {
		// One line per question, so that a long run can be read while it goes; rejected claims
		// show which level-3 check rejected them and why.
		var rejected []string
		if n := len(tr.Attempts); n > 0 {
			for _, v := range tr.Attempts[n-1].Verdicts {
				if !v.Supported {
					rejected = append(rejected, fmt.Sprintf("claim %d by %s: %s", v.Claim, v.By, v.Reason))
				}
			}
		}
		fmt.Fprintf(r.progress, "%s #%d %s route=%s attempts=%d model_ms=%.0f retrieval_ms=%.0f claims=%d rejected=%q reason=%q\n",
			run.Name, run.Questions, ans.Status, route, len(tr.Attempts), modelMS, retrievalMS,
			len(ans.Claims), strings.Join(rejected, "; "), ans.Reason)
	}
	return ans, nil
}

func summarize(m map[string][]float64) map[string]latencySummar {
	out := map[string]latencySummar{}
	all := []float64{}
	for r, xs := range m {
		out[r] = latencySummar{P50: evaluation.Percentile(xs, 50), P95: evaluation.Percentile(xs, 95), N: len(xs)}
		all = append(all, xs...)
	}
	if len(all) > 0 {
		out["all"] = latencySummar{P50: evaluation.Percentile(all, 50), P95: evaluation.Percentile(all, 95), N: len(all)}
	}
	return out
}

// compareGenerators answers qs once per generator over the same retriever and prints one table
// with a column per generator.
func (e *env) compareGenerators(ctx context.Context, qs []evaluation.Question, names []string, stdout io.Writer, docLang map[string]string) ([]generatorRun, error) {
	var runs []generatorRun
	for _, name := range names {
		a, err := e.answererFor(name)
		if err != nil {
			return nil, err
		}
		run := generatorRun{Name: name, Generator: a.Generator(), ModelMS: map[string][]float64{}, RetrievalMS: map[string][]float64{},
			ReasonsOfRefusals: map[string]int{}}
		p0, c0, n0 := e.tokens.prompt.Load(), e.tokens.completion.Load(), e.tokens.calls.Load()
		rep, err := evaluation.RunAnswers(ctx, recording{a: a, run: &run, tokens: e.tokens, progress: e.stderr}, e.graph, qs, 8, docLang)
		if err != nil {
			return nil, err
		}
		run.Report = rep
		run.PromptTokens, run.CompletionTokens, run.ModelCalls = e.tokens.prompt.Load()-p0, e.tokens.completion.Load()-c0, e.tokens.calls.Load()-n0
		run.ModelLatency, run.RetrievalLatency = summarize(run.ModelMS), summarize(run.RetrievalMS)
		fmt.Fprintf(e.stderr, "generator %s done: %d questions\n", name, run.Questions)
		runs = append(runs, run)
	}
	fmt.Fprintf(stdout, "\n### Generators side by side\n\n")
	generatorTable(stdout, runs)
	for _, run := range runs {
		fmt.Fprintf(stdout, "\n#### Answers of %s (%s)\n\n", run.Name, run.Generator)
		run.Report.Markdown(stdout)
	}
	return runs, nil
}

// answererFor builds the answerer of a generator name: extractive (extractive-v1), extractive-wave1
// (extractive-v1 with wave 1's hand-set thresholds), extractive-v2
// (the fitted evidence model with calibrated refusal); llm (the configured chat
// model, its default citation mode, the support judge); llm-units, llm-quotes (a mode forced);
// any of the llm names with "-nojudge" (no level 3) and/or "-gated" or "-ungated" (answerability
// decided by extractive-v1, AnswerConfig.Gate, or by the model; without either suffix
// --answerability decides: auto gates a small model).
func (e *env) answererFor(name string) (*agent.Answerer, error) {
	switch name {
	case "extractive":
		return agent.NewAnswerer(e.retriever, agent.TermExtractive{Lexicon: e.lexicon}, e.index, agent.AnswerConfig{Chunks: e.graph, Lexicon: e.lexicon}, agent.Hooks{}, e.log), nil
	case "extractive-wave1":
		gen := agent.TermExtractive{Lexicon: e.lexicon, Bars: agent.WaveOneBars}
		return agent.NewAnswerer(e.retriever, gen, e.index, agent.AnswerConfig{Chunks: e.graph, Lexicon: e.lexicon}, agent.Hooks{}, e.log), nil
	case "extractive-v2":
		gen := agent.Extractive{Ranker: agent.EvidenceRanker{Embedder: e.cached, Lexicon: e.lexicon}}
		return agent.NewAnswerer(e.retriever, gen, e.index, agent.AnswerConfig{Chunks: e.graph, Lexicon: e.lexicon}, agent.Hooks{}, e.log), nil
	}
	base, gated := strings.CutSuffix(name, "-gated")
	base, ungated := strings.CutSuffix(base, "-ungated")
	base, nojudge := strings.CutSuffix(base, "-nojudge")
	if e.model == nil {
		return nil, fmt.Errorf("generator %s needs a chat model (--local-llm or --llm-*)", name)
	}
	gen := agent.LLMGenerator{Model: e.model, Mode: agent.CitationMode(e.c.Chat.CitationMode), Rank: agent.LexicalUnitRanker(e.lexicon),
		Budget: agent.UnitBudget{Tokens: e.c.Chat.UnitTokens}}
	switch base {
	case "llm":
	case "llm-units":
		gen.Mode = agent.CitationUnits
	case "llm-quotes":
		gen.Mode = agent.CitationQuotes
	default:
		return nil, usageError{fmt.Errorf("unknown generator %q (extractive, extractive-wave1, extractive-v2, llm, llm-units, llm-quotes, each llm one also with -nojudge and/or -gated or -ungated)", name)}
	}
	cfg := agent.AnswerConfig{Deadline: e.c.Deadline, Chunks: e.graph, Lexicon: e.lexicon}
	if !nojudge {
		cfg.Judge = agent.LLMJudge{Model: e.model}
	}
	switch {
	case gated:
		cfg.Gate = agent.TermExtractive{Lexicon: e.lexicon}
	case !ungated:
		cfg.Gate = agent.AnswerabilityGate(e.c.Chat.Answerability, e.model, agent.TermExtractive{Lexicon: e.lexicon})
	}
	return agent.NewAnswerer(e.retriever, gen, e.index, cfg, agent.Hooks{}, e.log), nil
}

func generatorTable(w io.Writer, runs []generatorRun) {
	row := func(label string, f func(r generatorRun) string) {
		cells := make([]string, len(runs))
		for i, r := range runs {
			cells[i] = f(r)
		}
		fmt.Fprintf(w, "| %s | %s |\n", label, strings.Join(cells, " | "))
	}
	header := make([]string, len(runs))
	for i, r := range runs {
		header[i] = r.Name + " (" + r.Generator + ")"
	}
	fmt.Fprintf(w, "| metric | %s |\n|---|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(runs)))
	ratio := func(a, b int) string {
		if b == 0 {
			return "—"
		}
		return fmt.Sprintf("%.3f (%d/%d)", float64(a)/float64(b), a, b)
	}
	row("answer status accuracy (answered iff answerable, right or not)", func(r generatorRun) string { return fmt.Sprintf("%.3f", r.Report.StatusAccuracy) })
	row("false refusals (answerable, not answered)", func(r generatorRun) string {
		return fmt.Sprintf("%d / %d", r.Report.FalseRefusals, r.Report.Answerable)
	})
	row("answers to no-answer/ACL questions", func(r generatorRun) string {
		return fmt.Sprintf("%d / %d", r.Report.AnsweredNoAnswer, r.Report.NoAnswer)
	})
	row("ACL leaks", func(r generatorRun) string { return fmt.Sprint(r.Report.ACLLeaks) })
	row("citation validity (re-checked)", func(r generatorRun) string {
		return ratio(r.Report.CitationsValid, r.Report.Citations)
	})
	row("evidence coverage (answered)", func(r generatorRun) string { return evaluation.EvidenceCoverageCell(r.Report) })
	row("answers citing a gold document", func(r generatorRun) string { return f3(r.Report.AnswerHit) })
	row("cited documents that are gold (mean per answer)", func(r generatorRun) string { return f3(r.Report.GoldPrecision) })
	row("answer token F1 / exact match (answerable, gold answer)", func(r generatorRun) string {
		return fmt.Sprintf("%s / %s (n=%d)", f3(r.Report.AnswerF1), f3(r.Report.AnswerEM), r.Report.AnswerScored)
	})
	row("answered with every claim passing the judge", func(r generatorRun) string {
		if r.Judged == 0 {
			return "— (no judge)"
		}
		return ratio(r.JudgeAllPass, r.Judged)
	})
	if slices.ContainsFunc(runs, func(r generatorRun) bool { return r.GateFallbacks > 0 }) {
		row("answers that are the gate's (the model's did not verify)", func(r generatorRun) string { return ratio(r.GateFallbacks, r.Questions) })
	}
	row("invalid outputs (of attempts, before retry)", func(r generatorRun) string { return ratio(r.InvalidAttempts, r.Attempts) })
	row("invalid after retries (questions)", func(r generatorRun) string { return ratio(r.InvalidFinal, r.Questions) })
	row("questions retried", func(r generatorRun) string { return ratio(r.Retried, r.Questions) })
	row("model calls / prompt tokens / completion tokens", func(r generatorRun) string {
		return fmt.Sprintf("%d / %d / %d", r.ModelCalls, r.PromptTokens, r.CompletionTokens)
	})
	routes := map[string]bool{}
	for _, r := range runs {
		for k := range r.Report.Latency {
			routes[k] = true
		}
	}
	for _, route := range sortedRoutes(routes) {
		row("end to end "+route+": p50 / p95 ms", func(r generatorRun) string { return pair(r.Report.Latency[route]) })
	}
	row("model time (generation + judge) all: p50 / p95 ms", func(r generatorRun) string { return pairL(r.ModelLatency["all"]) })
	row("retrieval time all: p50 / p95 ms", func(r generatorRun) string { return pairL(r.RetrievalLatency["all"]) })
	for _, r := range runs {
		if len(r.ReasonsOfRefusals) > 0 {
			fmt.Fprintf(w, "\n%s, reasons of not answering: %v\n", r.Name, r.ReasonsOfRefusals)
		}
	}
}

func pair(l map[string]float64) string {
	if l == nil {
		return "—"
	}
	return fmt.Sprintf("%.0f / %.0f (n=%.0f)", l["p50"], l["p95"], l["n"])
}

func pairL(l latencySummar) string {
	if l.N == 0 || math.IsNaN(l.P50) {
		return "—"
	}
	return fmt.Sprintf("%.0f / %.0f (n=%d)", l.P50, l.P95, l.N)
}

func sortedRoutes(m map[string]bool) []string {
	var out []string
	for _, r := range []string{"simple", "hybrid", "multi_hop", "none"} {
		if m[r] {
			out = append(out, r)
		}
	}
	return out
}

func f3(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.3f", x)
}
