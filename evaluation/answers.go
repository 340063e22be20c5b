package evaluation

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// ChunkReader reads stored chunks by id for an independent check of citations (graph.Store).
type ChunkReader interface {
	Chunks(ctx context.Context, ids []string, groups []string) ([]ariadne.Chunk, error)
}

// AnswerReport is the outcome of RunAnswers.
type AnswerReport struct {
	N                int     `json:"n"`
	StatusAccuracy   float64 `json:"status_accuracy"` // answered iff the question is answerable
	FalseRefusals    int     `json:"false_refusals"`  // answerable, not answered
	Answerable       int     `json:"answerable"`
	AnsweredNoAnswer int     `json:"answered_no_answer"` // no_answer or acl questions answered
	NoAnswer         int     `json:"no_answer"`
	ACLLeaks         int     `json:"acl_leaks"` // citations or paths from documents the asker may not read
	Citations        int     `json:"citations"`
	CitationsValid   int     `json:"citations_valid"` // re-checked at levels 1–2 against the store
	CitationValidity float64 `json:"citation_validity"`
	EvidenceCoverage float64 `json:"evidence_coverage"` // gold evidence found in cited quotes, answered questions
	EvidenceScored   int     `json:"evidence_scored"`   // answered questions with gold evidence: what EvidenceCoverage averages over
	AnswerHit        float64 `json:"answer_hit"`        // answered questions citing a gold document
	// GoldPrecision is, over answered answerable questions with gold documents, the mean share of
	// the documents an answer cites that are gold: 1 when it cites nothing else. Next to
	// AllGoldCited it shows what an answer pays for its recall in quotes from other documents.
	GoldPrecision float64 `json:"cited_gold_precision"`
	// Answer correctness against the golden answer text (squad.go), over the answerable questions
	// that have one; a refusal scores 0. The claims' texts joined are the prediction.
	AnswerF1     float64 `json:"answer_f1"`
	AnswerEM     float64 `json:"answer_em"`
	AnswerRecall float64 `json:"answer_token_recall"`
	AnswerScored int     `json:"answer_scored"` // questions the three figures above average over
	// AllGoldCited is the share of answerable multi_hop questions whose answer cites every gold
	// document (a refusal counts 0); MultiHop is how many there are.
	AllGoldCited float64                       `json:"all_gold_cited_multi_hop"`
	MultiHop     int                           `json:"multi_hop"`
	Groups       map[string]*AnswerGroup       `json:"groups"`    // "cross_language", "same_language"
	Questions    []QuestionOutcome             `json:"questions"` // one per question, in order
	Statuses     map[string]int                `json:"statuses"`
	ByType       map[string]map[string]int     `json:"by_type"`    // type → status → count
	Latency      map[string]map[string]float64 `json:"latency_ms"` // route → p50, p95
	WrongStatus  []string                      `json:"wrong_status"`
}

// AnswerGroup holds the answer figures of one group of answerable questions.
type AnswerGroup struct {
	Answerable    int     `json:"answerable"`
	FalseRefusals int     `json:"false_refusals"`
	AnswerF1      float64 `json:"answer_f1"`
	f1            Mean
}

// QuestionOutcome is one question's result, so that misses can be read rather than guessed.
type QuestionOutcome struct {
	ID            string   `json:"id"`
	Type          string   `json:"type"`
	CrossLanguage bool     `json:"cross_language,omitempty"`
	Status        string   `json:"status"`
	Correct       bool     `json:"correct"` // answered iff answerable
	Route         string   `json:"route"`
	Reason        string   `json:"reason,omitempty"`
	Answer        string   `json:"answer,omitempty"` // the claims' texts joined
	GoldAnswer    string   `json:"gold_answer,omitempty"`
	F1            float64  `json:"f1"`
	Recall        float64  `json:"gold_token_recall"` // the share of the golden answer's tokens the answer has
	CitedDocs     []string `json:"cited_docs"`
	GoldDocs      []string `json:"gold_docs"`
	// TopScore and Coverage are the last retrieval step's best score and question-term coverage.
	TopScore  float64 `json:"top_score"`
	Coverage  float64 `json:"coverage"`
	LatencyMS float64 `json:"latency_ms"`
	// Evidence is the generator's answerability decision (extractive-v1 and -v2): its best unit,
	// scores and, for extractive-v1, the question terms left unstated and why it refused.
	Evidence *agent.EvidenceDecision `json:"evidence,omitempty"`
	// ComparedOutcome: the compared thing code concluded a comparison asks for (agent.Answer).
	ComparedOutcome *agent.ComparisonOutcome `json:"compared_outcome,omitempty"`
}

// Answerer is what RunAnswers evaluates (agent.Answerer).
type Answerer interface {
	Answer(ctx context.Context, req agent.Request, progress func(agent.Event)) (agent.Answer, error)
}

// answerable reports whether a golden question expects an answer: types no_answer and acl
// expect the refusal.
func answerable(q Question) bool { return q.Type != "no_answer" && q.Type != "acl" }

// RunAnswers asks every question as its user and scores the answers. Every citation is checked
// again against the stored chunk (the quote must be the chunk's text between its offsets, and the
// asker must be allowed to read the chunk), independently of the answerer's own verification.
// docLang (document id → language, may be nil) marks the cross-language questions.
func RunAnswers(ctx context.Context, a Answerer, chunks ChunkReader, qs []Question, k int, docLang map[string]string) (AnswerReport, error) {
	rep := AnswerReport{Statuses: map[string]int{}, ByType: map[string]map[string]int{}, Latency: map[string]map[string]float64{},
		Groups: map[string]*AnswerGroup{}, Questions: []QuestionOutcome{}}
	lat := map[string][]float64{}
	var coverage, hits, precision, f1, em, recall, allGold Mean
	correct := 0
	// The checker reads cited chunks as a caller holding every group of the corpus and of the
	// set's questions, so that a citation of a chunk the asker may not read is found as a leak.
	checker := slices.Clone(AllGroups)
	for _, q := range qs {
		for _, g := range q.UserGroups {
			if !slices.Contains(checker, g) {
				checker = append(checker, g)
			}
		}
	}
	for _, q := range qs {
		start := time.Now()
		ans, err := a.Answer(ctx, agent.Request{Question: q.Question, Groups: q.UserGroups, TopK: k}, nil)
		if err != nil {
			return rep, fmt.Errorf("evaluation: %s: %w", q.ID, err)
		}
		route := string(ans.Route)
		if route == "" {
			route = "none"
		}
		took := float64(time.Since(start).Microseconds()) / 1000
		lat[route] = append(lat[route], took)
		out := QuestionOutcome{ID: q.ID, Type: q.Type, CrossLanguage: crossLanguage(q, docLang), Status: string(ans.Status), Route: route,
			Reason: ans.Reason, GoldDocs: q.GoldDocs, GoldAnswer: q.Answer, CitedDocs: []string{}, LatencyMS: took}
		if ans.Trace != nil && ans.Trace.Trace != nil && len(ans.Trace.Steps) > 0 {
			last := ans.Trace.Steps[len(ans.Trace.Steps)-1]
			out.TopScore, out.Coverage = last.TopScore, last.Coverage
		}
		if ans.Trace != nil {
			out.Evidence = ans.Trace.Evidence
		}
		out.ComparedOutcome = ans.ComparedOutcome
		var texts []string
		for _, c := range ans.Claims {
			texts = append(texts, c.Text)
		}
		out.Answer = strings.Join(texts, " ")
		for _, c := range ans.Citations {
			if !contains(out.CitedDocs, c.DocID) {
				out.CitedDocs = append(out.CitedDocs, c.DocID)
			}
		}
		rep.N++
		rep.Statuses[string(ans.Status)]++
		if rep.ByType[q.Type] == nil {
			rep.ByType[q.Type] = map[string]int{}
		}
		rep.ByType[q.Type][string(ans.Status)]++
		answered := ans.Status == ariadne.StatusAnswered
		if answerable(q) {
			rep.Answerable++
			if !answered {
				rep.FalseRefusals++
			}
		} else {
			rep.NoAnswer++
			if answered {
				rep.AnsweredNoAnswer++
			}
		}
		if answered == answerable(q) {
			correct++
			out.Correct = true
		} else {
			rep.WrongStatus = append(rep.WrongStatus, fmt.Sprintf("%s:%s", q.ID, ans.Status))
		}
		if answerable(q) {
			if q.Answer != "" {
				if answered {
					out.F1 = TokenF1(out.Answer, q.Answer)
					out.Recall = TokenRecall(out.Answer, q.Answer)
					em.Add(ExactMatch(out.Answer, q.Answer))
					recall.Add(out.Recall)
				} else {
					em.Add(0)
					recall.Add(0)
				}
				f1.Add(out.F1)
			}
			if q.Type == "multi_hop" && len(q.GoldDocs) > 0 {
				all := answered
				for _, g := range q.GoldDocs {
					all = all && contains(out.CitedDocs, g)
				}
				allGold.Add(b2f(all))
			}
			group := "same_language"
			if out.CrossLanguage {
				group = "cross_language"
			}
			g := rep.Groups[group]
			if g == nil {
				g = &AnswerGroup{}
				rep.Groups[group] = g
			}
			g.Answerable++
			if !answered {
				g.FalseRefusals++
			}
			if q.Answer != "" {
				g.f1.Add(out.F1)
			}
		}
		rep.Questions = append(rep.Questions, out)
		// Independent check of every citation and of path provenance.
		var ids []string
		for _, c := range ans.Citations {
			ids = append(ids, c.ChunkID)
		}
		stored := map[string]ariadne.Chunk{}
		if len(ids) > 0 {
			cs, err := chunks.Chunks(ctx, ids, checker)
			if err != nil {
				return rep, err
			}
			for _, c := range cs {
				stored[c.ID] = c
			}
		}
		for _, c := range ans.Citations {
			rep.Citations++
			s, ok := stored[c.ChunkID]
			if !ariadne.CanRead(s.ACL, q.UserGroups) {
				rep.ACLLeaks++
			}
			if ok && c.Start >= 0 && c.End <= len(s.Text) && c.Start < c.End && s.Text[c.Start:c.End] == c.Quote {
				rep.CitationsValid++
			}
		}
		for _, p := range ans.Paths {
			for _, e := range p.Edges {
				for _, id := range e.ChunkIDs {
					if c, ok := stored[id]; ok && !ariadne.CanRead(c.ACL, q.UserGroups) {
						rep.ACLLeaks++
					}
				}
			}
		}
		if answered && answerable(q) {
			if len(q.Evidence) > 0 {
				coverage.Add(evidenceCoverage(q.Evidence, ans.Citations))
			}
			if len(q.GoldDocs) > 0 {
				hit := 0.0
				for _, c := range ans.Citations {
					if contains(q.GoldDocs, c.DocID) {
						hit = 1
					}
				}
				hits.Add(hit)
				if len(out.CitedDocs) > 0 {
					gold := 0
					for _, d := range out.CitedDocs {
						if contains(q.GoldDocs, d) {
							gold++
						}
					}
					precision.Add(float64(gold) / float64(len(out.CitedDocs)))
				}
			}
		}
	}
	if rep.N > 0 {
		rep.StatusAccuracy = float64(correct) / float64(rep.N)
	}
	rep.CitationValidity = 1
	if rep.Citations > 0 {
		rep.CitationValidity = float64(rep.CitationsValid) / float64(rep.Citations)
	}
	// A mean over nothing (no answered question, no multi-hop one) is reported as 0 next to its
	// count of 0: JSON has no NaN.
	rep.EvidenceCoverage, rep.AnswerHit, rep.GoldPrecision = orZero(coverage.Value()), orZero(hits.Value()), orZero(precision.Value())
	rep.EvidenceScored = coverage.N
	rep.AnswerF1, rep.AnswerEM, rep.AnswerRecall, rep.AnswerScored = orZero(f1.Value()), orZero(em.Value()), orZero(recall.Value()), f1.N
	rep.AllGoldCited, rep.MultiHop = orZero(allGold.Value()), allGold.N
	for _, g := range rep.Groups {
		g.AnswerF1 = orZero(g.f1.Value())
	}
	for r, xs := range lat {
		rep.Latency[r] = map[string]float64{"p50": Percentile(xs, 50), "p95": Percentile(xs, 95), "n": float64(len(xs))}
	}
	return rep, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// evidenceCoverage is the share of evidence strings found inside a cited quote (or, for a quote
// shorter than its evidence row, covering at least half of it), after textnorm.Fold.
func evidenceCoverage(evidence []string, cits []ariadne.Citation) float64 {
	found := 0
	for _, e := range evidence {
		fe := strings.Trim(textnorm.FoldString(e), " .")
		for _, c := range cits {
			fq := strings.Trim(textnorm.FoldString(c.Quote), " .")
			if strings.Contains(fq, fe) || (len(fq) >= len(fe)/2 && strings.Contains(fe, fq)) {
				found++
				break
			}
		}
	}
	return float64(found) / float64(len(evidence))
}

// Markdown writes the report.
func (rep AnswerReport) Markdown(w io.Writer) {
	fmt.Fprintln(w, "| metric | value |")
	fmt.Fprintln(w, "|---|---|")
	fmt.Fprintf(w, "| questions | %d (%d answerable, %d no-answer or ACL) |\n", rep.N, rep.Answerable, rep.NoAnswer)
	fmt.Fprintf(w, "| answer status accuracy (answered iff answerable; not whether the answer is right: see token F1) | %s |\n", f3(rep.StatusAccuracy))
	fmt.Fprintf(w, "| false refusals | %d of %d answerable |\n", rep.FalseRefusals, rep.Answerable)
	fmt.Fprintf(w, "| answers given to no-answer/ACL questions | %d of %d |\n", rep.AnsweredNoAnswer, rep.NoAnswer)
	fmt.Fprintf(w, "| ACL leaks | %d |\n", rep.ACLLeaks)
	fmt.Fprintf(w, "| citation validity (levels 1–2, re-checked) | %s (%d/%d) |\n", f3(rep.CitationValidity), rep.CitationsValid, rep.Citations)
	fmt.Fprintf(w, "| evidence coverage (answered) | %s |\n", EvidenceCoverageCell(rep))
	fmt.Fprintf(w, "| answers citing a gold document | %s |\n", f3(rep.AnswerHit))
	fmt.Fprintf(w, "| cited documents that are gold (answered, mean per answer) | %s |\n", f3(rep.GoldPrecision))
	fmt.Fprintf(w, "| answer token F1 / exact match / gold-token recall (n=%d, refusal = 0) | %s / %s / %s |\n", rep.AnswerScored, f3(rep.AnswerF1), f3(rep.AnswerEM), f3(rep.AnswerRecall))
	if rep.MultiHop > 0 {
		fmt.Fprintf(w, "| multi_hop answers citing every gold document (n=%d, refusal = 0) | %s |\n", rep.MultiHop, f3(rep.AllGoldCited))
	}
	for _, name := range []string{"same_language", "cross_language"} {
		if g := rep.Groups[name]; g != nil {
			fmt.Fprintf(w, "| %s: false refusals, answer F1 | %d of %d, %s |\n", strings.ReplaceAll(name, "_", "-"), g.FalseRefusals, g.Answerable, f3(g.AnswerF1))
		}
	}
	types := make([]string, 0, len(rep.ByType))
	for t := range rep.ByType {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		fmt.Fprintf(w, "| statuses, %s | %s |\n", t, statusList(rep.ByType[t]))
	}
	routes := make([]string, 0, len(rep.Latency))
	for r := range rep.Latency {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	for _, r := range routes {
		l := rep.Latency[r]
		fmt.Fprintf(w, "| latency %s (n=%.0f) | p50 %.0f ms, p95 %.0f ms |\n", r, l["n"], l["p50"], l["p95"])
	}
	wrong := 0
	for _, q := range rep.Questions {
		if !q.Correct {
			wrong++
		}
	}
	if wrong > 0 {
		fmt.Fprintf(w, "\nWrong statuses (%d), with the last retrieval step's top score and term coverage:\n\n", wrong)
		fmt.Fprintln(w, "| id | type | cross-language | status | route | top score | coverage | reason or answer |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
		for _, q := range rep.Questions {
			if q.Correct {
				continue
			}
			what := q.Reason
			if q.Status == string(ariadne.StatusAnswered) {
				what = "answered: " + q.Answer
			}
			if e := q.Evidence; e != nil {
				what += " " + describeDecision(e)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.3f | %.2f | %s |\n", q.ID, q.Type, yesNo(q.CrossLanguage), q.Status, q.Route, q.TopScore, q.Coverage, cell(what, 320))
		}
	}
	answersToRead(w, rep.Questions)
}

// citesGold reports whether an answer cites one of its question's gold documents (true when the
// question names none).
func citesGold(q QuestionOutcome) bool {
	return len(q.GoldDocs) == 0 || slices.ContainsFunc(q.GoldDocs, func(d string) bool { return contains(q.CitedDocs, d) })
}

// answersToRead writes the answered answerable questions whose answer may be wrong although its
// status is right — it cites no gold document, or it has less than half of the golden answer's
// tokens (a quoted sentence that holds the answer has them all, whatever its token F1) — fewest
// first: status accuracy counts them as right, so they are listed to be read.
func answersToRead(w io.Writer, qs []QuestionOutcome) {
	var read []QuestionOutcome
	for _, q := range qs {
		if !q.Correct || q.Status != string(ariadne.StatusAnswered) {
			continue
		}
		if !citesGold(q) || q.GoldAnswer != "" && q.Recall < 0.5 {
			read = append(read, q)
		}
	}
	if len(read) == 0 {
		return
	}
	sort.SliceStable(read, func(i, j int) bool { return read[i].Recall < read[j].Recall })
	fmt.Fprintf(w, "\nAnswers to read (%d): answered as they should be, but citing no gold document or with less than half of the golden answer's tokens:\n\n", len(read))
	fmt.Fprintln(w, "| id | type | route | golden tokens in the answer | cites a gold document | golden answer | answer |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, q := range read {
		fmt.Fprintf(w, "| %s | %s | %s | %.2f | %s | %s | %s |\n", q.ID, q.Type, q.Route, q.Recall, yesNo(citesGold(q)), cell(q.GoldAnswer, 120), cell(q.Answer, 240))
	}
}

// describeDecision is a miss's evidence decision in one bracket: extractive-v1's covers against
// their bars with the question terms left unstated, or extractive-v2's answerability.
func describeDecision(e *agent.EvidenceDecision) string {
	if e.UnitThreshold == 0 && e.Reason == "" {
		return fmt.Sprintf("[best unit %.3f, answerability %.3f vs %.3f: %s: %s]", e.UnitScore, e.Value, e.Threshold, e.ChunkID, e.Unit)
	}
	if e.ChunkID == "" {
		return "[" + e.Reason + "]"
	}
	missing := ""
	if len(e.Missing) > 0 {
		missing = "; unstated: " + strings.Join(e.Missing, ", ")
	}
	return fmt.Sprintf("[best unit %.3f vs %.2f, together %.3f vs %.2f%s: %s: %s]", e.UnitScore, e.UnitThreshold, e.Value, e.Threshold, missing, e.ChunkID, e.Unit)
}

func orZero(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return x
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return ""
}

// cell makes s fit one Markdown table cell: no line breaks or pipes, at most n runes.
func cell(s string, n int) string {
	s = strings.NewReplacer("\n", " ", "|", "/").Replace(s)
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

func statusList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// EvidenceCoverageCell is the report's evidence coverage for a table: the figure with the number
// of answered questions it averages over, or "n/a" when the set gives no gold evidence sentences
// (a set with gold documents only) — not a coverage of 0.
func EvidenceCoverageCell(rep AnswerReport) string {
	if rep.EvidenceScored == 0 {
		return "n/a (no gold evidence in the set)"
	}
	return fmt.Sprintf("%s (n=%d)", f3(rep.EvidenceCoverage), rep.EvidenceScored)
}
