package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/httpapi"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/llm"
	"github.com/ariadne-graphrag/ariadne/retry"
	"github.com/ariadne-graphrag/ariadne/vector"
)

const keysYAML = `
public_groups: [all]
keys:
  - {name: delivery, key: delivery-key, groups: [delivery]}
  - {name: boss, key: management-key, groups: [management]}
  - {name: seller, key: sales-key, groups: [sales]}
  - {name: editor, key: editor-key, groups: [all], write: true}
  - {name: monitor, key: monitor-key, groups: [all], metrics: true}
`

// api is an httptest server running the production engine over the real stores.
type api struct {
	srv *httptest.Server
	rig *testrig.Rig
}

func newAPI(t testing.TB, rig *testrig.Rig, gen agent.Generator, rcfg agent.RetrievalConfig) *api {
	t.Helper()
	keys, err := httpapi.ParseKeys([]byte(keysYAML))
	if err != nil {
		t.Fatal(err)
	}
	if rcfg.Alpha == 0 {
		rcfg.Alpha = agent.DefaultAlpha(rig.Embedder.Name())
	}
	metrics := httpapi.NewMetrics()
	r := agent.NewRetriever(rig.Vector, rig.Graph, rig.Embedder, nil, rcfg, nil)
	a := agent.NewAnswerer(r, gen, rig.Vector, agent.AnswerConfig{}, agent.Hooks{VerificationFailure: metrics.VerificationFailure, Retry: metrics.Retry}, nil)
	engine := httpapi.New(httpapi.Services{Answerer: a, Retriever: r, Entities: rig.Graph, Library: rig.Graph, ChunkIndex: rig.Vector, Documents: rig.Pipe, Keys: keys,
		Ready: func(ctx context.Context) map[string]httpapi.Check {
			return map[string]httpapi.Check{"neo4j": {OK: rig.Graph.Ping(ctx) == nil}, "weaviate": {OK: rig.Vector.Ping(ctx) == nil}}
		}, Metrics: metrics}, httpapi.Limits{QueryTimeout: 60 * time.Second})
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	return &api{srv: srv, rig: rig}
}

func (a *api) do(t testing.TB, method, path, key, contentType string, body any) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, _ := json.Marshal(b)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, a.srv.URL+path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}

func (a *api) query(t *testing.T, key, question string) (int, httpapi.QueryResponse, []byte) {
	t.Helper()
	resp, raw := a.do(t, "POST", "/v1/query", key, "application/json", map[string]any{"question": question, "debug": true})
	var qr httpapi.QueryResponse
	if err := json.Unmarshal(raw, &qr); err != nil {
		t.Fatalf("query %q: %v: %s", question, err, raw)
	}
	return resp.StatusCode, qr, raw
}

func errorCode(t *testing.T, raw []byte) string {
	t.Helper()
	var e httpapi.ErrorBody
	if err := json.Unmarshal(raw, &e); err != nil || e.Error.Code == "" || e.Error.RequestID == "" {
		t.Fatalf("not the JSON error shape: %s", raw)
	}
	return e.Error.Code
}

// leaveQuestion is answered by the current leave policy of testrig.KB; the corpus also holds its
// superseded version and a meeting note with a planted prompt injection about leave.
const leaveQuestion = "Сколько календарных дней ежегодного оплачиваемого отпуска положено сотруднику?"

func TestIntegrationAPIStatusesAndACL(t *testing.T) {
	rig := testrig.New(t, testrig.KB)
	a := newAPI(t, rig, agent.TermExtractive{}, agent.RetrievalConfig{})

	t.Run("answered", func(t *testing.T) {
		code, qr, _ := a.query(t, "", leaveQuestion)
		if code != 200 || qr.Status != ariadne.StatusAnswered || len(qr.Citations) == 0 || qr.Citations[0].ChunkID != "policies/leave#0000-0941dabd" {
			t.Fatalf("%d %+v", code, qr)
		}
		c := qr.Citations[0]
		if !c.Verified || !strings.Contains(c.Quote, "31 календарный день") || c.End <= c.Start || qr.Trace == nil {
			t.Fatalf("citation %+v", c)
		}
		// Neither the superseded version (24 days) nor the planted instruction (90 days) answers.
		for _, c := range qr.Citations {
			if c.DocID == "policies/leave-2022" || c.DocID == "meeting-notes/2025-03-retro" {
				t.Errorf("cited %s: %+v", c.DocID, qr.Citations)
			}
		}
		if strings.Contains(qr.Answer, "90") || strings.Contains(qr.Answer, "24 календарных") || !strings.Contains(qr.Answer, "31 календарный день") {
			t.Errorf("answer %q", qr.Answer)
		}
	})
	t.Run("not_found", func(t *testing.T) {
		code, qr, _ := a.query(t, "", "Какова компенсация обедов сотрудникам в офисе?")
		if code != 200 || qr.Status != ariadne.StatusNotFound || qr.Answer != "" || len(qr.Citations) != 0 {
			t.Fatalf("%d %+v", code, qr)
		}
	})
	t.Run("a management-only answer is not_found for others, with no trace of it", func(t *testing.T) {
		q := "Какая зарплатная вилка у ведущих инженеров (грейд P3)?"
		for _, key := range []string{"", "delivery-key", "sales-key", "editor-key"} {
			code, qr, raw := a.query(t, key, q)
			if code != 200 || qr.Status == ariadne.StatusAnswered {
				t.Errorf("key %q: %d %s", key, code, qr.Status)
			}
			for _, secret := range []string{"policies/pay-grades", "contracts/agr-2024-17", "240 000"} {
				if bytes.Contains(raw, []byte(secret)) {
					t.Errorf("key %q: the response mentions %s: %s", key, secret, raw)
				}
			}
		}
		code, qr, _ := a.query(t, "management-key", q)
		if code != 200 || qr.Status != ariadne.StatusAnswered || qr.Citations[0].DocID != "policies/pay-grades" {
			t.Errorf("management: %d %+v", code, qr)
		}
	})
	t.Run("a sales-only answer reaches sales and nobody else", func(t *testing.T) {
		q := "Какую скидку отдел продаж может дать новому клиенту?"
		for _, key := range []string{"", "delivery-key", "management-key"} {
			code, qr, raw := a.query(t, key, q)
			if code != 200 || qr.Status == ariadne.StatusAnswered && strings.Contains(qr.Answer, "12%") || bytes.Contains(raw, []byte("policies/sales-discounts")) {
				t.Errorf("key %q: %d %s", key, code, raw)
			}
		}
		code, qr, _ := a.query(t, "sales-key", q)
		if code != 200 || qr.Status != ariadne.StatusAnswered || qr.Citations[0].DocID != "policies/sales-discounts" || !strings.Contains(qr.Answer, "12%") {
			t.Errorf("sales: %d %+v", code, qr)
		}
	})
	t.Run("a delivery-only runbook reaches delivery and nobody else", func(t *testing.T) {
		q := "When do Orbita Booking releases go out, and who approves the rollback plan?"
		for _, key := range []string{"", "sales-key", "management-key"} {
			if _, _, raw := a.query(t, key, q); bytes.Contains(raw, []byte("runbooks/orbita-release")) || bytes.Contains(raw, []byte("21:00")) {
				t.Errorf("key %q: %s", key, raw)
			}
		}
		code, qr, _ := a.query(t, "delivery-key", q)
		if code != 200 || qr.Status != ariadne.StatusAnswered || len(qr.Citations) == 0 ||
			qr.Citations[0].ChunkID != "runbooks/orbita-release#0000-88ec1910" || !strings.Contains(qr.Citations[0].Quote, "Tuesdays between 21:00 and 23:00") {
			t.Errorf("delivery: %d %+v", code, qr)
		}
	})
	t.Run("refused", func(t *testing.T) {
		// A model that always quotes what the fragments do not say.
		bad := chatModel(t, `{"status":"answer","claims":[{"text":"Отпуск 45 дней.","citations":[{"fragment":1,"chunk_id":"","quote":"отпуск продолжительностью 45 календарных дней"}]}]}`)
		b := newAPI(t, rig, agent.LLMGenerator{Model: bad}, agent.RetrievalConfig{})
		code, qr, _ := b.query(t, "", leaveQuestion)
		if code != 200 || qr.Status != ariadne.StatusRefused || !strings.Contains(qr.Reason, "after 3 attempts") {
			t.Fatalf("%d %+v", code, qr)
		}
		_, metrics := b.do(t, "GET", "/metrics", "monitor-key", "", nil)
		if !regexp.MustCompile(`ariadne_verification_failures_total\{level="2"\} [1-9]`).Match(metrics) {
			t.Errorf("verification failures not counted:\n%s", grepLines(metrics, "ariadne_"))
		}
		if !regexp.MustCompile(`ariadne_queries_total\{route="simple",status="refused"\} 1`).Match(metrics) {
			t.Errorf("query not counted:\n%s", grepLines(metrics, "ariadne_queries"))
		}
	})
	t.Run("index_empty", func(t *testing.T) {
		empty := testrig.New(t, "")
		e := newAPI(t, empty, agent.TermExtractive{}, agent.RetrievalConfig{})
		code, qr, _ := e.query(t, "", "Сколько дней отпуска?")
		if code != 200 || qr.Status != ariadne.StatusIndexEmpty {
			t.Fatalf("%d %+v", code, qr)
		}
	})
}

// Weaviate going away mid-service: the API reaches it through proxies that the test closes, so
// the shared server keeps running for everyone else.
func TestIntegrationAPIUnavailable(t *testing.T) {
	rig := testrig.New(t, testrig.KB)
	rest, grpc := testenv.NewProxy(t, hostPort(t, testenv.WeaviateURL())), testenv.NewProxy(t, testenv.WeaviateGRPC())
	vs, err := vector.Open(context.Background(), vector.Config{URL: "http://" + rest.Addr(), GRPCAddr: grpc.Addr(), APIKey: testenv.WeaviateAPIKey(), Class: rig.Vector.Class()})
	if err != nil {
		t.Fatal(err)
	}
	proxied := *rig
	proxied.Vector = vs
	a := newAPI(t, &proxied, agent.TermExtractive{}, agent.RetrievalConfig{Retry: retry.Policy{Initial: 100 * time.Millisecond, MaxAttempts: 100, MaxElapsed: 2 * time.Second}})
	if code, qr, raw := a.query(t, "", "Что означает код Q-4410?"); code != http.StatusOK || qr.Status != ariadne.StatusAnswered {
		t.Fatalf("through the proxies, before the cut: %d %s", code, raw)
	}
	rest.Close()
	grpc.Close()
	code, qr, raw := a.query(t, "", "Что означает код Q-4410?")
	if code != http.StatusServiceUnavailable || qr.Status != ariadne.StatusUnavailable || strings.Contains(string(raw), "127.0.0.1") {
		t.Fatalf("%d %+v (internal details must not leak): %s", code, qr, raw)
	}
	resp, raw := a.do(t, "GET", "/readyz", "", "", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(raw), `"not_ready"`) {
		t.Fatalf("readyz with Weaviate down: %d %s", resp.StatusCode, raw)
	}
}

// Neo4j going away mid-service: questions are answered from the chunk index alone, marked
// degraded, with the same ACL filter (a management-only answer stays management's); entity reads
// are 503 naming the graph store. The API reaches Neo4j through a proxy the test closes.
func TestIntegrationAPIGraphDown(t *testing.T) {
	rig := testrig.New(t, testrig.KB)
	bolt := testenv.NewProxy(t, strings.TrimPrefix(testenv.Neo4jURI(), "bolt://"))
	gs, err := graph.Open(context.Background(), graph.Config{URI: "bolt://" + bolt.Addr(), User: testenv.Neo4jUser(),
		Password: testenv.Neo4jPassword(), Namespace: rig.Graph.Namespace(), MaxTransactionRetry: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gs.Close(context.Background()) })
	proxied := *rig
	proxied.Graph = gs
	a := newAPI(t, &proxied, agent.TermExtractive{}, agent.RetrievalConfig{})
	if code, qr, raw := a.query(t, "", leaveQuestion); code != 200 || qr.Status != ariadne.StatusAnswered || len(qr.Degraded) != 0 {
		t.Fatalf("through the proxy, before the cut: %d %s", code, raw)
	}
	chunkView := func(key, id string) (int, string) {
		resp, raw := a.do(t, "GET", "/v1/chunks/"+url.PathEscape(id), key, "", nil)
		var body struct {
			Chunk json.RawMessage `json:"chunk"`
		}
		json.Unmarshal(raw, &body)
		return resp.StatusCode, string(body.Chunk)
	}
	const leaveChunk = "policies/leave#0000-0941dabd"
	code, fromGraph := chunkView("", leaveChunk)
	if code != 200 {
		t.Fatalf("chunk before the cut: %d %s", code, fromGraph)
	}
	_, qr, _ := a.query(t, "management-key", "Какая зарплатная вилка у ведущих инженеров (грейд P3)?")
	if len(qr.Citations) == 0 {
		t.Fatalf("management, before the cut: %+v", qr)
	}
	payChunk := qr.Citations[0].ChunkID
	bolt.Close()
	// A citation can still be opened: the chunk index's copy is the same view but for the
	// offsets in the document (it keeps none), with the same ACL.
	noOffsets := strings.Replace(fromGraph, `"start":99,"end":403,`, "", 1)
	if code, fromIndex := chunkView("", leaveChunk); code != 200 || fromIndex != noOffsets || noOffsets == fromGraph {
		t.Errorf("chunk with Neo4j down: %d\n%s\nwant (from the graph store)\n%s", code, fromIndex, fromGraph)
	}
	if code, body := chunkView("", payChunk); code != http.StatusNotFound || body != "" {
		t.Errorf("anonymous reads management's chunk with Neo4j down: %d %s", code, body)
	}
	if code, _ := chunkView("management-key", payChunk); code != 200 {
		t.Errorf("management's chunk with Neo4j down: %d", code)
	}
	for i, key := range []string{"", "management-key"} { // the first finds Neo4j down, the second meets the open breaker
		code, qr, raw := a.query(t, key, leaveQuestion)
		if code != 200 || qr.Status != ariadne.StatusAnswered || !slices.Equal(qr.Degraded, []string{agent.DegradedGraph}) ||
			len(qr.Citations) == 0 || qr.Citations[0].ChunkID != "policies/leave#0000-0941dabd" || bytes.Contains(raw, []byte("127.0.0.1")) {
			t.Fatalf("question %d with Neo4j down: %d %s", i+1, code, raw)
		}
	}
	q := "Какая зарплатная вилка у ведущих инженеров (грейд P3)?"
	code, qr, raw := a.query(t, "", q)
	if code != 200 || qr.Status == ariadne.StatusAnswered || bytes.Contains(raw, []byte("policies/pay-grades")) || bytes.Contains(raw, []byte("240 000")) {
		t.Errorf("anonymous, management-only answer, Neo4j down: %d %s", code, raw)
	}
	if code, qr, raw = a.query(t, "management-key", q); code != 200 || qr.Status != ariadne.StatusAnswered || qr.Citations[0].DocID != "policies/pay-grades" {
		t.Errorf("management, Neo4j down: %d %s", code, raw)
	}
	resp, raw := a.do(t, "POST", "/v1/query", "", "application/json", map[string]any{"question": leaveQuestion, "mode": "multi_hop", "debug": true})
	var forced httpapi.QueryResponse
	if err := json.Unmarshal(raw, &forced); err != nil || resp.StatusCode != 200 || forced.Route != ariadne.RouteHybrid ||
		!slices.Equal(forced.Degraded, []string{agent.DegradedGraph}) {
		t.Errorf("forced multi_hop, Neo4j down: %d %s", resp.StatusCode, raw)
	}
	resp, raw = a.do(t, "GET", "/v1/entities?q=Orbita", "", "", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || errorCode(t, raw) != "unavailable" || !strings.Contains(string(raw), "graph store") {
		t.Errorf("entity search, Neo4j down: %d %s", resp.StatusCode, raw)
	}
}

// hostPort is the "host:port" of a URL.
func hostPort(t testing.TB, raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		t.Fatalf("not a URL: %q", raw)
	}
	return u.Host
}

func TestIntegrationAPIEndpoints(t *testing.T) {
	rig := testrig.New(t, testrig.KB)
	a := newAPI(t, rig, agent.TermExtractive{}, agent.RetrievalConfig{})

	t.Run("search", func(t *testing.T) {
		resp, raw := a.do(t, "POST", "/v1/search", "", "application/json", map[string]any{"question": "Что означает код Q-4410?", "top_k": 3})
		var sr httpapi.SearchResponse
		json.Unmarshal(raw, &sr)
		if resp.StatusCode != 200 || sr.Route != ariadne.RouteHybrid || len(sr.Chunks) != 3 || sr.Chunks[0].ChunkID != "runbooks/queue-stall#0000-749213ca" {
			t.Fatalf("%d %s", resp.StatusCode, raw)
		}
	})
	t.Run("entities in any script", func(t *testing.T) {
		for _, q := range []string{"Zarya Bakery", "пекарня заря", "Заря-Пекарня", "Клиника Орбита"} {
			resp, raw := a.do(t, "GET", "/v1/entities?q="+url.QueryEscape(q), "", "", nil)
			want := `"key":"clients/zarya-bakery"`
			if strings.Contains(q, "Орбита") {
				want = `"key":"clients/orbita-clinic"`
			}
			if resp.StatusCode != 200 || !strings.Contains(string(raw), want) {
				t.Errorf("%q: %d %s", q, resp.StatusCode, raw)
			}
		}
	})
	t.Run("neighbors with readable provenance only", func(t *testing.T) {
		path := "/v1/entities/" + url.PathEscape("clients/orbita-clinic") + "/neighbors"
		resp, raw := a.do(t, "GET", path, "", "", nil)
		if resp.StatusCode != 200 || !strings.Contains(string(raw), `"projects/orbita-booking"`) {
			t.Fatalf("%d %s", resp.StatusCode, raw)
		}
		// The contract exists for management only (its page is management's): a caller without
		// management sees neither it nor its relation, though a public page names it by code;
		// management sees both, with the contract's own chunks as provenance.
		if strings.Contains(string(raw), "contracts/agr-2024-17") {
			t.Errorf("a caller without management sees the management-only contract: %s", raw)
		}
		_, boss := a.do(t, "GET", path, "management-key", "", nil)
		if !strings.Contains(string(boss), `"key":"contracts/agr-2024-17"`) || !strings.Contains(string(boss), "contracts/agr-2024-17#") {
			t.Errorf("management does not see the contract and its own provenance: %s", boss)
		}
		// Neighbours carry their other names as the caller may see them.
		var nb struct {
			Neighbors []httpapi.Neighbor `json:"neighbors"`
		}
		if err := json.Unmarshal(boss, &nb); err != nil {
			t.Fatal(err)
		}
		withAliases := 0
		for _, n := range nb.Neighbors {
			if len(n.Entity.Aliases) > 0 {
				withAliases++
			}
		}
		if withAliases == 0 {
			t.Errorf("no neighbour of clients/orbita-clinic has aliases: %s", boss)
		}
		resp, raw = a.do(t, "GET", "/v1/entities/"+url.PathEscape("clients/nobody")+"/neighbors", "", "", nil)
		if resp.StatusCode != 404 || errorCode(t, raw) != "not_found" {
			t.Errorf("unknown entity: %d %s", resp.StatusCode, raw)
		}
	})
	t.Run("documents: add, ask, delete", func(t *testing.T) {
		doc := map[string]any{"id": "notes/parking", "title": "Парковка у офиса", "type": "policy", "lang": "ru",
			"body": "# Парковка\n\nГостевые места на парковке бронируются через ресепшн за два рабочих дня.\n"}
		resp, raw := a.do(t, "POST", "/v1/documents", "", "application/json", doc)
		if resp.StatusCode != 401 || errorCode(t, raw) != "unauthorized" {
			t.Fatalf("write without a key: %d %s", resp.StatusCode, raw)
		}
		resp, raw = a.do(t, "POST", "/v1/documents", "editor-key", "application/json", doc)
		if resp.StatusCode != 200 || !strings.Contains(string(raw), `"status":"indexed"`) {
			t.Fatalf("add: %d %s", resp.StatusCode, raw)
		}
		// The entity count is the document's own (the policy it describes), never the graph's: that
		// would tell the writer how many entities exist in documents it may not read.
		if !strings.Contains(string(raw), `"entities":1,`) {
			t.Errorf("add: the entity count is not the document's own: %s", raw)
		}
		resp, raw = a.do(t, "POST", "/v1/documents", "editor-key", "application/json", doc)
		if resp.StatusCode != 200 || !strings.Contains(string(raw), `"status":"unchanged"`) || strings.Contains(string(raw), `"writes"`) {
			t.Fatalf("add again: %d %s", resp.StatusCode, raw)
		}
		_, qr, _ := a.query(t, "", "За сколько рабочих дней бронируются гостевые места на парковке?")
		if qr.Status != ariadne.StatusAnswered || qr.Citations[0].DocID != "notes/parking" {
			t.Fatalf("the new document is not used: %+v", qr)
		}
		md := "---\nid: notes/bad\n---\n"
		resp, raw = a.do(t, "POST", "/v1/documents", "editor-key", "text/markdown", md)
		if resp.StatusCode != 400 || !strings.Contains(string(raw), "empty body") {
			t.Fatalf("invalid markdown: %d %s", resp.StatusCode, raw)
		}
		resp, _ = a.do(t, "DELETE", "/v1/documents/"+url.PathEscape("notes/parking"), "editor-key", "", nil)
		if resp.StatusCode != 204 {
			t.Fatalf("delete: %d", resp.StatusCode)
		}
		resp, raw = a.do(t, "DELETE", "/v1/documents/"+url.PathEscape("notes/parking"), "editor-key", "", nil)
		if resp.StatusCode != 404 || errorCode(t, raw) != "not_found" {
			t.Fatalf("delete again: %d %s", resp.StatusCode, raw)
		}
		if _, qr, _ := a.query(t, "", "За сколько рабочих дней бронируются гостевые места на парковке?"); qr.Status == ariadne.StatusAnswered {
			t.Fatalf("the deleted document still answers: %+v", qr)
		}
	})
	t.Run("server-sent events end with the verified answer", func(t *testing.T) {
		req, _ := http.NewRequest("POST", a.srv.URL+"/v1/query", strings.NewReader(`{"question":"`+leaveQuestion+`"}`))
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var events []string
		var last string
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if ev, ok := strings.CutPrefix(line, "event:"); ok {
				events = append(events, ev)
			}
			if data, ok := strings.CutPrefix(line, "data:"); ok {
				last = data
			}
		}
		if !slices.Equal(events, []string{"route", "retrieval", "verification", "answer"}) {
			t.Fatalf("events %v", events)
		}
		var qr httpapi.QueryResponse
		if err := json.Unmarshal([]byte(last), &qr); err != nil || qr.Status != ariadne.StatusAnswered || !qr.Citations[0].Verified {
			t.Fatalf("final event %s (%v)", last, err)
		}
	})
	t.Run("errors are JSON with a code", func(t *testing.T) {
		cases := []struct {
			method, path, key, ct string
			body                  any
			status                int
			code                  string
		}{
			{"POST", "/v1/query", "", "application/json", "{", 400, "invalid_request"},
			{"POST", "/v1/query", "", "application/json", map[string]any{"question": "  "}, 400, "invalid_request"},
			{"POST", "/v1/query", "", "application/json", map[string]any{"question": "q", "mode": "web"}, 400, "invalid_request"},
			{"POST", "/v1/query", "", "application/json", map[string]any{"question": "q", "top_k": 500}, 400, "invalid_request"},
			{"POST", "/v1/query", "wrong-key", "application/json", map[string]any{"question": "q"}, 401, "unauthorized"},
			{"POST", "/v1/query", "", "application/json", map[string]any{"question": strings.Repeat("я", 70000)}, 413, "payload_too_large"},
			{"GET", "/v1/query", "", "", nil, 405, "method_not_allowed"},
			{"GET", "/v1/nothing", "", "", nil, 404, "not_found"},
			{"GET", "/v1/entities", "", "", nil, 400, "invalid_request"},
			{"POST", "/v1/documents", "editor-key", "application/xml", "<doc/>", 415, "unsupported_media_type"},
		}
		for _, tc := range cases {
			resp, raw := a.do(t, tc.method, tc.path, tc.key, tc.ct, tc.body)
			if resp.StatusCode != tc.status || errorCode(t, raw) != tc.code || resp.Header.Get("X-Request-ID") == "" {
				t.Errorf("%s %s: %d %s; want %d %s", tc.method, tc.path, resp.StatusCode, raw, tc.status, tc.code)
			}
		}
	})
	t.Run("health, readiness, metrics", func(t *testing.T) {
		for path, want := range map[string]string{"/healthz": `"ok"`, "/readyz": `"ready"`, "/metrics": "ariadne_http_requests_total"} {
			resp, raw := a.do(t, "GET", path, "monitor-key", "", nil)
			if resp.StatusCode != 200 || !strings.Contains(string(raw), want) {
				t.Errorf("%s: %d %.200s", path, resp.StatusCode, raw)
			}
		}
	})
}

// TestOpenAPIMatchesRoutes keeps /openapi.yaml in sync with the engine's routes.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	var spec struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(httpapi.OpenAPISpec(), &spec); err != nil {
		t.Fatal(err)
	}
	var documented []string
	for p, ops := range spec.Paths {
		for m := range ops {
			documented = append(documented, strings.ToUpper(m)+" "+p)
		}
	}
	keys, _ := httpapi.ParseKeys(nil)
	engine := httpapi.New(httpapi.Services{Keys: keys, Metrics: httpapi.NewMetrics()}, httpapi.Limits{})
	param := regexp.MustCompile(`[:*](\w+)`)
	var served []string
	for _, r := range engine.Routes() {
		served = append(served, r.Method+" "+param.ReplaceAllString(r.Path, "{$1}"))
	}
	sort.Strings(documented)
	sort.Strings(served)
	if !slices.Equal(documented, served) {
		t.Fatalf("OpenAPI paths and routes differ:\ndocumented %v\nserved     %v", documented, served)
	}
	resp := httptest.NewRecorder()
	engine.ServeHTTP(resp, httptest.NewRequest("GET", "/openapi.yaml", nil))
	if resp.Code != 200 || !bytes.Equal(resp.Body.Bytes(), httpapi.OpenAPISpec()) {
		t.Fatalf("/openapi.yaml: %d", resp.Code)
	}
}

func chatModel(t *testing.T, reply string) *llm.OpenAI {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]any{"content": reply}}}})
	}))
	t.Cleanup(srv.Close)
	m, err := llm.NewOpenAI(llm.Config{BaseURL: srv.URL, Model: "scripted"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func grepLines(raw []byte, prefix string) string {
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return fmt.Sprint(out)
}

// newAPIForBench is newAPI with the offline generator and a key per group set, for benchmarks.
func newAPIForBench(b *testing.B, rig *testrig.Rig) *api {
	return newAPI(b, rig, agent.TermExtractive{}, agent.RetrievalConfig{})
}

// benchQuery asks as a caller holding groups (management questions use the management key).
func (a *api) benchQuery(t testing.TB, question string, groups []string) (int, httpapi.QueryResponse) {
	key := ""
	for _, g := range groups {
		switch g {
		case "management":
			key = "management-key"
		case "delivery":
			if key == "" {
				key = "delivery-key"
			}
		case "sales":
			if key == "" {
				key = "sales-key"
			}
		}
	}
	resp, raw := a.do(t, "POST", "/v1/query", key, "application/json", map[string]any{"question": question})
	var qr httpapi.QueryResponse
	json.Unmarshal(raw, &qr)
	return resp.StatusCode, qr
}
