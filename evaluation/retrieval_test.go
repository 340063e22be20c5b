package evaluation

import (
	"context"
	"reflect"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
)

// fakeRetriever answers every strategy with its fixed document list and routes each question by
// a table; the routed list is the list of the route's strategy.
type fakeRetriever struct {
	lists map[agent.Strategy][]string // document ids, best first
	route map[string]ariadne.Route    // question → route
}

func (f fakeRetriever) chunks(s agent.Strategy) []ariadne.ScoredChunk {
	var out []ariadne.ScoredChunk
	for _, d := range f.lists[s] {
		out = append(out, ariadne.ScoredChunk{Chunk: ariadne.Chunk{ID: d + "#0000-00000000", DocID: d, ACL: []string{ariadne.PublicGroup}}})
	}
	return out
}

func (f fakeRetriever) Run(_ context.Context, s agent.Strategy, _ agent.Request) (agent.Result, error) {
	return agent.Result{Chunks: f.chunks(s)}, nil
}

func (f fakeRetriever) Retrieve(_ context.Context, req agent.Request) (agent.Result, error) {
	route := f.route[req.Question]
	s := agent.StrategyHybrid
	if route == ariadne.RouteMultiHop {
		s = agent.StrategyGraph
	}
	return agent.Result{Route: route, Chunks: f.chunks(s), Trace: &agent.Trace{Router: agent.Decision{Route: route}}}, nil
}

// TestRunRetrievalViaRouteGroups: every retriever's row in "via <route>" covers exactly the
// questions the router sent there, so routed can be read against each strategy route by route.
func TestRunRetrievalViaRouteGroups(t *testing.T) {
	f := fakeRetriever{
		lists: map[agent.Strategy][]string{
			agent.StrategyHybrid: {"a", "b", "c"},
			agent.StrategyGraph:  {"c", "x", "y"},
		},
		route: map[string]ariadne.Route{"q1": ariadne.RouteSimple, "q2": ariadne.RouteMultiHop},
	}
	qs := []Question{
		{ID: "1", Question: "q1", Type: "simple", GoldDocs: []string{"a"}, UserGroups: []string{ariadne.PublicGroup}},
		{ID: "2", Question: "q2", Type: "simple", GoldDocs: []string{"b"}, UserGroups: []string{ariadne.PublicGroup}},
	}
	rep, err := RunRetrieval(context.Background(), f, qs, []agent.Strategy{agent.StrategyHybrid}, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		name  RetrieverName
		group string
	}
	got := map[key]RetrievalRow{}
	var order []key
	for _, r := range rep.Rows {
		got[key{r.Retriever, r.Group}] = r
		order = append(order, key{r.Retriever, r.Group})
	}
	want := []struct {
		k       key
		n       int
		hit1    float64
		recall5 float64
	}{
		{key{"hybrid", "all"}, 2, 0.5, 1},
		{key{"hybrid", "via simple"}, 1, 1, 1},
		{key{"hybrid", "via multi_hop"}, 1, 0, 1},
		{key{Routed, "all"}, 2, 0.5, 0.5},
		{key{Routed, "via simple"}, 1, 1, 1},
		{key{Routed, "via multi_hop"}, 1, 0, 0},
	}
	for _, w := range want {
		r, ok := got[w.k]
		if !ok {
			t.Fatalf("no row %v; rows %v", w.k, order)
		}
		if r.N != w.n || r.Hit[1] != w.hit1 || r.Recall[5] != w.recall5 {
			t.Errorf("%v: n %d hit@1 %.2f recall@5 %.2f, want %d %.2f %.2f", w.k, r.N, r.Hit[1], r.Recall[5], w.n, w.hit1, w.recall5)
		}
	}
	// Question 2 lost on the multi_hop route what hybrid found: it is listed to be traced.
	wantBehind := []RoutedLoss{{ID: "2", Route: ariadne.RouteMultiHop, Routed: 0, Best: "hybrid", BestR5: 1, GoldRank: 0}}
	if !reflect.DeepEqual(rep.RoutedBehind, wantBehind) {
		t.Errorf("routed behind %+v, want %+v", rep.RoutedBehind, wantBehind)
	}
	// The route groups come after the question types.
	wantOrder := []key{{"hybrid", "all"}, {"hybrid", "simple"}, {"hybrid", "via multi_hop"}, {"hybrid", "via simple"},
		{Routed, "all"}, {Routed, "simple"}, {Routed, "via multi_hop"}, {Routed, "via simple"}}
	if len(order) != len(wantOrder) {
		t.Fatalf("rows %v, want %v", order, wantOrder)
	}
	for i := range order {
		if order[i] != wantOrder[i] {
			t.Fatalf("rows %v, want %v", order, wantOrder)
		}
	}
}

func TestMissedGoldRank(t *testing.T) {
	ranked := []string{"a", "b", "c", "d", "e", "f", "g"}
	for _, tc := range []struct {
		gold []string
		want int
	}{
		{[]string{"a"}, 0},      // in the top 5: nothing missed
		{[]string{"a", "g"}, 7}, // the second gold document sits at 7
		{[]string{"f", "g"}, 6},
		{[]string{"z"}, 0}, // not retrieved at all
	} {
		if got := missedGoldRank(ranked, tc.gold, 5, 10); got != tc.want {
			t.Errorf("missedGoldRank(%v) = %d, want %d", tc.gold, got, tc.want)
		}
	}
	if got := missedGoldRank(ranked, []string{"g"}, 5, 6); got != 0 {
		t.Errorf("beyond the limit: %d, want 0", got)
	}
}
