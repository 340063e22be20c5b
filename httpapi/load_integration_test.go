package httpapi_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/httpapi"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/llm"
)

// loadTargets are mixed routes and languages over testrig.KB: questions (ru, en), searches,
// entity lookups in both scripts and the document list.
func loadTargets(base string) []vegeta.Target {
	hdr := http.Header{"Content-Type": []string{"application/json"}, "Authorization": []string{"Bearer delivery-key"}}
	auth := http.Header{"Authorization": []string{"Bearer delivery-key"}}
	q := func(path, question string) vegeta.Target {
		return vegeta.Target{Method: "POST", URL: base + path, Header: hdr,
			Body: []byte(fmt.Sprintf(`{"question":%q}`, question))}
	}
	return []vegeta.Target{
		q("/v1/query", leaveQuestion),
		q("/v1/query", "Who is on the backend team?"),
		q("/v1/query", "Какой клиент у проекта бронирования Орбиты?"),
		q("/v1/search", "memcached cache"),
		q("/v1/search", "сбой очереди"),
		{Method: "GET", URL: base + "/v1/entities?q=" + url.QueryEscape("Березин"), Header: auth},
		{Method: "GET", URL: base + "/v1/entities?q=Orbita", Header: auth},
		{Method: "GET", URL: base + "/v1/documents?limit=20", Header: auth},
	}
}

// loadEngine is the production engine over the real stores (lexical embedder) with the given
// generator (agent.TermExtractive: the offline path) and limits, on a loopback listener.
func loadEngine(t *testing.T, rig *testrig.Rig, gen agent.Generator, lim httpapi.Limits) *httptest.Server {
	t.Helper()
	keys, err := httpapi.ParseKeys([]byte(keysYAML))
	if err != nil {
		t.Fatal(err)
	}
	metrics := httpapi.NewMetrics()
	rcfg := agent.RetrievalConfig{Alpha: agent.DefaultAlpha(rig.Embedder.Name())}
	r := agent.NewRetriever(rig.Vector, rig.Graph, rig.Embedder, nil, rcfg, nil)
	a := agent.NewAnswerer(r, gen, rig.Vector, agent.AnswerConfig{Deadline: lim.QueryTimeout}, agent.Hooks{}, nil)
	engine := httpapi.New(httpapi.Services{Answerer: a, Retriever: r, Entities: rig.Graph, Library: rig.Graph, Documents: rig.Pipe,
		Keys: keys, Ready: func(context.Context) map[string]httpapi.Check { return map[string]httpapi.Check{} }, Metrics: metrics}, lim)
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	return srv
}

// routeOf is the route of a result ("POST /v1/query").
func routeOf(r *vegeta.Result) string {
	u, _ := url.Parse(r.URL)
	return r.Method + " " + u.Path
}

type loadRun struct {
	clients  int
	total    *vegeta.Metrics
	perRoute map[string]*vegeta.Metrics
	bad      map[string]int // status (or error) → count, for anything but 200, 429 and 503
	shed     int            // 429 and 503 with Retry-After and a JSON error
	// unavailable counts 503s with a JSON error and no Retry-After: a question that ran past its
	// budget or found a store down (the API's answer instead of a partial one).
	unavailable int
}

// attack runs clients concurrent closed-loop clients for d (vegeta's max-rate mode: each worker
// sends its next request when the previous answer arrived), each request bounded by timeout.
func attack(t *testing.T, base string, clients int, d, timeout time.Duration) loadRun {
	t.Helper()
	atk := vegeta.NewAttacker(vegeta.Workers(uint64(clients)), vegeta.MaxWorkers(uint64(clients)),
		vegeta.Timeout(timeout), vegeta.KeepAlive(true), vegeta.Connections(clients))
	run := loadRun{clients: clients, total: &vegeta.Metrics{}, perRoute: map[string]*vegeta.Metrics{}, bad: map[string]int{}}
	for res := range atk.Attack(vegeta.NewStaticTargeter(loadTargets(base)...), vegeta.Rate{Freq: 0}, d, "load") {
		run.total.Add(res)
		rt := routeOf(res)
		if run.perRoute[rt] == nil {
			run.perRoute[rt] = &vegeta.Metrics{}
		}
		run.perRoute[rt].Add(res)
		switch {
		case res.Code == 200:
		case (res.Code == 429 || res.Code == 503) && bytes.Contains(res.Body, []byte(`"code":"`)) && retryAfter(res) > 0:
			run.shed++
		case res.Code == 503 && bytes.Contains(res.Body, []byte(`"code":"`)):
			run.unavailable++
		default:
			k := strconv.Itoa(int(res.Code))
			if res.Error != "" {
				k += " " + res.Error
			}
			run.bad[k]++
		}
	}
	run.total.Close()
	for _, m := range run.perRoute {
		m.Close()
	}
	return run
}

func retryAfter(r *vegeta.Result) int {
	n, _ := strconv.Atoi(r.Headers.Get("Retry-After"))
	return n
}

func (r loadRun) log(t *testing.T, label string) {
	m := r.total
	t.Logf("RESULT load %s clients=%d requests=%d throughput=%.1f/s p50=%s p95=%s p99=%s max=%s shed=%d unavailable=%d other_errors=%v",
		label, r.clients, m.Requests, m.Throughput, m.Latencies.P50.Round(time.Millisecond), m.Latencies.P95.Round(time.Millisecond),
		m.Latencies.P99.Round(time.Millisecond), m.Latencies.Max.Round(time.Millisecond), r.shed, r.unavailable, r.bad)
	routes := make([]string, 0, len(r.perRoute))
	for k := range r.perRoute {
		routes = append(routes, k)
	}
	sort.Strings(routes)
	for _, k := range routes {
		pm := r.perRoute[k]
		t.Logf("RESULT load %s clients=%d route=%q requests=%d p50=%s p95=%s p99=%s codes=%v", label, r.clients, k, pm.Requests,
			pm.Latencies.P50.Round(time.Millisecond), pm.Latencies.P95.Round(time.Millisecond), pm.Latencies.P99.Round(time.Millisecond), pm.StatusCodes)
	}
}

// rssKB is this process's resident set size (the API runs in it), from /proc/self/status.
func rssKB() int {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			n, _ := strconv.Atoi(strings.Fields(l)[1])
			return n
		}
	}
	return -1
}

// TestIntegrationLoad drives the offline path over loopback with vegeta at increasing
// concurrency. With limits above the load every answer is 200; with the default per-route
// concurrency limit the API sheds the excess with 503 overloaded (+ Retry-After) at once instead
// of queuing, and whatever it admits stays fast. make test runs 5 s per level up to 8 clients;
// ARIADNE_LOAD_LONG=1 (make reliability) runs 1, 8, 32 and 50 clients for 60 s each.
func TestIntegrationLoad(t *testing.T) {
	rig := testrig.New(t, testrig.KB)
	levels, d := []int{1, 8}, 5*time.Second
	if os.Getenv("ARIADNE_LOAD_LONG") == "1" {
		levels, d = []int{1, 8, 32, 50}, 60*time.Second
	}
	// Limits above the load: nothing may fail.
	roomy := loadEngine(t, rig, agent.TermExtractive{}, httpapi.Limits{QueryTimeout: 60 * time.Second, QueryConcurrency: 64, ReadConcurrency: 64})
	runtime.GC()
	before := rssKB()
	for _, n := range levels {
		r := attack(t, roomy.URL, n, d, 60*time.Second)
		r.log(t, "unshed")
		if len(r.bad) > 0 || r.shed > 0 || r.unavailable > 0 {
			t.Errorf("%d clients under roomy limits: %d shed, %d unavailable, errors %v; want every answer 200", n, r.shed, r.unavailable, r.bad)
		}
	}
	runtime.GC()
	t.Logf("RESULT load rss_kb_before=%d rss_kb_after=%d goroutines=%d", before, rssKB(), runtime.NumGoroutine())

	// Overload: 4 query slots and 100ms of queue wait against 8× as many clients.
	lim := httpapi.Limits{QueryTimeout: 60 * time.Second, QueryConcurrency: 4, QueueWait: 100 * time.Millisecond}
	tight := loadEngine(t, rig, agent.TermExtractive{}, lim)
	clients := levels[len(levels)-1] * 4
	r := attack(t, tight.URL, clients, d, 60*time.Second)
	r.log(t, "overload(4 query slots)")
	if len(r.bad) > 0 || r.unavailable > 0 {
		t.Errorf("overload: errors other than 429/503 with Retry-After: %v, %d unavailable", r.bad, r.unavailable)
	}
	if r.shed == 0 {
		t.Errorf("overload with %d clients on 4 slots shed nothing", clients)
	}
	if p99 := r.perRoute["POST /v1/query"].Latencies.P99; p99 > 30*time.Second {
		t.Errorf("query p99 %s under overload: requests queued instead of being shed", p99)
	}
}

// TestIntegrationLoadLocalModel is the lighter run with the local chat model answering
// (agent.LLMGenerator): 2 closed-loop clients on the same mixed routes for 90 s, with the API's
// default query budget (90 s) and limits above the load. Every response must be 200 or a 503
// with a JSON error (a question past its budget: unavailable); none may hang past the budget.
// It runs when ARIADNE_LOAD_LLM_URL names a chat model server that answers (make reliability
// sets it when deploy/local.sh up llm is running); ARIADNE_LOAD_LLM_MODEL names the model.
func TestIntegrationLoadLocalModel(t *testing.T) {
	base := os.Getenv("ARIADNE_LOAD_LLM_URL")
	if base == "" || testenv.HTTPGet(base+"/models")(context.Background()) != nil {
		t.Skipf("SKIP: no local chat model answers at %q (set ARIADNE_LOAD_LLM_URL; make reliability sets it when the llm server is up)", base)
	}
	m, err := llm.NewOpenAI(llm.Config{BaseURL: base, Model: cmp.Or(os.Getenv("ARIADNE_LOAD_LLM_MODEL"), "qwen2.5-1.5b"), Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	rig := testrig.New(t, testrig.KB)
	budget := 90 * time.Second
	srv := loadEngine(t, rig, agent.LLMGenerator{Model: m}, httpapi.Limits{QueryTimeout: budget, QueryConcurrency: 64, ReadConcurrency: 64})
	runtime.GC()
	before := rssKB()
	r := attack(t, srv.URL, 2, 90*time.Second, budget+30*time.Second)
	r.log(t, "local-model("+m.Name()+")")
	runtime.GC()
	t.Logf("RESULT load local-model rss_kb_before=%d rss_kb_after=%d goroutines=%d", before, rssKB(), runtime.NumGoroutine())
	if len(r.bad) > 0 {
		t.Errorf("local model: errors other than 503 unavailable: %v", r.bad)
	}
	if q := r.perRoute["POST /v1/query"]; q == nil || q.StatusCodes["200"] == 0 {
		t.Errorf("local model: no question answered 200 in 90 s (%v)", q)
	}
	if mx := r.total.Latencies.Max; mx > budget+10*time.Second {
		t.Errorf("a request took %s, past the %s budget", mx, budget)
	}
}
