package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/corpus"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/httpapi"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// The canary corpus (testdata/canary) holds public documents and documents restricted to
// management or sales. Each restricted document carries canary strings in its id, title, aliases,
// headings and body that no other document contains; public documents mention the restricted
// contracts by code only, and the person page exists only for management.
var canaries = map[string][]string{
	"management": {"mgmtidqx", "mgmttitleqx", "mgmtaliasqx", "mgmtheadqx", "mgmtbodyqx", "mgmtpersonqx", "Quillane", "people/wexford", canarySource},
	"sales":      {"salesidqx", "salestitleqx", "salesaliasqx", "salesheadqx", "salesbodyqx"},
}

const canaryKeys = `
public_groups: [all]
keys:
  - {name: delivery, key: delivery-key, groups: [delivery]}
  - {name: sales, key: sales-key, groups: [sales]}
  - {name: boss, key: management-key, groups: [management]}
  - {name: editor, key: editor-key, groups: [all], write: true}
`

// canaryCaller is one API key of canaryKeys (or none) with the canary groups it may read.
type canaryCaller struct {
	name, key string
	may       []string
}

var canaryCallers = []canaryCaller{
	{"anonymous", "", nil},
	{"delivery", "delivery-key", nil},
	{"sales", "sales-key", []string{"sales"}},
	{"management", "management-key", []string{"management", "sales"}}, // the sales offer is [sales, management]
	{"editor", "editor-key", nil},
}

// canaryRequest is one request of a route's table entry.
type canaryRequest struct {
	method, path, contentType string
	body                      any
	sse                       bool
}

// canaryQuestions are asked through /v1/query and /v1/search, as they are and forced to each route.
var canaryQuestions = []string{
	"Какой штраф по договору CTR-7731, если доступность ниже 99,9%?",
	"What discount does offer CTR-7740 give for Borealis Freight?",
	"Who is Wexford Quillane?",
	"Who curates the contract of the client whose project the Ops Team runs?",
	"mgmttitleqx mgmtaliasqx salestitleqx",
	// comparisons read the compared things' own pages (agent/compare.go)
	"Which contract has the bigger penalty, CTR-7731 or CTR-7740?",
	"Who joined earlier, Wexford Quillane or the Ops Team lead?",
}

// canaryEntityQueries are sent to /v1/entities: codes public documents use, canaries, names only
// restricted documents give.
var canaryEntityQueries = []string{"CTR-7731", "CTR-7740", "mgmtaliasqx agreement", "salesaliasqx offer", "mgmttitleqx",
	"Wexford Quillane", "Borealis Freight", "Lynx Routing", "Ops Team"}

// canaryDocIDs are read through /v1/documents/{id} and /v1/entities/{key}/neighbors (documented
// entities are keyed by their document id).
var canaryDocIDs = []string{"clients/borealis-freight", "projects/lynx-routing", "teams/ops-team",
	"contracts/ctr-7731-mgmtidqx", "contracts/ctr-7740-salesidqx", "people/wexford-quillane", "no/such-document"}

// canaryRoutes gives, for every route of the OpenAPI document ("METHOD /path"), the requests the
// canary test makes; discovered holds entity keys and chunk ids seen in earlier responses. A
// route without an entry fails the test: a new endpoint must say how it is probed.
var canaryRoutes = map[string]func(discovered *discoveries) []canaryRequest{
	"POST /v1/query": func(*discoveries) []canaryRequest {
		var out []canaryRequest
		for _, q := range canaryQuestions {
			for _, mode := range []string{"auto", "simple", "hybrid", "multi_hop"} {
				body := map[string]any{"question": q, "mode": mode, "debug": true}
				out = append(out, canaryRequest{method: "POST", path: "/v1/query", contentType: "application/json", body: body})
			}
			out = append(out, canaryRequest{method: "POST", path: "/v1/query", contentType: "application/json",
				body: map[string]any{"question": q, "debug": true}, sse: true})
		}
		return out
	},
	"POST /v1/search": func(*discoveries) []canaryRequest {
		var out []canaryRequest
		for _, q := range canaryQuestions {
			for _, mode := range []string{"auto", "multi_hop"} {
				out = append(out, canaryRequest{method: "POST", path: "/v1/search", contentType: "application/json",
					body: map[string]any{"question": q, "mode": mode, "debug": true, "top_k": 20}})
			}
		}
		return out
	},
	"GET /v1/entities": func(*discoveries) []canaryRequest {
		var out []canaryRequest
		for _, q := range canaryEntityQueries {
			out = append(out, canaryRequest{method: "GET", path: "/v1/entities?limit=100&q=" + url.QueryEscape(q)})
		}
		return out
	},
	"GET /v1/entities/{key}/neighbors": func(d *discoveries) []canaryRequest {
		var out []canaryRequest
		for _, k := range append(slices.Clone(canaryDocIDs), d.list("entity")...) {
			out = append(out, canaryRequest{method: "GET", path: "/v1/entities/" + url.PathEscape(k) + "/neighbors"})
		}
		return out
	},
	"GET /v1/documents": func(*discoveries) []canaryRequest {
		return []canaryRequest{{method: "GET", path: "/v1/documents?limit=500"}, {method: "GET", path: "/v1/documents?limit=2&offset=2"}}
	},
	"GET /v1/documents/{id}": func(*discoveries) []canaryRequest {
		var out []canaryRequest
		for _, id := range canaryDocIDs {
			out = append(out, canaryRequest{method: "GET", path: "/v1/documents/" + url.PathEscape(id)})
		}
		return out
	},
	"GET /v1/chunks/{id}": func(d *discoveries) []canaryRequest {
		var out []canaryRequest
		for _, id := range append(d.list("chunk"), "contracts/ctr-7731-mgmtidqx#0000-00000000") {
			out = append(out, canaryRequest{method: "GET", path: "/v1/chunks/" + url.PathEscape(id)})
		}
		return out
	},
	"POST /v1/documents": func(*discoveries) []canaryRequest {
		note := "---\nid: notes/canary-probe\ntitle: Probe note\ntype: note\n---\nA note that names CTR-7731, Wexford Quillane and Borealis Freight.\n"
		return []canaryRequest{{method: "POST", path: "/v1/documents", contentType: "text/markdown", body: note}}
	},
	"DELETE /v1/documents/{id}": func(*discoveries) []canaryRequest {
		return []canaryRequest{{method: "DELETE", path: "/v1/documents/" + url.PathEscape("notes/canary-probe")},
			{method: "DELETE", path: "/v1/documents/" + url.PathEscape("contracts/ctr-7731-mgmtidqx")}}
	},
	"GET /v1/sources": func(*discoveries) []canaryRequest {
		return []canaryRequest{{method: "GET", path: "/v1/sources"}}
	},
	"GET /healthz":       func(*discoveries) []canaryRequest { return []canaryRequest{{method: "GET", path: "/healthz"}} },
	"GET /readyz":        func(*discoveries) []canaryRequest { return []canaryRequest{{method: "GET", path: "/readyz"}} },
	"HEAD /healthz":      func(*discoveries) []canaryRequest { return []canaryRequest{{method: "HEAD", path: "/healthz"}} },
	"HEAD /readyz":       func(*discoveries) []canaryRequest { return []canaryRequest{{method: "HEAD", path: "/readyz"}} },
	"GET /metrics":       func(*discoveries) []canaryRequest { return []canaryRequest{{method: "GET", path: "/metrics"}} },
	"HEAD /metrics":      func(*discoveries) []canaryRequest { return []canaryRequest{{method: "HEAD", path: "/metrics"}} },
	"GET /openapi.yaml":  func(*discoveries) []canaryRequest { return []canaryRequest{{method: "GET", path: "/openapi.yaml"}} },
	"HEAD /openapi.yaml": func(*discoveries) []canaryRequest { return []canaryRequest{{method: "HEAD", path: "/openapi.yaml"}} },
	"GET /":              func(*discoveries) []canaryRequest { return []canaryRequest{{method: "GET", path: "/"}} },
	"GET /ui/{path}": func(*discoveries) []canaryRequest {
		return []canaryRequest{{method: "GET", path: "/ui/"}, {method: "GET", path: "/ui/config.json"}}
	},
	"HEAD /": func(*discoveries) []canaryRequest { return []canaryRequest{{method: "HEAD", path: "/"}} },
	"HEAD /ui/{path}": func(*discoveries) []canaryRequest {
		return []canaryRequest{{method: "HEAD", path: "/ui/"}, {method: "HEAD", path: "/ui/config.json"}}
	},
}

// The /v1 reads answer HEAD with GET's handlers: probed with GET's requests.
func init() {
	for route, probe := range maps.Clone(canaryRoutes) {
		if path, ok := strings.CutPrefix(route, "GET /v1/"); ok {
			canaryRoutes["HEAD /v1/"+path] = func(d *discoveries) []canaryRequest {
				reqs := probe(d)
				for i := range reqs {
					reqs[i].method = "HEAD"
				}
				return reqs
			}
		}
	}
}

// discoveries collects entity keys and chunk ids from responses, so later routes probe them.
type discoveries struct {
	mu   sync.Mutex
	seen map[string]map[string]bool
}

func (d *discoveries) add(kind, v string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen == nil {
		d.seen = map[string]map[string]bool{}
	}
	if d.seen[kind] == nil {
		d.seen[kind] = map[string]bool{}
	}
	d.seen[kind][v] = true
}

func (d *discoveries) list(kind string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for v := range d.seen[kind] {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

var (
	keyFieldRE   = regexp.MustCompile(`"key":"([^"]+)"`)
	chunkFieldRE = regexp.MustCompile(`"chunk_id":"([^"]+)"|"chunk_ids":\[("[^\]]*)\]`)
)

// harvest records the entity keys and chunk ids a response names.
func (d *discoveries) harvest(body string) {
	for _, m := range keyFieldRE.FindAllStringSubmatch(body, -1) {
		d.add("entity", m[1])
	}
	for _, m := range chunkFieldRE.FindAllStringSubmatch(body, -1) {
		if m[1] != "" {
			d.add("chunk", m[1])
		}
		for _, id := range strings.Split(m[2], ",") {
			if id = strings.Trim(id, `"`); id != "" {
				d.add("chunk", id)
			}
		}
	}
}

// TestIntegrationCanaryEveryEndpoint calls every route of the OpenAPI document as every caller
// (no key, each group, management, a writer), with debug traces and server-sent events, and
// asserts that no response body, header or event carries a canary of a group the caller lacks,
// that every allowed caller sees its own canaries somewhere (so the test fails both ways), and that
// no info-level log line carries any canary.
func TestIntegrationCanaryEveryEndpoint(t *testing.T) {
	rig := testrig.New(t, "testdata/canary")
	addCanarySource(t, rig)
	keys, err := httpapi.ParseKeys([]byte(canaryKeys))
	if err != nil {
		t.Fatal(err)
	}
	var logs testenv.LockedLog
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	r := agent.NewRetriever(rig.Vector, rig.Graph, rig.Embedder, nil, agent.RetrievalConfig{Alpha: agent.DefaultAlpha(rig.Embedder.Name())}, log)
	a := agent.NewAnswerer(r, agent.TermExtractive{}, rig.Vector, agent.AnswerConfig{Chunks: rig.Graph}, agent.Hooks{}, log)
	engine := httpapi.New(httpapi.Services{Answerer: a, Retriever: r, Entities: rig.Graph, Library: rig.Graph, Documents: rig.Pipe,
		Keys: keys, Ready: func(context.Context) map[string]httpapi.Check { return nil }, Metrics: httpapi.NewMetrics(), Log: log},
		httpapi.Limits{QueryTimeout: 60 * time.Second})
	srv := httptest.NewServer(engine)
	defer srv.Close()

	var spec struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(httpapi.OpenAPISpec(), &spec); err != nil {
		t.Fatal(err)
	}
	var routes []string
	for p, ops := range spec.Paths {
		for m := range ops {
			routes = append(routes, strings.ToUpper(m)+" "+p)
		}
	}
	// Routes that name things first, so that later routes probe the keys and ids they revealed;
	// writes last.
	order := map[string]int{"GET /v1/documents/{id}": -5, "GET /v1/entities": -4, "POST /v1/search": -3, "POST /v1/query": -2,
		"POST /v1/documents": 1, "DELETE /v1/documents/{id}": 2}
	sort.Slice(routes, func(i, j int) bool {
		if order[routes[i]] != order[routes[j]] {
			return order[routes[i]] < order[routes[j]]
		}
		return routes[i] < routes[j]
	})
	checkSourceCounts(t, rig, srv.URL, keys)
	var found discoveries
	sawOwn := map[string]map[string]bool{} // caller → canary group → seen
	requests := 0
	for _, route := range routes {
		probe, ok := canaryRoutes[route]
		if !ok {
			t.Errorf("route %s has no canary probe: add it to canaryRoutes", route)
			continue
		}
		for _, req := range probe(&found) {
			for _, c := range canaryCallers {
				body, header, status := canaryDo(t, srv.URL, c.key, req)
				requests++
				if want := documentStatus(route, req.path, c); want != 0 && status != want {
					t.Errorf("%s %s as %s: HTTP %d, want %d: %.300s", req.method, req.path, c.name, status, want, body)
				}
				found.harvest(body)
				text := body + "\n" + header
				for group, words := range canaries {
					allowed := slices.Contains(c.may, group)
					for _, w := range words {
						if !strings.Contains(strings.ToLower(text), strings.ToLower(w)) {
							continue
						}
						if !allowed {
							t.Errorf("%s %s as %s (HTTP %d): response carries %s canary %q:\n%.600s", req.method, req.path, c.name, status, group, w, text)
						} else {
							if sawOwn[c.name] == nil {
								sawOwn[c.name] = map[string]bool{}
							}
							sawOwn[c.name][group] = true
						}
					}
				}
			}
		}
	}
	for _, c := range canaryCallers {
		for _, g := range c.may {
			if !sawOwn[c.name][g] {
				t.Errorf("%s may read %s documents but no response showed one of their canaries: the filter hides too much", c.name, g)
			}
		}
	}
	for group, words := range canaries {
		for _, w := range words {
			if strings.Contains(strings.ToLower(logs.String()), strings.ToLower(w)) {
				t.Errorf("an info-level log line carries %s canary %q", group, w)
			}
		}
	}
	t.Logf("%d requests over %d routes and %d callers; %d entity keys and %d chunk ids discovered",
		requests, len(routes), len(canaryCallers), len(found.list("entity")), len(found.list("chunk")))
}

// canarySource names a source that holds only a management document: its name is a canary too,
// so /v1/sources must not list it for anyone else.
const canarySource = "boardsrcqx"

func addCanarySource(t *testing.T, rig *testrig.Rig) {
	t.Helper()
	doc := ariadne.Document{ID: "board/minutes-mgmtidqx", Title: "Board minutes mgmttitleqx", Type: "note", ACL: []string{"management"},
		Body: "# Minutes mgmtheadqx\n\nThe board discussed mgmtbodyqx and the Borealis Freight renewal.\n"}
	sum, err := rig.Pipe.Upsert(context.Background(), []ariadne.Document{doc}, ingest.Options{Source: canarySource})
	if err != nil || sum.DocsWritten != 1 {
		t.Fatalf("add the canary source: %+v %v", sum, err)
	}
}

// checkSourceCounts: GET /v1/sources counts, for each caller, exactly the documents and chunks
// of each source the caller may read — computed here from the corpus files with the same chunker
// — and omits the management-only source for everyone else.
func checkSourceCounts(t *testing.T, rig *testrig.Rig, base string, keys *httpapi.Keys) {
	t.Helper()
	docs, problems, err := corpus.Load(os.DirFS(rig.Dir))
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	ch, err := chunking.NewDefault()
	if err != nil {
		t.Fatal(err)
	}
	board := ariadne.Document{ID: "board/minutes-mgmtidqx", ACL: []string{"management"}}
	for _, c := range canaryCallers {
		caller, ok := keys.Lookup(c.key)
		if !ok {
			t.Fatalf("unknown key of %s", c.name)
		}
		groups := caller.Groups
		want := map[string][2]int{}
		for _, d := range docs {
			if ariadne.CanRead(d.ACL, groups) {
				w := want["default"]
				want["default"] = [2]int{w[0] + 1, w[1] + len(ch.Split(d))}
			}
		}
		if ariadne.CanRead(board.ACL, groups) {
			want[canarySource] = [2]int{1, 1}
		}
		body, _, status := canaryDo(t, base, c.key, canaryRequest{method: "GET", path: "/v1/sources"})
		var got struct {
			Sources []httpapi.SourceView `json:"sources"`
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil || status != 200 {
			t.Fatalf("/v1/sources as %s: %d %s", c.name, status, body)
		}
		have := map[string][2]int{}
		for _, s := range got.Sources {
			have[s.Name] = [2]int{s.Documents, s.Chunks}
			if _, err := time.Parse(time.RFC3339Nano, s.LastSync); err != nil {
				t.Errorf("%s: source %s last_sync %q is not an RFC 3339 time: %v (graph: TestIntegrationSourcesLastChange checks it ignores restricted writes)", c.name, s.Name, s.LastSync, err)
			}
		}
		if fmt.Sprint(have) != fmt.Sprint(want) {
			t.Errorf("/v1/sources as %s (groups %v): %v, want %v", c.name, groups, have, want)
		}
	}
}

// documentStatus is the status a document read must have for a caller: 200 for what it may
// read, 404 (like a missing document) otherwise; 0 for requests it says nothing about.
func documentStatus(route, path string, c canaryCaller) int {
	if route != "GET /v1/documents/{id}" {
		return 0
	}
	need := map[string]string{"contracts/ctr-7731-mgmtidqx": "management", "contracts/ctr-7740-salesidqx": "sales",
		"people/wexford-quillane": "management", "no/such-document": "nobody"}
	id, _ := url.PathUnescape(strings.TrimPrefix(path, "/v1/documents/"))
	g, restricted := need[id]
	if !restricted || slices.Contains(c.may, g) {
		return http.StatusOK
	}
	return http.StatusNotFound
}

// canaryDo makes one request as key and returns the body (all events for SSE), the headers as
// text and the status.
func canaryDo(t *testing.T, base, key string, r canaryRequest) (string, string, int) {
	t.Helper()
	var rd *bytes.Reader
	switch b := r.body.(type) {
	case nil:
		rd = bytes.NewReader(nil)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		raw, _ := json.Marshal(b)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(r.method, base+r.path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	if r.sse {
		req.Header.Set("Accept", "text/event-stream")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	var h strings.Builder
	for k, vs := range resp.Header {
		fmt.Fprintf(&h, "%s: %s\n", k, strings.Join(vs, ", "))
	}
	return b.String(), h.String(), resp.StatusCode
}
