package agent_test

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/retry"
	"github.com/ariadne-graphrag/ariadne/vector"
)

func newRetriever(r *testrig.Rig, cfg agent.RetrievalConfig) *agent.Retriever {
	if cfg.Alpha == 0 {
		cfg.Alpha = agent.DefaultAlpha(r.Embedder.Name())
	}
	return agent.NewRetriever(r.Vector, r.Graph, r.Embedder, nil, cfg, nil)
}

func ids(chunks []ariadne.ScoredChunk) []string {
	var out []string
	for _, c := range chunks {
		out = append(out, c.ID)
	}
	return out
}

func docsOf(chunks []ariadne.ScoredChunk) []string {
	var out []string
	for _, c := range chunks {
		if !slices.Contains(out, c.DocID) {
			out = append(out, c.DocID)
		}
	}
	return out
}

// TestIntegrationRoutes runs each route on questions written for the repository's test corpus
// (testrig.KB) and checks the router's choice and the chunks that must come back.
func TestIntegrationRoutes(t *testing.T) {
	rig := testrig.New(t, testrig.KB)
	r := newRetriever(rig, agent.RetrievalConfig{})
	ctx := context.Background()
	tests := []struct {
		name      string
		question  string
		groups    []string
		route     ariadne.Route
		wantFirst string   // the chunk that must rank first
		wantDocs  []string // documents that must be among the top 8 chunks
		notFirst  string   // a document that must not rank first
	}{
		{
			name:      "simple: the current policy ranks above its superseded version",
			question:  "Сколько календарных дней ежегодного оплачиваемого отпуска положено сотруднику?",
			route:     ariadne.RouteSimple,
			wantFirst: "policies/leave#0000-0941dabd",
			notFirst:  "policies/leave-2022",
		},
		{
			name:      "hybrid: error code",
			question:  "Что означает код Q-4410 и что проверить первым?",
			route:     ariadne.RouteHybrid,
			wantFirst: "runbooks/queue-stall#0000-749213ca",
		},
		{
			name:      "hybrid: slang for a Latin name",
			question:  "Сколько памяти у кластера мемкеша для пекарни?",
			route:     ariadne.RouteHybrid,
			wantFirst: "technologies/memcached#0001-9deb5b8c",
			wantDocs:  []string{"technologies/memcached", "projects/zarya-orders"},
		},
		{
			name:     "multi_hop: library behind an incident and its owner team",
			question: "Какая команда владеет библиотекой, которая стала первопричиной INC-7042, и кто её руководитель?",
			route:    ariadne.RouteMultiHop,
			wantDocs: []string{"incidents/inc-7042", "technologies/doughmill", "teams/foundation", "people/artem-berezin"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			groups := tc.groups
			if groups == nil {
				groups = []string{"all"}
			}
			res, err := r.Retrieve(ctx, agent.Request{Question: tc.question, Groups: groups, TopK: 8})
			if err != nil {
				t.Fatal(err)
			}
			if res.Trace.Router.Route != tc.route {
				t.Errorf("routed %s (%v), want %s", res.Trace.Router.Route, res.Trace.Router.Reasons, tc.route)
			}
			if len(res.Chunks) == 0 {
				t.Fatal("no chunks")
			}
			if tc.wantFirst != "" && res.Chunks[0].ID != tc.wantFirst {
				t.Errorf("first chunk %s, want %s (all: %v)", res.Chunks[0].ID, tc.wantFirst, ids(res.Chunks))
			}
			if tc.notFirst != "" && res.Chunks[0].DocID == tc.notFirst {
				t.Errorf("first chunk %s is from %s", res.Chunks[0].ID, tc.notFirst)
			}
			got := docsOf(res.Chunks)
			for _, d := range tc.wantDocs {
				if !slices.Contains(got, d) {
					t.Errorf("document %s not among %v", d, got)
				}
			}
			if tc.route == ariadne.RouteMultiHop {
				if len(res.Paths) == 0 {
					t.Error("multi_hop returned no paths")
				}
				for _, p := range res.Paths {
					for _, e := range p.Edges {
						if len(e.ChunkIDs) == 0 {
							t.Errorf("path edge %s without provenance", e.Type)
						}
					}
				}
			}
			if len(res.Trace.Steps) == 0 || res.Trace.Timings["total"] <= 0 {
				t.Errorf("trace incomplete: %+v", res.Trace)
			}
		})
	}

	t.Run("forced mode and graph fallback", func(t *testing.T) {
		res, err := r.Retrieve(ctx, agent.Request{Question: "Сколько календарных дней ежегодного оплачиваемого отпуска положено сотруднику?",
			Groups: []string{"all"}, Mode: "multi_hop"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Route != ariadne.RouteMultiHop || res.Trace.Router.Classifier != "forced" {
			t.Errorf("forced mode ignored: %s %s", res.Route, res.Trace.Router.Classifier)
		}
		if _, err := r.Retrieve(ctx, agent.Request{Question: "q", Groups: []string{"all"}, Mode: "web"}); !errors.Is(err, ariadne.ErrInvalid) {
			t.Errorf("mode web: %v", err)
		}
	})

	t.Run("entity linking across scripts, spellings and case forms", func(t *testing.T) {
		cases := map[string][]string{
			"clients/zarya-bakery":   {"Пекарня Заря", "Zarya Bakery", "Заря-Пекарня", "пекарни «Заря»", "клиенту «Пекарне Заря»"},
			"clients/orbita-clinic":  {"Orbita Clinic", "Клиника Орбита", "OrbitaMed", "клинике «Орбита»"},
			"clients/olkha-stroy":    {"Olkha Stroy"},
			"people/vera-kolesnik":   {"Вера Колесник"},
			"technologies/memcached": {"мемкеш"},
		}
		for want, variants := range cases {
			for _, q := range variants {
				linked, err := r.Link(ctx, "Что известно про "+q+"?", []string{"all"})
				if err != nil {
					t.Fatal(err)
				}
				var keys []string
				for _, l := range linked {
					keys = append(keys, l.Key)
				}
				if !slices.Equal(keys, []string{want}) {
					t.Errorf("%q linked to %v, want [%s]", q, keys, want)
				}
			}
		}
	})
}

// TestIntegrationACL: a user never receives a chunk of a document restricted to a group they do
// not hold (management, sales, delivery), from any strategy or route, even when the question is
// about it; a user holding the group does.
func TestIntegrationACL(t *testing.T) {
	rig := testrig.New(t, testrig.KB)
	r := newRetriever(rig, agent.RetrievalConfig{})
	ctx := context.Background()
	restricted := map[string]string{ // document → the only group that may read it
		"contracts/agr-2024-17":    "management",
		"policies/pay-grades":      "management",
		"policies/sales-discounts": "sales",
		"runbooks/orbita-release":  "delivery",
	}
	questions := []string{
		"Какой штраф платит Янтарный мост по договору AGR-2024-17?",
		"Какая зарплатная вилка у грейда P3?",
		"What monthly fee does Orbita Clinic pay under its contract with us, and what is the availability SLA?",
		"Выведи таблицу зарплатных вилок из документа о грейдах",
		"Какую скидку отдел продаж может дать новому клиенту?",
		"When are Orbita Booking releases allowed and who approves the rollback plan?",
	}
	users := [][]string{{"all"}, {"all", "delivery"}, {"all", "sales"}}
	for _, q := range questions {
		for _, groups := range users {
			forbidden := func(doc string) bool {
				g, ok := restricted[doc]
				return ok && !slices.Contains(groups, g)
			}
			check := func(how string, res agent.Result) {
				for _, c := range res.Chunks {
					if forbidden(c.DocID) {
						t.Errorf("%s for %v on %q returned %s", how, groups, q, c.ID)
					}
				}
				for _, p := range res.Paths {
					for _, e := range p.Edges {
						for _, id := range e.ChunkIDs {
							if forbidden(ariadne.DocIDOfChunk(id)) {
								t.Errorf("%s for %v on %q cites %s in a path", how, groups, q, id)
							}
						}
					}
				}
			}
			for _, mode := range []string{"auto", "simple", "hybrid", "multi_hop"} {
				res, err := r.Retrieve(ctx, agent.Request{Question: q, Groups: groups, Mode: mode, TopK: 20})
				if err != nil {
					t.Fatal(err)
				}
				check("mode "+mode, res)
			}
			for _, s := range []agent.Strategy{agent.StrategyBM25, agent.StrategyVector, agent.StrategyHybrid, agent.StrategyGraph} {
				res, err := r.Run(ctx, s, agent.Request{Question: q, Groups: groups, TopK: 20})
				if err != nil {
					t.Fatal(err)
				}
				check(string(s), res)
			}
		}
	}
	// A user holding the group does get the document: the filter is the groups, not the documents.
	for _, tc := range []struct {
		question string
		groups   []string
		doc      string
	}{
		{questions[1], []string{"all", "management"}, "policies/pay-grades"},
		{questions[0], []string{"all", "management"}, "contracts/agr-2024-17"},
		{questions[4], []string{"all", "sales"}, "policies/sales-discounts"},
		{questions[5], []string{"all", "delivery"}, "runbooks/orbita-release"},
	} {
		res, err := r.Retrieve(ctx, agent.Request{Question: tc.question, Groups: tc.groups, Mode: "hybrid"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(docsOf(res.Chunks), tc.doc) {
			t.Errorf("%v on %q did not get %s: %v", tc.groups, tc.question, tc.doc, ids(res.Chunks))
		}
	}
}

// TestIntegrationWeaviateRestartWithinBackoff stops Weaviate, asks a question, restarts Weaviate
// while the retriever is backing off, and expects the answer; then stops it for good and expects
// a matchable ErrUnavailable within the retry deadline.
func TestIntegrationWeaviateRestartWithinBackoff(t *testing.T) {
	rig := testrig.New(t, testrig.KB)
	// Weaviate goes away and comes back through loopback proxies, so the shared server keeps
	// running for everyone else.
	u, err := url.Parse(testenv.WeaviateURL())
	if err != nil {
		t.Fatal(err)
	}
	rest, grpc := testenv.NewProxy(t, u.Host), testenv.NewProxy(t, testenv.WeaviateGRPC())
	vs, err := vector.Open(context.Background(), vector.Config{URL: "http://" + rest.Addr(), GRPCAddr: grpc.Addr(), APIKey: testenv.WeaviateAPIKey(), Class: rig.Vector.Class()})
	if err != nil {
		t.Fatal(err)
	}
	proxied := *rig
	proxied.Vector = vs
	rig = &proxied
	stop, start := func() { rest.Stop(); grpc.Stop() }, func() { rest.Start(); grpc.Start() }
	q := agent.Request{Question: "Что означает код Q-4410?", Groups: []string{"all"}, Mode: "hybrid"}
	r := newRetriever(rig, agent.RetrievalConfig{Retry: retry.Policy{Initial: 250 * time.Millisecond, Max: 2 * time.Second,
		MaxAttempts: 40, MaxElapsed: 60 * time.Second}})

	stop()
	done := make(chan error, 1)
	var res agent.Result
	go func() {
		var err error
		res, err = r.Retrieve(context.Background(), q)
		done <- err
	}()
	time.Sleep(time.Second)
	start()
	if err := <-done; err != nil {
		t.Fatalf("query across a restart failed: %v", err)
	}
	if len(res.Chunks) == 0 || res.Chunks[0].DocID != "runbooks/queue-stall" || len(res.Trace.Retries) == 0 {
		t.Fatalf("after restart: chunks %v, retries %d", ids(res.Chunks), len(res.Trace.Retries))
	}
	t.Logf("survived the restart after %d retries", len(res.Trace.Retries))

	short := newRetriever(rig, agent.RetrievalConfig{Retry: retry.Policy{Initial: 100 * time.Millisecond, Max: 500 * time.Millisecond,
		MaxAttempts: 100, MaxElapsed: 3 * time.Second}})
	stop()
	began := time.Now()
	_, err = short.Retrieve(context.Background(), q)
	elapsed := time.Since(began)
	start()
	if !errors.Is(err, ariadne.ErrUnavailable) {
		t.Fatalf("Weaviate down: err = %v, want ErrUnavailable", err)
	}
	if elapsed > 8*time.Second {
		t.Fatalf("gave up after %v, want within the 3s retry deadline (plus one request timeout)", elapsed)
	}
}
