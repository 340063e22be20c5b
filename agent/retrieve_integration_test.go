package agent_test

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/retry"
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

// TestIntegrationRoutes runs each route on questions written for the shared corpus and checks the
// router's choice and the chunks that must come back.
func TestIntegrationRoutes(t *testing.T) {
	rig := testrig.New(t, testrig.SharedKB)
	r := newRetriever(rig, agent.RetrievalConfig{})
	ctx := context.Background()
	tests := []struct {
		name      string
		question  string
		groups    []string
		route     ariadne.Route
		wantFirst string   // the chunk that must rank first
		wantDocs  []string // documents that must be among the top 8 chunks
	}{
		{
			name:      "simple",
			question:  "Сколько календарных дней ежегодного отпуска получает сотрудник?",
			route:     ariadne.RouteSimple,
			wantFirst: "policies/vacation#0000-2b690c29",
		},
		{
			name:      "hybrid: error code",
			question:  "Что означает код E-5031 и что проверить первым?",
			route:     ariadne.RouteHybrid,
			wantFirst: "runbooks/db-connection#0000-f3daa9d4",
		},
		{
			name:     "hybrid: slang for a Latin name",
			question: "Какой maxmemory у кластера редиса для магазина?",
			route:    ariadne.RouteHybrid,
			wantDocs: []string{"technologies/redis"},
		},
		{
			name:     "multi_hop: library behind an incident and its owner team",
			question: "Какая команда отвечает за библиотеку, которая стала первопричиной INC-3051, и кто её руководитель?",
			route:    ariadne.RouteMultiHop,
			wantDocs: []string{"incidents/inc-3051", "technologies/sv-tokenguard", "teams/platform"},
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
		res, err := r.Retrieve(ctx, agent.Request{Question: "Сколько календарных дней ежегодного отпуска получает сотрудник?",
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

	t.Run("entity linking across scripts and case forms", func(t *testing.T) {
		for _, q := range []string{"Альфа Логистик", "Alfa Logistic", "альфа-логистик", "клиенту «Альфа-Логистику»"} {
			linked, err := r.Link(ctx, "Что известно про "+q+"?", []string{"all"})
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, l := range linked {
				keys = append(keys, l.Key)
			}
			if !slices.Equal(keys, []string{"clients/alfa-logistic"}) {
				t.Errorf("%q linked to %v, want [clients/alfa-logistic]", q, keys)
			}
		}
	})
}

// TestIntegrationACL: a user without `management` never receives a chunk of a management-only
// document, from any strategy or route, even when the question is about it.
func TestIntegrationACL(t *testing.T) {
	rig := testrig.New(t, testrig.SharedKB)
	r := newRetriever(rig, agent.RetrievalConfig{})
	ctx := context.Background()
	restricted := map[string]bool{"contracts/ctr-2023-089": true, "policies/salary-bands": true}
	questions := []string{
		"Какой штраф платит Северный ветер по договору CTR-2023-089?",
		"Какая зарплатная вилка у грейда G3?",
		"What monthly fee does Kamsky Bereg pay under its contract with us, and what is the availability SLA?",
		"Выведи таблицу зарплатных вилок из документа о грейдах",
	}
	users := [][]string{{"all"}, {"all", "delivery"}, {"all", "sales"}}
	for _, q := range questions {
		for _, groups := range users {
			check := func(how string, res agent.Result) {
				for _, c := range res.Chunks {
					if restricted[c.DocID] {
						t.Errorf("%s for %v on %q returned %s", how, groups, q, c.ID)
					}
				}
				for _, p := range res.Paths {
					for _, e := range p.Edges {
						for _, id := range e.ChunkIDs {
							if restricted[ariadne.DocIDOfChunk(id)] {
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
	// A management user does get them: the filter is the groups, not the documents.
	res, err := r.Retrieve(ctx, agent.Request{Question: questions[1], Groups: []string{"all", "management"}, Mode: "hybrid"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(docsOf(res.Chunks), "policies/salary-bands") {
		t.Errorf("a management user did not get the salary bands: %v", docsOf(res.Chunks))
	}
}

// localServer stops and starts a server that deploy/local.sh manages, or skips the test when the
// server was not started by it (its pid file is missing): a test never stops someone else's server.
func localServer(t *testing.T, name string) (stop, start func()) {
	t.Helper()
	if out, err := exec.Command("../deploy/local.sh", "status", name).CombinedOutput(); err != nil || !strings.Contains(string(out), "pid") {
		if testenv.Required() && err == nil {
			t.Skipf("%s is not managed by deploy/local.sh (%s); cannot restart it", name, strings.TrimSpace(string(out)))
		}
		t.Skipf("%s is not managed by deploy/local.sh: %s", name, strings.TrimSpace(string(out)))
	}
	run := func(cmd string) {
		if out, err := exec.Command("../deploy/local.sh", cmd, name).CombinedOutput(); err != nil {
			t.Fatalf("deploy/local.sh %s %s: %v\n%s", cmd, name, err, out)
		}
	}
	t.Cleanup(func() { run("up") }) // never leave it down
	return func() { run("down") }, func() { run("up") }
}

// TestIntegrationWeaviateRestartWithinBackoff stops Weaviate, asks a question, restarts Weaviate
// while the retriever is backing off, and expects the answer; then stops it for good and expects
// a matchable ErrUnavailable within the retry deadline.
func TestIntegrationWeaviateRestartWithinBackoff(t *testing.T) {
	rig := testrig.New(t, testrig.SharedKB)
	stop, start := localServer(t, "weaviate")
	q := agent.Request{Question: "Что означает код E-5031?", Groups: []string{"all"}, Mode: "hybrid"}
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
	if len(res.Chunks) == 0 || res.Chunks[0].DocID != "runbooks/db-connection" || len(res.Trace.Retries) == 0 {
		t.Fatalf("after restart: chunks %v, retries %d", ids(res.Chunks), len(res.Trace.Retries))
	}
	t.Logf("survived the restart after %d retries", len(res.Trace.Retries))

	short := newRetriever(rig, agent.RetrievalConfig{Retry: retry.Policy{Initial: 100 * time.Millisecond, Max: 500 * time.Millisecond,
		MaxAttempts: 100, MaxElapsed: 3 * time.Second}})
	stop()
	began := time.Now()
	_, err := short.Retrieve(context.Background(), q)
	elapsed := time.Since(began)
	start()
	if !errors.Is(err, ariadne.ErrUnavailable) {
		t.Fatalf("Weaviate down: err = %v, want ErrUnavailable", err)
	}
	if elapsed > 8*time.Second {
		t.Fatalf("gave up after %v, want within the 3s retry deadline (plus one request timeout)", elapsed)
	}
}
