// Command fitevidence fits the evidence model of the offline answer path (agent/evidence_model.json)
// on public data with sentence-level labels, and reports it on a held-out split.
//
//	fitevidence --xquad xquad_ru.json --musique musique_100.json \
//	    --musique-ru evaluation/testdata/evidence/musique_subq_ru.jsonl \
//	    --xquad-en evaluation/testdata/evidence/xquad_ru_q_en.jsonl --out agent/evidence_model.json
//
// Examples: XQuAD-ru questions over Russian paragraphs (the unit holding answer_start is the
// positive); MuSiQue single-hop sub-questions (the decomposition's questions with earlier answers
// filled in) over their paragraphs (units of the supporting paragraph that contain the hop's answer
// are positives); and two cross-language groups we wrote: Russian forms of those MuSiQue
// sub-questions over the English paragraphs, and English forms of XQuAD-ru questions over the
// Russian paragraphs. Each question is asked twice: over its gold paragraph and the best-ranked
// distractors (answerable), and over the distractors alone (not answerable). The split is by
// article (XQuAD: index mod 4 = 3 held out) and by MuSiQue question (index mod 4 = 3 held out).
// The e5 weight set uses every feature; the lexical one leaves out the cosine features. The
// answerability threshold is the lowest with the target answer precision on the held-out split.
//
// Vectors are cached in --cache (JSON) so a refit does not embed again.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/embedding"
	"github.com/ariadne-graphrag/ariadne/evaluation"
	"github.com/ariadne-graphrag/ariadne/internal/loopback"
	"github.com/ariadne-graphrag/ariadne/internal/setup"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

type cli struct {
	XQuAD        string  `name:"xquad" required:"" help:"XQuAD-ru (SQuAD JSON)."`
	MuSiQue      string  `name:"musique" required:"" help:"MuSiQue (JSON)."`
	MuSiQueRU    string  `name:"musique-ru" help:"Russian forms of MuSiQue sub-questions (JSONL: id, question, answer, paragraph_idx)."`
	XQuADEN      string  `name:"xquad-en" help:"English forms of XQuAD-ru questions (JSONL: id, question)."`
	KB           string  `name:"kb" help:"A knowledge base of our own (Markdown with front matter), chunked as ingestion does, for the --kb-questions."`
	KBQ          string  `name:"kb-questions" help:"Questions over --kb with evidence substrings (JSONL: id, question, lang, type, gold_docs, evidence, answer, user_groups)."`
	Out          string  `name:"out" default:"agent/evidence_model.json" help:"Weights file to write."`
	Cache        string  `name:"cache" default:"/tmp/ariadne-evidence-vectors.json" help:"Vector cache (JSON)."`
	Target       float64 `name:"target-precision" default:"0.8" help:"Answer precision the threshold must reach on the held-out split."`
	Frags        int     `name:"fragments" default:"8" help:"Candidate paragraphs per question (gold + distractors)."`
	Version      string  `name:"version" default:"" help:"Model version (default: evidence-<date>)."`
	Alt          string  `name:"alt" default:"none" enum:"none,translit,gloss,llm" help:"Cross-language option for the cosine: none (the question only), translit (also the question with its names transliterated), gloss (also the question word by word in the other language, by the lexicon) or llm (also the chat model's translation; held-out cross-language questions only, see --translations)."`
	Translations string  `name:"translations" default:"/tmp/ariadne-translations.json" help:"Cache of --alt llm translations (JSON)."`
	Iters        int     `name:"iters" default:"400" help:"Gradient descent steps."`
	Balance      bool    `name:"balance" help:"Weigh positive units up to the negatives' count (ranking over calibration)."`
	Only         string  `name:"only" default:"" enum:",semantic,lexical" help:"Fit only this weight set."`
	Every        int     `name:"xquad-every" default:"2" help:"Use every N-th XQuAD article (embedding cost on 2 cores)."`
	Pool         int     `name:"musique-pool" default:"4" help:"MuSiQue candidates per sub-question (gold + distractors)."`

	setup.Embedder `embed:""`
	setup.Lexicon  `embed:""`
	setup.Chat     `embed:""`
}

// example is one question over candidate paragraphs.
type example struct {
	id, question, answer, group string
	test                        bool
	pool                        []ariadne.Chunk // candidates, gold first when answerable
	gold                        string          // gold chunk id, or (our KB) gold document id; "" when none
	answerable                  bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "fitevidence:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	vars, err := loopback.Vars()
	if err != nil {
		return err
	}
	var c cli
	parser, err := kong.New(&c, kong.Vars(vars), kong.Name("fitevidence"), kong.Writers(stdout, stderr))
	if err != nil {
		return err
	}
	if _, err := parser.Parse(args); err != nil {
		return err
	}
	log := setup.NewLogger(stderr, "warn", false)
	var emb agent.UnitEmbedder
	if c.Embedder.Kind == "e5" {
		// as setup builds it, with larger batches
		emb, err = embedding.NewOpenAI(embedding.RemoteConfig{BaseURL: c.Embedder.E5URL, Model: "multilingual-e5-small",
			Prefix: embedding.PrefixInputType, MaxInputChars: setup.E5MaxInputChars, BatchSize: 64, Logger: log})
	} else {
		emb, _, err = c.Embedder.BuildEmbedder(ctx, log)
	}
	if err != nil {
		return err
	}
	lex, err := c.Lexicon.Load(log)
	if err != nil {
		return err
	}
	cache := &diskEmbedder{inner: emb, path: c.Cache, vecs: map[string][]float32{}}
	if err := cache.load(); err != nil {
		return err
	}
	defer cache.save()
	exs, err := c.examples(ctx, cache, log)
	if err != nil {
		return err
	}
	// Embed every candidate unit first, in large batches (the cost of fitting is e5 on 2 cores).
	var texts []string
	seen := map[string]bool{}
	for _, ex := range exs {
		for _, ch := range ex.pool {
			for _, u := range agent.SplitUnits(ch.Text) {
				if !seen[u] {
					seen[u] = true
					texts = append(texts, u)
				}
			}
		}
	}
	for i := 0; i < len(texts); i += 64 {
		if _, err := cache.EmbedPassages(ctx, texts[i:min(i+64, len(texts))]); err != nil {
			return err
		}
	}
	cache.save()
	fmt.Fprintf(stderr, "%d examples (%d vectors cached)\n", len(exs), len(cache.vecs))

	model := agent.EvidenceModel{Version: c.Version, Sets: map[string]agent.WeightSet{}}
	if model.Version == "" {
		model.Version = "evidence-" + time.Now().UTC().Format("2006-01-02")
	}
	fitted := map[string]any{"embedder": emb.Name(), "lexicon": lex.Name(), "alt_questions": c.Alt, "balanced": c.Balance, "iterations": c.Iters, "target_answer_precision": c.Target, "fragments": c.Frags,
		"split": "held out: XQuAD articles with index mod 4 = 3, MuSiQue questions with index mod 4 = 3",
		"data":  "XQuAD-ru answer sentences; MuSiQue-100 sub-question answer sentences; Russian MuSiQue sub-questions and English XQuAD-ru questions written by the team (evaluation/testdata/evidence)"}
	fmt.Fprintf(stdout, "## Evidence model %s (embedder %s)\n\n", model.Version, emb.Name())
	for _, semantic := range []bool{true, false} {
		name := "lexical"
		if c.Only != "" && (c.Only == "semantic") != semantic {
			continue
		}
		ranker := agent.EvidenceRanker{Lexicon: lex}
		feats := agent.EvidenceFeatureNames[:]
		if semantic {
			if !strings.Contains(emb.Name(), "e5") && !strings.Contains(emb.Name(), "openai") {
				continue
			}
			name, ranker.Embedder = "semantic", cache
			switch c.Alt {
			case "translit":
				ranker.AltQuestions = agent.TransliteratedQuestion
			case "gloss":
				ranker.AltQuestions = agent.GlossedQuestion(lex)
			case "llm":
				alt, save, err := c.llmTranslations(exs, log)
				if err != nil {
					return err
				}
				defer save()
				ranker.AltQuestions = alt
			}
		} else {
			feats = slices.DeleteFunc(slices.Clone(feats), func(f string) bool { return strings.HasPrefix(f, "cos") })
		}
		set, rep, err := fitSet(ctx, ranker, exs, feats, c.Target, semantic, cache, c.Balance, c.Iters)
		if err != nil {
			return err
		}
		model.Sets[name] = set
		fitted[name] = rep.summary
		fmt.Fprintf(stdout, "### %s weight set\n\n%s\n", name, rep.markdown)
	}
	raw, err := json.Marshal(fitted)
	if err != nil {
		return err
	}
	model.Fitted = raw
	out, err := json.MarshalIndent(model, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(c.Out, append(out, '\n'), 0o644)
}

type setReport struct {
	summary  map[string]any
	markdown string
}

// fitSet computes the features of every example's units, fits on the train split, and reports
// on the held-out split: unit AUC, hit@1 of the gold sentence, the refusal curve and the chosen
// threshold, per group.
func fitSet(ctx context.Context, ranker agent.EvidenceRanker, exs []example, feats []string, target float64, semantic bool, emb agent.UnitEmbedder, balance bool, iters int) (agent.WeightSet, setReport, error) {
	type featured struct {
		ex    example
		units []agent.ScoredUnit
		pos   []bool
	}
	var all []featured
	var train []agent.LabeledUnit
	for _, ex := range exs {
		frags := orderPool(ctx, ex, semantic, emb)
		units, err := ranker.Features(ctx, ex.question, nil, frags, nil)
		if err != nil {
			return agent.WeightSet{}, setReport{}, err
		}
		f := featured{ex: ex, units: units}
		fa := textnorm.FoldString(ex.answer)
		for _, u := range units {
			p := ex.answerable && (u.Fragment.Chunk.ID == ex.gold || u.Fragment.Chunk.DocID == ex.gold) && strings.Contains(textnorm.FoldString(u.Text), fa)
			f.pos = append(f.pos, p)
			if !ex.test {
				train = append(train, agent.LabeledUnit{Features: u.Features, Positive: p})
			}
		}
		all = append(all, f)
	}
	// Answerability: fitted on the training questions' units as scored by unit models that were not
	// fitted on them (4 folds by question), so the decision learns from scores like those it will see.
	answerFeats := agent.AnswerFeatureNames[:]
	if !semantic {
		answerFeats = slices.DeleteFunc(slices.Clone(answerFeats), func(f string) bool { return f == "best_cos" })
	}
	answerVec := func(set agent.WeightSet, f featured) (agent.AnswerVector, bool, []agent.ScoredUnit, []bool) {
		units := slices.Clone(f.units)
		pos := slices.Clone(f.pos)
		for i := range units {
			units[i].Score = set.Score(units[i].Features)
		}
		order := make([]int, len(units))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return units[order[a]].Score > units[order[b]].Score })
		su, sp := make([]agent.ScoredUnit, len(units)), make([]bool, len(units))
		for k, i := range order {
			su[k], sp[k] = units[i], pos[i]
		}
		return agent.AnswerabilityFeatures(su), f.ex.answerable && len(sp) > 0 && sp[0], su, sp
	}
	const folds = 4
	fold := func(ex example) int {
		h := fnv.New32a()
		h.Write([]byte(strings.TrimSuffix(ex.id, "/none")))
		return int(h.Sum32() % folds)
	}
	var oofX []agent.AnswerVector
	var oofY []bool
	for k := range folds {
		var tr []agent.LabeledUnit
		for _, f := range all {
			if f.ex.test || fold(f.ex) == k {
				continue
			}
			for i, u := range f.units {
				tr = append(tr, agent.LabeledUnit{Features: u.Features, Positive: f.pos[i]})
			}
		}
		sk, err := agent.FitWeightSet(tr, feats, 0, iters, balance)
		if err != nil {
			return sk, setReport{}, err
		}
		for _, f := range all {
			if !f.ex.test && fold(f.ex) == k {
				x, ok, _, _ := answerVec(sk, f)
				oofX, oofY = append(oofX, x), append(oofY, ok)
			}
		}
	}
	answer, err := agent.FitAnswerModel(oofX, oofY, answerFeats, 0)
	if err != nil {
		return agent.WeightSet{}, setReport{}, err
	}
	set, err := agent.FitWeightSet(train, feats, 0, iters, balance)
	if err != nil {
		return set, setReport{}, err
	}
	// Held-out evaluation.
	groups := map[string][]agent.AnswerDecision{}
	unitGroups := map[string][]agent.AnswerDecision{} // the best unit's score alone decides
	type hit struct{ n, at1, at3 int }
	hits := map[string]*hit{}
	var scores []float64
	var labels []bool
	var extra []struct {
		s float64
		p bool
	}
	for _, f := range all {
		if !f.ex.test {
			continue
		}
		x, _, su, sp := answerVec(set, f)
		best, bestPos := 0.0, false
		if len(su) > 0 {
			best, bestPos = su[0].Score, sp[0]
		}
		for i, u := range su {
			scores = append(scores, u.Score)
			labels = append(labels, sp[i])
			if i > 0 {
				extra = append(extra, struct {
					s float64
					p bool
				}{u.Score, sp[i]})
			}
		}
		type su1 struct{ p bool }
		sus := make([]su1, len(sp))
		for i := range sp {
			sus[i] = su1{sp[i]}
		}
		ud := agent.AnswerDecision{Best: best, Answerable: f.ex.answerable, TopPositive: bestPos}
		unitGroups[f.ex.group] = append(unitGroups[f.ex.group], ud)
		unitGroups["all"] = append(unitGroups["all"], ud)
		d := agent.AnswerDecision{Best: answer.Score(x), Answerable: f.ex.answerable, TopPositive: bestPos}
		groups[f.ex.group] = append(groups[f.ex.group], d)
		groups["all"] = append(groups["all"], d)
		if f.ex.answerable && slices.Contains(f.pos, true) {
			for _, g := range []string{f.ex.group, "all"} {
				h := hits[g]
				if h == nil {
					h = &hit{}
					hits[g] = h
				}
				h.n++
				for k := 0; k < len(sus) && k < 3; k++ {
					if sus[k].p {
						if k == 0 {
							h.at1++
						}
						h.at3++
						break
					}
				}
			}
		}
	}
	set.Threshold = agent.ChooseThreshold(unitGroups["all"], target)
	set.AnswerPrecision = target
	answer.Threshold = agent.ChooseThreshold(groups["all"], target)
	answer.AnswerPrecision = target
	set.Answer = &answer
	// A further claim: the lowest score at which half the non-best units are positives.
	sort.Slice(extra, func(i, j int) bool { return extra[i].s > extra[j].s })
	set.ExtraThreshold = 1
	good := 0
	for i, e := range extra {
		if e.p {
			good++
		}
		if float64(good)/float64(i+1) >= 0.5 && i >= 10 {
			set.ExtraThreshold = e.s
		}
	}
	set.ExtraThreshold = max(set.ExtraThreshold, set.Threshold)
	var b strings.Builder
	auc := agent.AUC(scores, labels)
	fmt.Fprintf(&b, "Held-out unit AUC %.3f; answerability model threshold %.3f for answer precision ≥ %.2f (best unit's score alone: %.3f); further claims at ≥ %.3f.\n\n",
		auc, answer.Threshold, target, set.Threshold, set.ExtraThreshold)
	fmt.Fprintln(&b, "The decision by the best unit's score alone, for comparison:")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "| group | false refusals | answers to unanswerable | answer precision |")
	fmt.Fprintln(&b, "|---|---|---|---|")
	for _, g := range slices.Sorted(maps.Keys(unitGroups)) {
		ds := unitGroups[g]
		p := agent.ThresholdCurve(ds, []float64{set.Threshold})[0]
		unans := len(ds) - p.Answerable
		fmt.Fprintf(&b, "| %s | %d/%d | %d/%d | %.3f |\n", g, p.FalseRefusals, p.Answerable, p.Answered-(p.Answerable-p.FalseRefusals), unans, p.AnswerPrecision)
	}
	fmt.Fprintln(&b, "\nThe answerability model's decision:")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "| group | questions (answerable + not) | gold sentence first | in top 3 | false refusals | answers to unanswerable | answer precision | answerability AUC |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|")
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	summary := map[string]any{"heldout_unit_auc": auc, "threshold": set.Threshold, "answerability_threshold": answer.Threshold}
	for _, g := range names {
		ds := groups[g]
		p := agent.ThresholdCurve(ds, []float64{answer.Threshold})[0]
		h := hits[g]
		if h == nil {
			h = &hit{}
		}
		unans := len(ds) - p.Answerable
		answeredUnans := p.Answered - (p.Answerable - p.FalseRefusals)
		var bs []float64
		var ok []bool
		for _, d := range ds {
			bs = append(bs, d.Best)
			ok = append(ok, d.Answerable && d.TopPositive)
		}
		fmt.Fprintf(&b, "| %s | %d + %d | %d/%d | %d/%d | %d/%d | %d/%d | %.3f | %.3f |\n", g, p.Answerable, unans, h.at1, h.n, h.at3, h.n,
			p.FalseRefusals, p.Answerable, answeredUnans, unans, p.AnswerPrecision, agent.AUC(bs, ok))
		summary[g] = map[string]any{"answerable": p.Answerable, "unanswerable": unans, "gold_first": h.at1, "gold_top3": h.at3,
			"with_gold_sentence": h.n, "false_refusals": p.FalseRefusals, "answered_unanswerable": answeredUnans, "answer_precision": p.AnswerPrecision}
	}
	fmt.Fprintln(&b, "\nRefusal precision/recall of the answerability model on the held-out split (all groups):")
	fmt.Fprintln(&b, "\n| threshold | answered | answer precision | refusal precision | refusal recall | false refusals |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|")
	for _, p := range agent.ThresholdCurve(groups["all"], []float64{0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, answer.Threshold}) {
		fmt.Fprintf(&b, "| %.3f | %d | %.3f | %.3f | %.3f | %d/%d |\n", p.Threshold, p.Answered, p.AnswerPrecision, p.RefusalPrec, p.RefusalRecall, p.FalseRefusals, p.Answerable)
	}
	var ws []string
	for i, f := range set.Features {
		ws = append(ws, fmt.Sprintf("%s %+.2f", f, set.Weights[i]))
	}
	fmt.Fprintf(&b, "\nWeights (standardised features): %s; bias %+.2f.\n", strings.Join(ws, ", "), set.Bias)
	ws = ws[:0]
	for i, f := range answer.Features {
		ws = append(ws, fmt.Sprintf("%s %+.2f", f, answer.Weights[i]))
	}
	fmt.Fprintf(&b, "\nAnswerability weights (standardised, fitted on %d cross-fitted training questions): %s; bias %+.2f.\n", len(oofX), strings.Join(ws, ", "), answer.Bias)
	return set, setReport{summary: summary, markdown: b.String()}, nil
}

// orderPool ranks an example's candidates as hybrid retrieval would, without the stores: by the
// question's IDF-free term coverage of the chunk plus (semantic) the best cosine of its units.
func orderPool(ctx context.Context, ex example, semantic bool, emb agent.UnitEmbedder) []agent.Fragment {
	type sc struct {
		c ariadne.Chunk
		s float64
	}
	qt := textnorm.SearchTerms(ex.question)
	var qv []float32
	if semantic {
		qv, _ = emb.EmbedQuery(ctx, ex.question)
	}
	var xs []sc
	for _, c := range ex.pool {
		s := termShare(qt, c.ContextText())
		if semantic {
			s = 0.5*s + 0.5*maxCos(ctx, emb, qv, c.Text)
		}
		xs = append(xs, sc{c, s})
	}
	sort.SliceStable(xs, func(i, j int) bool { return xs[i].s > xs[j].s })
	var out []ariadne.ScoredChunk
	for _, x := range xs {
		out = append(out, ariadne.ScoredChunk{Chunk: x.c, Score: x.s})
	}
	return agent.Fragments(out)
}

func termShare(qt []string, text string) float64 {
	if len(qt) == 0 {
		return 0
	}
	have := map[string]bool{}
	for _, t := range textnorm.SearchTerms(text) {
		have[t] = true
	}
	n := 0
	for _, t := range qt {
		if have[t] {
			n++
		}
	}
	return float64(n) / float64(len(qt))
}

func maxCos(ctx context.Context, emb agent.UnitEmbedder, qv []float32, text string) float64 {
	units := agent.SplitUnits(text)
	if len(units) == 0 || qv == nil {
		return 0
	}
	vecs, err := emb.EmbedPassages(ctx, units)
	if err != nil {
		return 0
	}
	best := -1.0
	for _, v := range vecs {
		best = max(best, agent.Cosine(qv, v))
	}
	return best
}

// examples builds every group's questions with their candidate pools.
func (c cli) examples(ctx context.Context, emb agent.UnitEmbedder, log *slog.Logger) ([]example, error) {
	var out []example
	// XQuAD-ru.
	docs, qs, err := evaluation.LoadXQuAD(c.XQuAD, "ru")
	if err != nil {
		return nil, err
	}
	chunkOf := map[string]ariadne.Chunk{}
	var chunks []ariadne.Chunk
	artOf := map[string]int{}
	art, lastTitle := -1, ""
	for _, d := range docs {
		if d.Title != lastTitle {
			art++
			lastTitle = d.Title
		}
		if art%c.Every != 0 {
			continue
		}
		ch := passageChunk(d)
		chunkOf[d.ID] = ch
		chunks = append(chunks, ch)
		artOf[d.ID] = art / c.Every
	}
	var xtexts []string
	for _, ch := range chunks {
		xtexts = append(xtexts, agent.SplitUnits(ch.Text)...)
	}
	for i := 0; i < len(xtexts); i += 64 {
		if _, err := emb.EmbedPassages(ctx, xtexts[i:min(i+64, len(xtexts))]); err != nil {
			return nil, err
		}
	}
	en := map[string]string{}
	if c.XQuADEN != "" {
		if err := readJSONL(c.XQuADEN, func(m map[string]any) { en[str(m["id"])] = str(m["question"]) }); err != nil {
			return nil, err
		}
	}
	// Distractors: the paragraphs that rank best for the question among all others.
	for _, q := range qs {
		gold := q.GoldDocs[0]
		if _, ok := chunkOf[gold]; !ok {
			continue
		}
		test := artOf[gold]%4 == 3
		add := func(question, group string) {
			others := rankChunks(ctx, emb, question, chunks, gold, c.Frags)
			out = append(out,
				example{id: q.ID, question: question, answer: q.Answer, group: group, test: test, gold: chunkOf[gold].ID, answerable: true,
					pool: append([]ariadne.Chunk{chunkOf[gold]}, others[:c.Frags-1]...)},
				example{id: q.ID + "/none", question: question, answer: q.Answer, group: group, test: test, pool: others[:c.Frags]})
		}
		add(q.Question, "xquad-ru")
		if e, ok := en[q.ID]; ok {
			add(e, "xquad en→ru")
		}
	}
	log.Info("xquad examples", "n", len(out))
	// MuSiQue sub-questions.
	raw, err := os.ReadFile(c.MuSiQue)
	if err != nil {
		return nil, err
	}
	var items []struct {
		ID     string `json:"id"`
		Decomp []struct {
			Question string `json:"question"`
			Answer   string `json:"answer"`
			Support  int    `json:"paragraph_support_idx"`
		} `json:"question_decomposition"`
		Paragraphs []struct {
			Idx   int    `json:"idx"`
			Title string `json:"title"`
			Text  string `json:"paragraph_text"`
		} `json:"paragraphs"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	ru := map[string]string{}
	if c.MuSiQueRU != "" {
		if err := readJSONL(c.MuSiQueRU, func(m map[string]any) { ru[str(m["id"])] = str(m["question"]) }); err != nil {
			return nil, err
		}
	}
	for qi, it := range items {
		test := qi%4 == 3
		var prev []string
		for hi, h := range it.Decomp {
			q := h.Question
			for j, a := range prev {
				q = strings.ReplaceAll(q, fmt.Sprintf("#%d", j+1), a)
			}
			prev = append(prev, h.Answer)
			hid := fmt.Sprintf("%s/%d", it.ID, hi)
			ruq, ok := ru[hid]
			if !ok || strings.Contains(q, "#") {
				continue // only the sub-questions we wrote Russian forms for, in both languages
			}
			var gold ariadne.Chunk
			var rest []ariadne.Chunk
			for _, p := range it.Paragraphs {
				id := "musique/" + it.ID + "/" + fmt.Sprint(p.Idx)
				ch := ariadne.Chunk{ID: id + "#0", DocID: id, Title: p.Title, Text: p.Text, Lang: "en", ACL: []string{ariadne.PublicGroup}}
				if p.Idx == h.Support {
					gold = ch
				} else {
					rest = append(rest, ch)
				}
			}
			if gold.ID == "" {
				continue
			}
			// Distractors by the English question's terms (BM25's view), the same for its Russian form.
			qt := textnorm.SearchTerms(q)
			sort.SliceStable(rest, func(i, j int) bool {
				return termShare(qt, rest[i].ContextText()) > termShare(qt, rest[j].ContextText())
			})
			n := min(c.Pool, len(rest))
			others := rest[:n]
			fa := textnorm.FoldString(h.Answer)
			unans := true
			for _, o := range others[:n-1] {
				if strings.Contains(textnorm.FoldString(o.Text), fa) {
					unans = false
				}
			}
			for _, v := range []struct{ q, g string }{{q, "musique-en"}, {ruq, "musique ru→en"}} {
				out = append(out, example{id: hid, question: v.q, answer: h.Answer, group: v.g, test: test, gold: gold.ID, answerable: true,
					pool: append([]ariadne.Chunk{gold}, others[:n-1]...)})
				if unans {
					out = append(out, example{id: hid + "/none", question: v.q, answer: h.Answer, group: v.g, test: test, pool: others})
				}
			}
		}
	}
	if c.KB != "" && c.KBQ != "" {
		kb, err := c.kbExamples(ctx, emb)
		if err != nil {
			return nil, err
		}
		log.Info("kb examples", "n", len(kb))
		out = append(out, kb...)
	}
	return out, nil
}

// llmTranslations returns an AltQuestions that gives the chat model's translation of the held-out
// cross-language questions (nothing for the others: the model is not fitted with them, and a
// translation costs seconds of CPU), cached in --translations, and a function that saves the cache.
func (c cli) llmTranslations(exs []example, log *slog.Logger) (func(context.Context, string) []string, func(), error) {
	model, err := c.Chat.BuildChat(log)
	if err != nil {
		return nil, nil, err
	}
	if model == nil {
		return nil, nil, fmt.Errorf("--alt llm needs a chat model (--local-llm or --llm-*)")
	}
	cache := map[string]string{}
	if raw, err := os.ReadFile(c.Translations); err == nil {
		if err := json.Unmarshal(raw, &cache); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", c.Translations, err)
		}
	}
	want := map[string]bool{}
	for _, ex := range exs {
		if ex.test && (strings.Contains(ex.group, "→") || strings.Contains(ex.group, "cross")) {
			want[ex.question] = true
		}
	}
	translate := agent.TranslatedQuestion(model)
	var mu sync.Mutex
	save := func() {
		mu.Lock()
		defer mu.Unlock()
		if raw, err := json.Marshal(cache); err == nil {
			_ = os.WriteFile(c.Translations, raw, 0o644)
		}
	}
	return func(ctx context.Context, q string) []string {
		if !want[q] {
			return nil
		}
		mu.Lock()
		t, ok := cache[q]
		mu.Unlock()
		if !ok {
			start := time.Now()
			if out := translate(ctx, q); len(out) > 0 {
				t = out[0]
			}
			mu.Lock()
			cache[q] = t
			mu.Unlock()
			fmt.Fprintf(os.Stderr, "translated in %.1f s: %q → %q\n", time.Since(start).Seconds(), q, t)
			save()
		}
		if t == "" {
			return nil
		}
		return []string{t}
	}, save, nil
}

// kbExamples builds examples from our own knowledge base: its documents chunked as ingestion
// chunks them, each question over the chunks of its gold documents that hold its last evidence
// string plus the best-ranked other chunks the asker may read (answerable), and over those others
// alone (not answerable); a no_answer question over the best-ranked readable chunks. The answer
// unit is the one holding the last evidence string. Questions with index mod 4 = 3 are held out;
// groups are "kb", "kb cross-language" and "kb multi_hop".
func (c cli) kbExamples(ctx context.Context, emb agent.UnitEmbedder) ([]example, error) {
	docs, problems, err := corpus.Load(os.DirFS(c.KB))
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("kb %s: %v", c.KB, problems[0])
	}
	chunker, err := chunking.NewDefault()
	if err != nil {
		return nil, err
	}
	var chunks []ariadne.Chunk
	lang := map[string]string{}
	for _, d := range docs {
		chunks = append(chunks, chunker.Split(d)...)
		lang[d.ID] = d.Lang
	}
	var texts []string
	for _, ch := range chunks {
		texts = append(texts, agent.SplitUnits(ch.Text)...)
	}
	for i := 0; i < len(texts); i += 64 {
		if _, err := emb.EmbedPassages(ctx, texts[i:min(i+64, len(texts))]); err != nil {
			return nil, err
		}
	}
	var out []example
	qi := -1
	err = readJSONL(c.KBQ, func(m map[string]any) {
		qi++
		var q struct {
			ID, Question, Lang, Type, Answer string
			GoldDocs                         []string `json:"gold_docs"`
			Evidence                         []string
			UserGroups                       []string `json:"user_groups"`
		}
		raw, _ := json.Marshal(m)
		if json.Unmarshal(raw, &q) != nil {
			return
		}
		test := qi%4 == 3
		readable := func(ch ariadne.Chunk) bool { return ariadne.CanRead(ch.ACL, q.UserGroups) }
		var others []ariadne.Chunk
		for _, ch := range chunks {
			if readable(ch) && !slices.Contains(q.GoldDocs, ch.DocID) {
				others = append(others, ch)
			}
		}
		ranked := rankChunks(ctx, emb, q.Question, others, "", c.Frags)
		if q.Type == "no_answer" || len(q.Evidence) == 0 {
			out = append(out, example{id: q.ID, question: q.Question, answer: "\x00", group: "kb no_answer", test: test, pool: ranked})
			return
		}
		last := q.Evidence[len(q.Evidence)-1]
		var gold []ariadne.Chunk
		goldID := ""
		for _, ch := range chunks {
			if !slices.Contains(q.GoldDocs, ch.DocID) || !readable(ch) {
				continue
			}
			for _, e := range q.Evidence {
				if strings.Contains(ch.Text, e) {
					gold = append(gold, ch)
					if e == last && goldID == "" {
						goldID = ch.DocID // every chunk of it holding the string (chunks overlap)
					}
					break
				}
			}
		}
		if goldID == "" {
			return // the evidence is not quotable from a chunk (a heading, front matter)
		}
		group := "kb"
		switch {
		case q.Type == "multi_hop":
			group = "kb multi_hop"
		case len(q.GoldDocs) > 0 && lang[q.GoldDocs[len(q.GoldDocs)-1]] != q.Lang:
			group = "kb cross-language"
		}
		n := max(0, c.Frags-len(gold))
		out = append(out,
			example{id: q.ID, question: q.Question, answer: last, group: group, test: test, gold: goldID, answerable: true,
				pool: append(slices.Clone(gold), ranked[:min(n, len(ranked))]...)},
			example{id: q.ID + "/none", question: q.Question, answer: last, group: group, test: test, pool: ranked})
	})
	return out, err
}

// rankChunks returns the chunks other than skip, best first by the hybrid proxy, at least n.
func rankChunks(ctx context.Context, emb agent.UnitEmbedder, question string, chunks []ariadne.Chunk, skip string, n int) []ariadne.Chunk {
	qt := textnorm.SearchTerms(question)
	qv, _ := emb.EmbedQuery(ctx, question)
	type sc struct {
		c ariadne.Chunk
		s float64
	}
	var xs []sc
	for _, c := range chunks {
		if c.DocID == skip {
			continue
		}
		xs = append(xs, sc{c, 0.5*termShare(qt, c.ContextText()) + 0.5*maxCos(ctx, emb, qv, c.Text)})
	}
	sort.SliceStable(xs, func(i, j int) bool { return xs[i].s > xs[j].s })
	var out []ariadne.Chunk
	for i := 0; i < len(xs) && i < n; i++ {
		out = append(out, xs[i].c)
	}
	return out
}

// passageChunk is the one chunk of a passage document: its body without the title heading.
func passageChunk(d ariadne.Document) ariadne.Chunk {
	text := d.Body
	if i := strings.Index(text, "\n\n"); strings.HasPrefix(text, "# ") && i > 0 {
		text = strings.TrimSpace(text[i+2:])
	}
	return ariadne.Chunk{ID: d.ID + "#0", DocID: d.ID, Title: d.Title, Text: text, Lang: d.Lang, ACL: d.ACL}
}

func readJSONL(path string, f func(map[string]any)) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		f(m)
	}
	return nil
}

func str(v any) string { s, _ := v.(string); return s }

// diskEmbedder caches query and passage vectors by text in a JSON file.
type diskEmbedder struct {
	inner agent.UnitEmbedder
	path  string
	mu    sync.Mutex
	vecs  map[string][]float32
	saved time.Time
}

func (d *diskEmbedder) Name() string { return d.inner.Name() }

func (d *diskEmbedder) load() error {
	raw, err := os.ReadFile(d.path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, &d.vecs)
}

func (d *diskEmbedder) save() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.saved = time.Now()
	raw, err := json.Marshal(d.vecs)
	fmt.Fprintf(os.Stderr, "%s: %d vectors cached\n", d.saved.Format(time.TimeOnly), len(d.vecs))
	if err == nil {
		_ = os.WriteFile(d.path, raw, 0o644)
	}
}

func (d *diskEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	k := d.inner.Name() + "\x00q\x00" + text
	d.mu.Lock()
	v, ok := d.vecs[k]
	d.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := d.inner.EmbedQuery(ctx, text)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.vecs[k] = v
	d.mu.Unlock()
	return v, nil
}

func (d *diskEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var miss []string
	var idx []int
	d.mu.Lock()
	for i, t := range texts {
		if v, ok := d.vecs[agent.UnitVectorKey(d.inner.Name(), t)]; ok {
			out[i] = v
		} else {
			miss = append(miss, t)
			idx = append(idx, i)
		}
	}
	d.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	vecs, err := d.inner.EmbedPassages(ctx, miss)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	for j, v := range vecs {
		d.vecs[agent.UnitVectorKey(d.inner.Name(), miss[j])] = v
		out[idx[j]] = v
	}
	due := time.Since(d.saved) > 30*time.Second
	d.mu.Unlock()
	if due {
		d.save()
	}
	return out, nil
}
