package evaluation

import (
	"context"
	"fmt"
	"io"
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
	N                int                           `json:"n"`
	StatusAccuracy   float64                       `json:"status_accuracy"` // answered iff the question is answerable
	FalseRefusals    int                           `json:"false_refusals"`  // answerable, not answered
	Answerable       int                           `json:"answerable"`
	AnsweredNoAnswer int                           `json:"answered_no_answer"` // no_answer or acl questions answered
	NoAnswer         int                           `json:"no_answer"`
	ACLLeaks         int                           `json:"acl_leaks"` // citations or paths from documents the asker may not read
	Citations        int                           `json:"citations"`
	CitationsValid   int                           `json:"citations_valid"` // re-checked at levels 1–2 against the store
	CitationValidity float64                       `json:"citation_validity"`
	EvidenceCoverage float64                       `json:"evidence_coverage"` // gold evidence found in cited quotes, answered questions
	AnswerHit        float64                       `json:"answer_hit"`        // answered questions citing a gold document
	Statuses         map[string]int                `json:"statuses"`
	ByType           map[string]map[string]int     `json:"by_type"`    // type → status → count
	Latency          map[string]map[string]float64 `json:"latency_ms"` // route → p50, p95
	WrongStatus      []string                      `json:"wrong_status"`
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
func RunAnswers(ctx context.Context, a Answerer, chunks ChunkReader, qs []Question, k int) (AnswerReport, error) {
	rep := AnswerReport{Statuses: map[string]int{}, ByType: map[string]map[string]int{}, Latency: map[string]map[string]float64{}}
	lat := map[string][]float64{}
	var coverage, hits Mean
	correct := 0
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
		lat[route] = append(lat[route], float64(time.Since(start).Microseconds())/1000)
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
		} else {
			rep.WrongStatus = append(rep.WrongStatus, fmt.Sprintf("%s:%s", q.ID, ans.Status))
		}
		// Independent check of every citation and of path provenance.
		var ids []string
		for _, c := range ans.Citations {
			ids = append(ids, c.ChunkID)
		}
		stored := map[string]ariadne.Chunk{}
		if len(ids) > 0 {
			cs, err := chunks.Chunks(ctx, ids, []string{ariadne.PublicGroup, "delivery", "sales", "management"})
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
	rep.EvidenceCoverage, rep.AnswerHit = coverage.Value(), hits.Value()
	for r, xs := range lat {
		rep.Latency[r] = map[string]float64{"p50": Percentile(xs, 50), "p95": Percentile(xs, 95), "n": float64(len(xs))}
	}
	return rep, nil
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
	fmt.Fprintf(w, "| answer status accuracy (answered iff answerable) | %s |\n", f3(rep.StatusAccuracy))
	fmt.Fprintf(w, "| false refusals | %d of %d answerable |\n", rep.FalseRefusals, rep.Answerable)
	fmt.Fprintf(w, "| answers given to no-answer/ACL questions | %d of %d |\n", rep.AnsweredNoAnswer, rep.NoAnswer)
	fmt.Fprintf(w, "| ACL leaks | %d |\n", rep.ACLLeaks)
	fmt.Fprintf(w, "| citation validity (levels 1–2, re-checked) | %s (%d/%d) |\n", f3(rep.CitationValidity), rep.CitationsValid, rep.Citations)
	fmt.Fprintf(w, "| evidence coverage (answered) | %s |\n", f3(rep.EvidenceCoverage))
	fmt.Fprintf(w, "| answers citing a gold document | %s |\n", f3(rep.AnswerHit))
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
	if len(rep.WrongStatus) > 0 {
		fmt.Fprintf(w, "\nWrong status: %s\n", firstN(rep.WrongStatus, 20))
	}
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
