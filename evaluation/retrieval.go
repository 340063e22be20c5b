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
)

// retrievalKs are the cut-offs reported for retrieval.
func retrievalKs() []int { return []int{1, 2, 3, 5, 10} }

// RetrieverName names what a row of the retrieval table measured: one strategy, or "routed".
type RetrieverName string

// Routed is the adaptive router with escalation.
const Routed RetrieverName = "routed"

// RetrievalRow holds the metrics of one retriever on one group of questions.
type RetrievalRow struct {
	Retriever RetrieverName      `json:"retriever"`
	Group     string             `json:"group"` // a question type, "cross_language", "all", or "via <route>" (the router's first decision, before any escalation)
	N         int                `json:"n"`
	Hit       map[int]float64    `json:"hit"`    // hit@k
	Recall    map[int]float64    `json:"recall"` // recall@k
	MRR10     float64            `json:"mrr10"`
	Latency   map[string]float64 `json:"latency_ms"` // p50, p95
}

// RetrievalReport is the outcome of RunRetrieval.
type RetrievalReport struct {
	Rows            []RetrievalRow `json:"rows"`
	RouterAccuracy  float64        `json:"router_accuracy"` // over questions whose type is a route
	RouterN         int            `json:"router_n"`
	RouterConfusion map[string]int `json:"router_confusion"` // "gold→predicted" counts of misses
	ACLLeaks        int            `json:"acl_leaks"`        // returned chunks the asker may not read
	Misrouted       []string       `json:"misrouted"`        // question ids
	// RoutedBehind lists the questions where routed recall@5 is below the best strategy's on the
	// same question: where "routed ≥ the best single strategy" is lost, to be traced.
	RoutedBehind []RoutedLoss `json:"routed_behind"`
}

// RoutedLoss is one question where a single strategy retrieved more of the gold documents in the
// top 5 than the router did.
type RoutedLoss struct {
	ID       string        `json:"id"`
	Route    ariadne.Route `json:"route"`     // the router's first decision
	Routed   float64       `json:"routed"`    // routed recall@5
	Best     RetrieverName `json:"best"`      // the first strategy (in the order run) with the highest recall@5
	BestR5   float64       `json:"best_r5"`   // its recall@5
	GoldRank int           `json:"gold_rank"` // rank (1-based) of the first gold document routed missed in the top 5; 0 when not in the top 10
}

// Retriever is what RunRetrieval evaluates (agent.Retriever).
type Retriever interface {
	Run(ctx context.Context, s agent.Strategy, req agent.Request) (agent.Result, error)
	Retrieve(ctx context.Context, req agent.Request) (agent.Result, error)
}

// readable reports whether a user with groups may read a chunk; RunRetrieval counts a leak for
// every returned chunk it may not.
func readable(c ariadne.Chunk, groups []string) bool { return ariadne.CanRead(c.ACL, groups) }

// RunRetrieval runs every question with user groups through each strategy and the router, top k
// chunks each, and aggregates per retriever and question type (plus "all" over answerable types
// and "cross_language" where the question's language differs from every gold document's, given
// docLang). Questions without gold documents count only for leaks and latency.
func RunRetrieval(ctx context.Context, r Retriever, qs []Question, strategies []agent.Strategy, k int, docLang map[string]string) (RetrievalReport, error) {
	type obs struct {
		hit, recall map[int]float64
		mrr         float64
		ms          float64
	}
	per := map[RetrieverName]map[string][]obs{}
	var rep RetrievalReport
	rep.RouterConfusion = map[string]int{}
	record := func(name RetrieverName, q Question, route ariadne.Route, res agent.Result, dur time.Duration) {
		for _, c := range res.Chunks {
			if !readable(c.Chunk, q.UserGroups) {
				rep.ACLLeaks++
			}
		}
		if len(q.GoldDocs) == 0 || q.Type == "acl" {
			return
		}
		ranked := DocRanking(res.Chunks)
		o := obs{hit: map[int]float64{}, recall: map[int]float64{}, mrr: MRRAt(ranked, q.GoldDocs, 10), ms: float64(dur.Microseconds()) / 1000}
		for _, kk := range retrievalKs() {
			o.hit[kk] = HitAt(ranked, q.GoldDocs, kk)
			o.recall[kk] = RecallAt(ranked, q.GoldDocs, kk)
		}
		if per[name] == nil {
			per[name] = map[string][]obs{}
		}
		groups := []string{q.Type, "all"}
		if crossLanguage(q, docLang) {
			groups = append(groups, "cross_language")
		}
		if route != "" {
			groups = append(groups, viaGroup(route))
		}
		for _, g := range groups {
			per[name][g] = append(per[name][g], o)
		}
	}
	routeOK := 0
	for _, q := range qs {
		req := agent.Request{Question: q.Question, Groups: q.UserGroups, TopK: k}
		// The strategies run before the router, as they always have (the first run of a question
		// pays its embedding); they are recorded after it, so each also counts in the group of the
		// route the router took ("via multi_hop": what each strategy gets on those questions).
		type run struct {
			res agent.Result
			dur time.Duration
		}
		runs := make([]run, len(strategies))
		for i, s := range strategies {
			start := time.Now()
			res, err := r.Run(ctx, s, req)
			if err != nil {
				return rep, fmt.Errorf("evaluation: %s on %s: %w", s, q.ID, err)
			}
			runs[i] = run{res, time.Since(start)}
		}
		start := time.Now()
		res, err := r.Retrieve(ctx, req)
		if err != nil {
			return rep, fmt.Errorf("evaluation: routed on %s: %w", q.ID, err)
		}
		route := res.Trace.Router.Route
		record(Routed, q, route, res, time.Since(start))
		for i, s := range strategies {
			record(RetrieverName(s), q, route, runs[i].res, runs[i].dur)
		}
		if len(q.GoldDocs) > 0 && q.Type != "acl" {
			routed := DocRanking(res.Chunks)
			loss := RoutedLoss{ID: q.ID, Route: route, Routed: RecallAt(routed, q.GoldDocs, 5)}
			for i, s := range strategies {
				if r5 := RecallAt(DocRanking(runs[i].res.Chunks), q.GoldDocs, 5); r5 > loss.BestR5 {
					loss.Best, loss.BestR5 = RetrieverName(s), r5
				}
			}
			if loss.BestR5 > loss.Routed {
				loss.GoldRank = missedGoldRank(routed, q.GoldDocs, 5, 10)
				rep.RoutedBehind = append(rep.RoutedBehind, loss)
			}
		}
		if ariadne.Route(q.Type).Valid() {
			rep.RouterN++
			if string(res.Trace.Router.Route) == q.Type {
				routeOK++
			} else {
				rep.RouterConfusion[q.Type+"→"+string(res.Trace.Router.Route)]++
				rep.Misrouted = append(rep.Misrouted, q.ID)
			}
		}
	}
	if rep.RouterN > 0 {
		rep.RouterAccuracy = float64(routeOK) / float64(rep.RouterN)
	}
	names := make([]RetrieverName, 0, len(per))
	for _, s := range strategies {
		names = append(names, RetrieverName(s))
	}
	names = append(names, Routed)
	for _, name := range names {
		groups := make([]string, 0, len(per[name]))
		for g := range per[name] {
			groups = append(groups, g)
		}
		sort.Slice(groups, func(i, j int) bool { return groupOrder(groups[i]) < groupOrder(groups[j]) })
		for _, g := range groups {
			obsList := per[name][g]
			row := RetrievalRow{Retriever: name, Group: g, N: len(obsList), Hit: map[int]float64{}, Recall: map[int]float64{},
				Latency: map[string]float64{}}
			var lat []float64
			for _, kk := range retrievalKs() {
				var h, rc Mean
				for _, o := range obsList {
					h.Add(o.hit[kk])
					rc.Add(o.recall[kk])
				}
				row.Hit[kk], row.Recall[kk] = h.Value(), rc.Value()
			}
			var m Mean
			for _, o := range obsList {
				m.Add(o.mrr)
				lat = append(lat, o.ms)
			}
			row.MRR10 = m.Value()
			row.Latency["p50"], row.Latency["p95"] = Percentile(lat, 50), Percentile(lat, 95)
			rep.Rows = append(rep.Rows, row)
		}
	}
	return rep, nil
}

// missedGoldRank is the 1-based rank in ranked of the first gold document not among the top k,
// or 0 when none is within the top limit.
func missedGoldRank(ranked, gold []string, k, limit int) int {
	for i, d := range ranked {
		if i >= limit {
			break
		}
		if i >= k && slices.Contains(gold, d) {
			return i + 1
		}
	}
	return 0
}

// viaGroup names the group of the questions the router sent to route: every retriever's row in
// it says what that strategy would have retrieved for them, so routed can be read against the
// best single strategy route by route.
func viaGroup(route ariadne.Route) string { return "via " + string(route) }

func groupOrder(g string) string {
	switch g {
	case "all":
		return "0"
	case "cross_language":
		return "9"
	}
	if strings.HasPrefix(g, "via ") {
		return "a" + g // after the question types: a route is not a type
	}
	return "1" + g
}

// crossLanguage reports whether a question is asked in another language than all of its gold
// documents.
func crossLanguage(q Question, docLang map[string]string) bool {
	if q.Lang == "" || len(q.GoldDocs) == 0 || docLang == nil {
		return false
	}
	for _, d := range q.GoldDocs {
		if l, ok := docLang[d]; !ok || l == q.Lang {
			return false
		}
	}
	return true
}

// Markdown writes the report as tables.
func (rep RetrievalReport) Markdown(w io.Writer) {
	fmt.Fprintln(w, "| retriever | questions | n | hit@1 | hit@3 | hit@5 | recall@2 | recall@5 | recall@10 | MRR@10 | p50 ms | p95 ms |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %.0f | %.0f |\n", r.Retriever, r.Group, r.N,
			f3(r.Hit[1]), f3(r.Hit[3]), f3(r.Hit[5]), f3(r.Recall[2]), f3(r.Recall[5]), f3(r.Recall[10]), f3(r.MRR10),
			r.Latency["p50"], r.Latency["p95"])
	}
	fmt.Fprintf(w, "\nRouter accuracy: %s over %d questions", f3(rep.RouterAccuracy), rep.RouterN)
	if len(rep.RouterConfusion) > 0 {
		var parts []string
		for k, v := range rep.RouterConfusion {
			parts = append(parts, fmt.Sprintf("%s ×%d", k, v))
		}
		slices.Sort(parts)
		fmt.Fprintf(w, " (misses: %s; %s)", strings.Join(parts, ", "), firstN(rep.Misrouted, 20))
	}
	if len(rep.RoutedBehind) > 0 {
		parts := make([]string, 0, len(rep.RoutedBehind))
		for _, l := range rep.RoutedBehind {
			rank := "not in top 10"
			if l.GoldRank > 0 {
				rank = fmt.Sprintf("gold at %d", l.GoldRank)
			}
			parts = append(parts, fmt.Sprintf("%s (via %s: %.2f < %s %.2f, %s)", l.ID, l.Route, l.Routed, l.Best, l.BestR5, rank))
		}
		fmt.Fprintf(w, "\nRouted below the best strategy at recall@5 on %d questions: %s", len(parts), firstN(parts, 20))
	}
	fmt.Fprintf(w, "\nACL leaks (returned chunks the asker may not read): %d\n", rep.ACLLeaks)
}

func f3(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.3f", x)
}

// firstN joins at most n ids and says how many more there are.
func firstN(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, " ")
	}
	return strings.Join(ids[:n], " ") + fmt.Sprintf(" … and %d more", len(ids)-n)
}
