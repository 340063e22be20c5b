package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/embedding"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/lexicon"
)

// Fakes behind the handlers' interfaces: no servers.

type fakeAnswerer struct {
	ans    agent.Answer
	err    error
	events []agent.Event
	block  bool // wait for the request context to end (SSE cancel)
	done   chan struct{}
}

func (f *fakeAnswerer) Answer(ctx context.Context, req agent.Request, progress func(agent.Event)) (agent.Answer, error) {
	if f.done != nil {
		defer close(f.done)
	}
	for _, e := range f.events {
		if progress != nil {
			progress(e)
		}
	}
	if f.block {
		<-ctx.Done()
		return agent.Answer{Status: ariadne.StatusUnavailable}, nil
	}
	return f.ans, f.err
}

type fakeRetriever struct {
	res   agent.Result
	err   error
	got   agent.Request
	block bool // wait for the request context to end, then fail as a store call would
}

func (f *fakeRetriever) Retrieve(ctx context.Context, req agent.Request) (agent.Result, error) {
	f.got = req
	if f.block {
		<-ctx.Done()
		return agent.Result{}, fmt.Errorf("vector: search: %w: %w", ariadne.ErrUnavailable, ctx.Err())
	}
	return f.res, f.err
}

type fakeGraph struct {
	err       error
	docs      map[string]ariadne.DocumentInfo
	sources   map[string][]ariadne.SourceInfo // by the caller's groups, joined with ","
	gotGroups []string
	cands     []ariadne.EntityCandidate // what the fulltext index proposes for any text
}

func (f *fakeGraph) EntityCandidates(context.Context, string, []string, int) ([]ariadne.EntityCandidate, error) {
	return f.cands, f.err
}
func (f *fakeGraph) Entity(context.Context, string, []string) (ariadne.Entity, error) {
	if f.err != nil {
		return ariadne.Entity{}, f.err
	}
	return ariadne.Entity{}, fmt.Errorf("graph: no such entity: %w", ariadne.ErrNotFound)
}
func (f *fakeGraph) Edges(context.Context, []string, []string, []string, int) ([]ariadne.Edge, error) {
	return nil, f.err
}
func (f *fakeGraph) Documents(context.Context, []string, int, int) ([]ariadne.DocumentInfo, int, error) {
	return nil, 0, f.err
}
func (f *fakeGraph) Document(_ context.Context, id string, groups []string) (ariadne.DocumentInfo, []ariadne.Chunk, error) {
	if f.err != nil {
		return ariadne.DocumentInfo{}, nil, f.err
	}
	if d, ok := f.docs[id]; ok && ariadne.CanRead(d.ACL, groups) {
		return d, nil, nil
	}
	return ariadne.DocumentInfo{}, nil, fmt.Errorf("graph: no such document: %w", ariadne.ErrNotFound)
}
func (f *fakeGraph) Chunks(context.Context, []string, []string) ([]ariadne.Chunk, error) {
	return nil, f.err
}
func (f *fakeGraph) Sources(_ context.Context, groups []string) ([]ariadne.SourceInfo, error) {
	f.gotGroups = groups
	return f.sources[strings.Join(groups, ",")], f.err
}
func (f *fakeGraph) DocumentACL(_ context.Context, id string) ([]string, bool, error) {
	d, ok := f.docs[id]
	return d.ACL, ok, f.err
}

type fakeDocuments struct {
	sum    ingest.Summary
	err    error
	got    []ariadne.Document
	opts   ingest.Options
	stored map[string]ariadne.DocState // what Options.Precheck is shown, as the pipeline would
	// beforeCheck, when set, runs before Options.Precheck: another writer changing the store
	// between the handler's first check and the write.
	beforeCheck func()
	// write, when set, runs as the write itself (a long write honours ctx).
	write func(ctx context.Context) error
}

func (f *fakeDocuments) precheck(ctx context.Context, opts ingest.Options) error {
	if f.beforeCheck != nil {
		f.beforeCheck()
	}
	if opts.Precheck == nil {
		return nil
	}
	return opts.Precheck(ctx, f.stored)
}

func (f *fakeDocuments) Upsert(ctx context.Context, docs []ariadne.Document, opts ingest.Options) (ingest.Summary, error) {
	if err := f.precheck(ctx, opts); err != nil {
		return ingest.Summary{DocsRead: len(docs)}, err
	}
	f.got, f.opts = docs, opts
	if f.write != nil {
		if err := f.write(ctx); err != nil {
			return ingest.Summary{DocsRead: len(docs)}, err
		}
	}
	return f.sum, f.err
}
func (f *fakeDocuments) Delete(ctx context.Context, _ []string, opts ingest.Options) (ingest.Summary, error) {
	if err := f.precheck(ctx, opts); err != nil {
		return ingest.Summary{}, err
	}
	return f.sum, f.err
}

const testKeys = `
public_groups: [all]
keys:
  - {name: reader, key: reader-key, groups: [sales]}
  - {name: writer, key: writer-key, groups: [all], write: true}
  - {name: monitor, key: monitor-key, groups: [all], metrics: true}
`

type rig struct {
	srv    *httptest.Server
	engine http.Handler
	ans    *fakeAnswerer
	ret    *fakeRetriever
	g      *fakeGraph
	docs   *fakeDocuments
	logs   *testenv.LockedLog
}

func newRig(t *testing.T, lim Limits) *rig {
	t.Helper()
	return newRigWith(t, testKeys, lim)
}

// newRigWithKeys is newRig with another keys file ("" for none: every caller anonymous).
func newRigWithKeys(t *testing.T, keysYAML string) *rig {
	t.Helper()
	return newRigWith(t, keysYAML, Limits{})
}

func newRigWith(t *testing.T, keysYAML string, lim Limits) *rig {
	t.Helper()
	keys, err := ParseKeys([]byte(keysYAML))
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{ans: &fakeAnswerer{}, ret: &fakeRetriever{}, g: &fakeGraph{docs: map[string]ariadne.DocumentInfo{
		"secret/doc": {ID: "secret/doc", ACL: []string{"management"}}, "public/doc": {ID: "public/doc", ACL: []string{"all"}}}},
		docs: &fakeDocuments{}, logs: &testenv.LockedLog{}}
	log := slog.New(slog.NewTextHandler(r.logs, nil))
	e := New(Services{Answerer: r.ans, Retriever: r.ret, Entities: r.g, Library: r.g, Documents: r.docs, Keys: keys,
		Ready: func(context.Context) map[string]Check { return map[string]Check{"neo4j": {OK: true}} }, Metrics: NewMetrics(), Log: log}, lim)
	r.engine = e
	r.srv = httptest.NewServer(e)
	t.Cleanup(r.srv.Close)
	return r
}

// httptestServer serves the rig's engine with the server WriteTimeout d (cmd/api sets one).
func httptestServer(t *testing.T, r *rig, d time.Duration) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(r.engine)
	srv.Config.WriteTimeout = d
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func (r *rig) do(t *testing.T, method, path, key, ctype, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, r.srv.URL+path, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

// errorOf checks the one error shape and returns code and message.
func errorOf(t *testing.T, body string) (string, string) {
	t.Helper()
	var e ErrorBody
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Code == "" || e.Error.RequestID == "" {
		t.Fatalf("not the JSON error shape: %s", body)
	}
	return e.Error.Code, e.Error.Message
}

// TestRequestErrors: every rejection before a service is called, with its status, code and
// message, through the production engine.
func TestRequestErrors(t *testing.T) {
	r := newRig(t, Limits{QueryBody: 256, DocumentBody: 512})
	long := strings.Repeat("я", MaxQuestionRunes+1)
	tests := []struct {
		name, method, path, key, ctype, body string
		status                               int
		code, message                        string
	}{
		{"no body", "POST", "/v1/query", "", "application/json", "", 400, "invalid_request", "a JSON body is required"},
		{"not JSON", "POST", "/v1/query", "", "application/json", "{question:", 400, "invalid_request", "the body is not valid JSON for this endpoint"},
		{"unknown field", "POST", "/v1/query", "", "application/json", `{"question":"q","topk":3}`, 400, "invalid_request", `the body is not valid JSON for this endpoint: unknown field "topk"`},
		{"trailing data", "POST", "/v1/search", "", "application/json", `{"question":"a"}{"question":"b"}`, 400, "invalid_request", "the body is not valid JSON for this endpoint: text after the JSON object"},
		{"wrong type", "POST", "/v1/query", "", "application/json", `{"question":"q","top_k":"3"}`, 400, "invalid_request", `the body is not valid JSON for this endpoint: field "top_k" must be an integer`},
		{"wrong type bool", "POST", "/v1/search", "", "application/json", `{"question":"q","debug":"yes"}`, 400, "invalid_request", `the body is not valid JSON for this endpoint: field "debug" must be true or false`},
		{"wrong type string", "POST", "/v1/search", "", "application/json", `{"question":7}`, 400, "invalid_request", `the body is not valid JSON for this endpoint: field "question" must be a string`},
		{"an array body", "POST", "/v1/query", "", "application/json", `[1,2]`, 400, "invalid_request", `the body is not valid JSON for this endpoint: the body must be a JSON object, not array`},
		{"top_k zero", "POST", "/v1/query", "", "application/json", `{"question":"q","top_k":0}`, 400, "invalid_request", "top_k must be between 1 and 20"},
		{"empty question", "POST", "/v1/query", "", "application/json", `{"question":"  "}`, 400, "invalid_request", "question is required"},
		{"NUL", "POST", "/v1/search", "", "application/json", `{"question":"a\u0000b"}`, 400, "invalid_request", "question contains a NUL character"},
		{"mode", "POST", "/v1/query", "", "application/json", `{"question":"q","mode":"deep"}`, 400, "invalid_request", "mode must be auto, simple, hybrid or multi_hop"},
		{"top_k", "POST", "/v1/query", "", "application/json", `{"question":"q","top_k":99}`, 400, "invalid_request", "top_k must be between 1 and 20"},
		{"too large", "POST", "/v1/query", "", "application/json", `{"question":"` + long + `"}`, 413, "payload_too_large", "the body is over 256 bytes"},
		{"wrong key", "POST", "/v1/query", "nope", "application/json", `{"question":"q"}`, 401, "unauthorized", "unknown API key"},
		{"reader may not write", "POST", "/v1/documents", "reader-key", "text/markdown", "---\nid: a\n---\nx", 403, "forbidden", "this API key may not write documents"},
		{"anonymous may not delete", "DELETE", "/v1/documents/a", "", "", "", 401, "unauthorized", "writing documents needs an API key that may write; no key was sent (Authorization: Bearer KEY or X-API-Key: KEY)"},
		{"anonymous may not write", "POST", "/v1/documents", "", "text/markdown", "---\nid: a\n---\nx", 401, "unauthorized", "writing documents needs an API key that may write; no key was sent (Authorization: Bearer KEY or X-API-Key: KEY)"},
		{"media type", "POST", "/v1/documents", "writer-key", "application/pdf", "%PDF", 415, "unsupported_media_type", "send application/json or text/markdown"},
		{"document JSON", "POST", "/v1/documents", "writer-key", "application/json", `{"id":"a","bogus":1}`, 400, "invalid_request",
			`the body is not a valid JSON document: unknown field "bogus" (fields id, title, type, lang, updated, acl, version, aliases, body, source)`},
		{"document not JSON", "POST", "/v1/documents", "writer-key", "application/json", `{"id":`, 400, "invalid_request",
			"the body is not a valid JSON document: not one JSON object (fields id, title"},
		{"document empty", "POST", "/v1/documents", "writer-key", "application/json", ``, 400, "invalid_request",
			"a JSON document is required (fields id, title"},
		{"document field type", "POST", "/v1/documents", "writer-key", "application/json", `{"id":"a","body":"x","version":"2"}`, 400, "invalid_request",
			`the body is not a valid JSON document: field "version" must be an integer (fields id`},
		{"document JSON without id", "POST", "/v1/documents", "writer-key", "application/json", `{"title":"T","body":"x"}`, 400, "invalid_request",
			`invalid document: the JSON document has no "id"`},
		{"document JSON not UTF-8", "POST", "/v1/documents", "writer-key", "application/json", "{\"id\":\"a\",\"body\":\"caf\xe9\"}", 400, "invalid_request",
			"the body is not a valid JSON document: invalid UTF-8 at byte 21 (fields id"},
		{"document JSON lone surrogate", "POST", "/v1/documents", "writer-key", "application/json", `{"id":"a","body":"x\udc00y"}`, 400, "invalid_request",
			`the body is not a valid JSON document: a lone UTF-16 surrogate escape (\uDC00) at byte 19, which is not a character`},
		{"document markdown not UTF-8", "POST", "/v1/documents", "writer-key", "text/markdown", "---\nid: a\n---\ncaf\xe9\n", 400, "invalid_request",
			"invalid document: invalid UTF-8"},
		{"query not UTF-8", "POST", "/v1/query", "", "application/json", "{\"question\":\"caf\xe9?\"}", 400, "invalid_request",
			"the body is not valid JSON for this endpoint: invalid UTF-8 at byte 16"},
		{"query lone surrogate", "POST", "/v1/search", "", "application/json", `{"question":"\ud800?"}`, 400, "invalid_request",
			`the body is not valid JSON for this endpoint: a lone UTF-16 surrogate escape (\uD800) at byte 13, which is not a character`},
		{"bad source", "POST", "/v1/documents?source=a%20b", "writer-key", "text/markdown", "---\nid: a\n---\nx", 400, "invalid_request", "source \"a b\": want 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit"},
		{"document front matter", "POST", "/v1/documents", "writer-key", "text/markdown", "no front matter", 400, "invalid_request", "invalid document: "},
		{"document too large", "POST", "/v1/documents", "writer-key", "text/markdown", strings.Repeat("x", 600), 413, "payload_too_large", "the body is over 512 bytes"},
		{"replace unreadable", "POST", "/v1/documents", "writer-key", "text/markdown", "---\nid: secret/doc\ntitle: T\n---\nbody text\n", 403, "forbidden", "this API key may not replace that document"},
		{"delete unreadable", "DELETE", "/v1/documents/secret%2Fdoc", "writer-key", "", "", 404, "not_found", "no document with that id"},
		{"delete missing", "DELETE", "/v1/documents/none", "writer-key", "", "", 404, "not_found", "no document with that id"},
		{"entities q", "GET", "/v1/entities", "", "", "", 400, "invalid_request", "q is required (at most 500 bytes)"},
		{"entities limit", "GET", "/v1/entities?q=x&limit=0", "", "", "", 400, "invalid_request", "limit must be between 1 and 100"},
		{"documents limit", "GET", "/v1/documents?limit=501", "", "", "", 400, "invalid_request", "limit must be between 1 and 500"},
		{"documents offset", "GET", "/v1/documents?offset=-1", "", "", "", 400, "invalid_request", "offset must be an integer between 0 and 2147483147"},
		{"documents offset past SKIP", "GET", "/v1/documents?offset=2147483648", "", "", "", 400, "invalid_request", "offset must be an integer between 0 and 2147483147"},
		{"entity missing", "GET", "/v1/entities/x%2Fy/neighbors", "", "", "", 404, "not_found", "not found"},
		{"document missing", "GET", "/v1/documents/x%2Fy", "", "", "", 404, "not_found", "not found"},
		{"chunk missing", "GET", "/v1/chunks/x%23y", "", "", "", 404, "not_found", "not found"},
		{"no route", "GET", "/v2/anything", "", "", "", 404, "not_found", "no such endpoint"},
		{"unencoded document id", "GET", "/v1/documents/projects/polar-owl", "", "", "", 404, "not_found",
			"no such endpoint: document ids contain '/', which must be URL-encoded in the path (/v1/documents/projects%2Fpolar-owl)"},
		{"unencoded id of a delete", "DELETE", "/v1/documents/projects/polar-owl", "writer-key", "", "", 404, "not_found",
			"no such endpoint: document ids contain '/', which must be URL-encoded in the path (/v1/documents/projects%2Fpolar-owl)"},
		{"unencoded entity key", "GET", "/v1/entities/clients/tundra-energo/neighbors", "", "", "", 404, "not_found",
			"no such endpoint: entity keys contain '/', which must be URL-encoded in the path (/v1/entities/clients%2Ftundra-energo/neighbors)"},
		{"unencoded chunk id", "GET", "/v1/chunks/policies/vacation%230000-b469ddd6", "", "", "", 404, "not_found",
			"no such endpoint: chunk ids contain '/', which must be URL-encoded in the path (/v1/chunks/policies%2Fvacation%230000-b469ddd6)"},
		{"empty document id", "GET", "/v1/documents/", "", "", "", 404, "not_found",
			"no such endpoint: /v1/documents/ needs an id after the slash (the list is GET /v1/documents)"},
		{"empty chunk id", "GET", "/v1/chunks/", "", "", "", 404, "not_found", "no such endpoint: /v1/chunks/ needs an id after the slash"},
		{"trailing slash", "GET", "/v1/sources/", "", "", "", 404, "not_found", "no such endpoint: /v1/sources/ ends with a slash (did you mean /v1/sources?)"},
		{"no page asset", "GET", "/ui/nonexist", "", "", "", 404, "not_found", "no such page or asset under /ui/"},
		{"method on a probe", "POST", "/healthz", "", "", "", 405, "method_not_allowed", "method not allowed on this endpoint"},
		{"method", "PUT", "/v1/query", "", "", "", 405, "method_not_allowed", "method not allowed on this endpoint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := r.do(t, tc.method, tc.path, tc.key, tc.ctype, tc.body)
			if resp.StatusCode != tc.status {
				t.Fatalf("HTTP %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			code, msg := errorOf(t, body)
			if code != tc.code || !strings.HasPrefix(msg, tc.message) {
				t.Errorf("error %s %q, want %s %q", code, msg, tc.code, tc.message)
			}
			if tc.status == 401 && resp.Header.Get("WWW-Authenticate") != `Bearer realm="ariadne"` {
				t.Errorf("401 without WWW-Authenticate: %v", resp.Header)
			}
		})
	}
}

// TestServiceErrors: each class of service error maps to one status and a message written for
// the caller; an internal error's text never reaches the response.
func TestServiceErrors(t *testing.T) {
	secret := "dial tcp 10.1.2.3:7687: password=hunter2"
	tests := []struct {
		name    string
		err     error
		status  int
		code    string
		message string
	}{
		{"invalid with a message", ariadne.Messagef(ariadne.ErrInvalid, "mode %q is unknown", "x"), 400, "invalid_request", `mode "x" is unknown`},
		{"invalid without one", fmt.Errorf("graph: %s: %w", secret, ariadne.ErrInvalid), 400, "invalid_request", "the request is invalid"},
		{"not found", fmt.Errorf("graph: %s: %w", secret, ariadne.ErrNotFound), 404, "not_found", "not found"},
		{"unavailable", fmt.Errorf("vector: %s: %w", secret, ariadne.ErrUnavailable), 503, "unavailable", "the vector store (Weaviate) is unavailable; retry later"},
		{"unavailable, innermost part named", fmt.Errorf("agent: link entities: graph: %s: %w", secret, ariadne.ErrUnavailable), 503, "unavailable", "the graph store (Neo4j) is unavailable; retry later"},
		{"unavailable embedder", fmt.Errorf("agent: embed: embedding: openai:multilingual-e5-small: %s: %w", secret, ariadne.ErrUnavailable), 503, "unavailable", "the embedder is unavailable; retry later"},
		{"deadline", fmt.Errorf("%s: %w", secret, context.DeadlineExceeded), 503, "unavailable", "a store or model is unavailable; retry later"},
		{"credentials", fmt.Errorf("graph: %s: %w", secret, ariadne.ErrUnauthorized), 503, "unavailable", "a store or model is unavailable; retry later"},
		{"mismatch", fmt.Errorf("vector: %s: %w", secret, ariadne.ErrMismatch), 503, "index_mismatch", "the index was built with another embedder; it must be re-indexed"},
		{"other", errors.New(secret), 500, "internal", "internal error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Limits{})
			r.ret.err, r.g.err = tc.err, tc.err
			for _, call := range []struct{ method, path, body string }{
				{"POST", "/v1/search", `{"question":"q"}`},
				{"GET", "/v1/entities?q=x", ""},
				{"GET", "/v1/entities/x/neighbors", ""},
				{"GET", "/v1/documents", ""},
				{"GET", "/v1/documents/x", ""},
				{"GET", "/v1/chunks/x", ""},
			} {
				resp, body := r.do(t, call.method, call.path, "", "application/json", call.body)
				if resp.StatusCode != tc.status {
					t.Fatalf("%s %s: HTTP %d, want %d: %s", call.method, call.path, resp.StatusCode, tc.status, body)
				}
				code, msg := errorOf(t, body)
				if code != tc.code || msg != tc.message || strings.Contains(body, "hunter2") {
					t.Errorf("%s %s: %s %q, want %s %q", call.method, call.path, code, msg, tc.code, tc.message)
				}
				if ra := resp.Header.Get("Retry-After"); (ra == "10") != (tc.code == "unavailable") {
					t.Errorf("%s %s: Retry-After %q for %s, want 10 exactly for unavailable", call.method, call.path, ra, tc.code)
				}
			}
		})
	}
}

// TestQueryAndSearch: the request reaches the services with the caller's groups; statuses map
// to HTTP codes; the trace appears only with debug.
func TestQueryAndSearch(t *testing.T) {
	r := newRig(t, Limits{})
	r.ans.ans = agent.Answer{Status: ariadne.StatusAnswered, Answer: "28 days [c1]", Route: ariadne.RouteSimple,
		Claims: []ariadne.Claim{}, Citations: []ariadne.Citation{{ChunkID: "c1", Quote: "28 days", Start: 3, End: 10, Verified: true}},
		Trace: &agent.AnswerTrace{Trace: &agent.Trace{}, Generator: "g"}}
	resp, body := r.do(t, "POST", "/v1/query", "reader-key", "application/json", `{"question":"How many days?"}`)
	var qr QueryResponse
	if err := json.Unmarshal([]byte(body), &qr); err != nil || resp.StatusCode != 200 || qr.Status != ariadne.StatusAnswered ||
		len(qr.Citations) != 1 || qr.Citations[0].Start != 3 || qr.Trace != nil || qr.RequestID == "" {
		t.Fatalf("answered: %d %s", resp.StatusCode, body)
	}
	_, body = r.do(t, "POST", "/v1/query", "", "application/json", `{"question":"How many days?","debug":true}`)
	if !strings.Contains(body, `"generator":"g"`) {
		t.Errorf("debug: no trace in %s", body)
	}
	r.ans.ans = agent.Answer{Status: ariadne.StatusUnavailable, Reason: "graph: dial tcp 10.0.0.1:7687"}
	resp, body = r.do(t, "POST", "/v1/query", "", "application/json", `{"question":"q"}`)
	if resp.StatusCode != 503 || !strings.Contains(body, `"reason":"the graph store (Neo4j) is unavailable; retry later"`) || strings.Contains(body, "10.0.0.1") ||
		resp.Header.Get("Retry-After") != "10" {
		t.Errorf("unavailable: %d %s", resp.StatusCode, body)
	}
	r.ans.ans, r.ans.err = agent.Answer{}, ariadne.Messagef(ariadne.ErrInvalid, "mode forced wrongly")
	resp, body = r.do(t, "POST", "/v1/query", "", "application/json", `{"question":"q"}`)
	if code, msg := errorOf(t, body); resp.StatusCode != 400 || code != "invalid_request" || msg != "mode forced wrongly" {
		t.Errorf("invalid from the answerer: %d %s", resp.StatusCode, body)
	}
	r.ret.res = agent.Result{Route: ariadne.RouteHybrid, Chunks: []ariadne.ScoredChunk{{Chunk: ariadne.Chunk{ID: "c1", DocID: "d", Text: "t"}, Score: 0.5, Sources: []string{"bm25"}}},
		Trace: &agent.Trace{}}
	resp, body = r.do(t, "POST", "/v1/search", "reader-key", "application/json", `{"question":"q","mode":"hybrid","top_k":3}`)
	var sr SearchResponse
	if err := json.Unmarshal([]byte(body), &sr); err != nil || resp.StatusCode != 200 || len(sr.Chunks) != 1 || sr.Chunks[0].ChunkID != "c1" || sr.Paths == nil {
		t.Fatalf("search: %d %s", resp.StatusCode, body)
	}
	if g := r.ret.got; g.Mode != "hybrid" || g.TopK != 3 || strings.Join(g.Groups, ",") != "all,sales" {
		t.Errorf("the retriever got %+v, want mode hybrid, top_k 3, groups all,sales", g)
	}
}

// TestQueryStream: progress events, then the answer, as server-sent events; an invalid request
// is an error event; a client that goes away ends the answer's context.
func TestQueryStream(t *testing.T) {
	r := newRig(t, Limits{})
	r.ans.events = []agent.Event{{Name: "route", Data: map[string]string{"route": "simple"}}, {Name: "retrieval", Data: map[string]int{"hits": 2}}}
	r.ans.ans = agent.Answer{Status: ariadne.StatusNotFound, Claims: []ariadne.Claim{}, Citations: []ariadne.Citation{}, Paths: []ariadne.Path{}}
	req, _ := http.NewRequest("POST", r.srv.URL+"/v1/query", strings.NewReader(`{"question":"q"}`))
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var names []string
	for _, l := range strings.Split(string(raw), "\n") {
		if n, ok := strings.CutPrefix(l, "event:"); ok {
			names = append(names, n)
		}
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") || strings.Join(names, ",") != "route,retrieval,answer" ||
		!strings.Contains(string(raw), `"status":"not_found"`) {
		t.Fatalf("stream: %v %q", names, raw)
	}

	r.ans.events, r.ans.err = nil, ariadne.Messagef(ariadne.ErrInvalid, "bad mode")
	req, _ = http.NewRequest("POST", r.srv.URL+"/v1/query", strings.NewReader(`{"question":"q"}`))
	req.Header.Set("Accept", "text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(raw), "event:error") || !strings.Contains(string(raw), `"message":"bad mode"`) {
		t.Errorf("error event: %q", raw)
	}

	// Cancel: the client reads the first event and leaves; the answerer's context must end.
	r.ans.err, r.ans.block, r.ans.done = nil, true, make(chan struct{})
	r.ans.events = []agent.Event{{Name: "route", Data: "x"}}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ = http.NewRequestWithContext(ctx, "POST", r.srv.URL+"/v1/query", strings.NewReader(`{"question":"q"}`))
	req.Header.Set("Accept", "text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	select {
	case <-r.ans.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the answer kept running after the client left")
	}
}

// TestPutDocument: both body forms reach the pipeline as the same document.
func TestPutDocument(t *testing.T) {
	r := newRig(t, Limits{})
	r.docs.sum = ingest.Summary{DocsWritten: 1, Chunks: 2}
	resp, body := r.do(t, "POST", "/v1/documents", "writer-key", "application/json",
		`{"id":"notes/a","title":"A: \"quoted\"","type":"note","acl":["all","sales"],"aliases":["Альфа"],"body":"Text.\n"}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"status":"indexed"`) {
		t.Fatalf("JSON: %d %s", resp.StatusCode, body)
	}
	fromJSON := r.docs.got[0]
	resp, body = r.do(t, "POST", "/v1/documents", "writer-key", "text/markdown",
		"---\nid: notes/a\ntitle: 'A: \"quoted\"'\ntype: note\nacl: [all, sales]\naliases: [Альфа]\n---\nText.\n")
	if resp.StatusCode != 200 {
		t.Fatalf("markdown: %d %s", resp.StatusCode, body)
	}
	fromMD := r.docs.got[0]
	fromJSON.Path, fromMD.Path = "", ""
	if fmt.Sprint(fromJSON) != fmt.Sprint(fromMD) {
		t.Errorf("JSON and Markdown differ:\n%+v\n%+v", fromJSON, fromMD)
	}
	// Linked again only (a name defined elsewhere since, perhaps by a page the writer may not
	// read): still unchanged (security audit, stop 60).
	r.docs.sum = ingest.Summary{DocsRelinked: 1, Docs: map[string]ingest.DocCounts{"public/doc": {Chunks: 3, Entities: 2, Relations: 1, Extracted: true}}}
	_, body = r.do(t, "POST", "/v1/documents", "writer-key", "text/markdown", "---\nid: public/doc\n---\nSame.\n")
	if !strings.Contains(body, `"status":"unchanged"`) || !strings.Contains(body, `"chunks":3,"doc_id":"public/doc","entities":2,"relations":1,`) ||
		strings.Contains(body, `"writes"`) {
		t.Errorf("unchanged: %s, want the document's counts and no count of writes", body)
	}
	if r.docs.opts.Source != ariadne.DefaultSource {
		t.Errorf("no source given: the pipeline got %q", r.docs.opts.Source)
	}
	_, _ = r.do(t, "POST", "/v1/documents", "writer-key", "application/json", `{"id":"notes/a","body":"Text.\n","source":"wiki"}`)
	if r.docs.opts.Source != "wiki" || r.docs.got[0].Source != "wiki" {
		t.Errorf("JSON source: options %q, document %q", r.docs.opts.Source, r.docs.got[0].Source)
	}
	_, _ = r.do(t, "POST", "/v1/documents?source=crm", "writer-key", "text/markdown", "---\nid: notes/a\n---\nText.\n")
	if r.docs.opts.Source != "crm" {
		t.Errorf("markdown ?source=: %q", r.docs.opts.Source)
	}
	r.docs.sum = ingest.Summary{Conflicts: []ariadne.SourceConflict{{DocID: "public/doc", Source: "wiki"}}}
	resp, body = r.do(t, "POST", "/v1/documents?source=crm", "writer-key", "text/markdown", "---\nid: public/doc\n---\nOther.\n")
	if code, msg := errorOf(t, body); resp.StatusCode != 409 || code != "document_conflict" ||
		msg != `document id "public/doc" belongs to another source; ids are unique across sources (delete it there first, or choose another id)` {
		t.Errorf("conflict: %d %s", resp.StatusCode, body)
	}
	r.docs.sum = ingest.Summary{VectorErrors: []ariadne.ObjectError{{ChunkID: "x", Message: "m"}}}
	resp, body = r.do(t, "POST", "/v1/documents", "writer-key", "text/markdown", "---\nid: notes/b\n---\nB.\n")
	if code, _ := errorOf(t, body); resp.StatusCode != 502 || code != "index_refused" {
		t.Errorf("refused vectors: %d %s", resp.StatusCode, body)
	}
}

// TestListSources: GET /v1/sources asks the library with the caller's groups and renders what it
// returns — counts and the last change over what that caller may read (the store computes them
// per groups: graph.Store.Sources); an empty list is [] (not null).
func TestListSources(t *testing.T) {
	r := newRig(t, Limits{})
	r.g.sources = map[string][]ariadne.SourceInfo{
		"all,sales": {{Name: "crm", Documents: 2, Chunks: 7, LastSync: "2026-12-02T09:30:00Z"}},
		"all":       {{Name: "crm", Documents: 1, Chunks: 3, LastSync: "2026-12-01T11:00:00Z"}},
	}
	resp, body := r.do(t, "GET", "/v1/sources", "reader-key", "", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"sources":[{"name":"crm","documents":2,"chunks":7,"last_sync":"2026-12-02T09:30:00Z"}]`) ||
		strings.Join(r.g.gotGroups, ",") != "all,sales" {
		t.Errorf("reader: %d %s (groups %v)", resp.StatusCode, body, r.g.gotGroups)
	}
	if _, anon := r.do(t, "GET", "/v1/sources", "", "", ""); !strings.Contains(anon, `"sources":[{"name":"crm","documents":1,"chunks":3,"last_sync":"2026-12-01T11:00:00Z"}]`) {
		t.Errorf("anonymous: %s", anon)
	}
	r.g.sources = map[string][]ariadne.SourceInfo{"all,sales": {{Name: "crm", Documents: 2, Chunks: 7}}}
	resp, body = r.do(t, "GET", "/v1/sources", "", "", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"sources":[]`) || strings.Join(r.g.gotGroups, ",") != "all" {
		t.Errorf("anonymous: %d %s (groups %v)", resp.StatusCode, body, r.g.gotGroups)
	}
}

// TestProbes: health, readiness and the OpenAPI document need no key; with keys configured,
// /metrics needs one with metrics: true (security review: its request counts by route told an
// anonymous caller when a restricted document was written).
func TestProbes(t *testing.T) {
	r := newRig(t, Limits{})
	r.do(t, "GET", "/healthz", "", "", "") // counted once it is answered, before /metrics is read
	for path, want := range map[string]string{"/healthz": `"ok"`, "/readyz": `"ready"`, "/openapi.yaml": "openapi: 3"} {
		resp, body := r.do(t, "GET", path, "", "", "")
		if resp.StatusCode != 200 || !strings.Contains(body, want) {
			t.Errorf("%s: %d %.100s", path, resp.StatusCode, body)
		}
	}
	for _, tc := range []struct {
		key, want string
		status    int
	}{
		{"", `"unauthorized"`, 401},
		{"writer-key", `"forbidden"`, 403},
		{"nobody-key", `"unauthorized"`, 401},
		{"monitor-key", `ariadne_http_requests_total{code="200",method="GET",route="/healthz"} 2`, 200},
	} {
		if resp, body := r.do(t, "GET", "/metrics", tc.key, "", ""); resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("/metrics with key %q: %d %.200s; want %d with %s", tc.key, resp.StatusCode, body, tc.status, tc.want)
		}
	}
	open := newRigWithKeys(t, "")
	open.do(t, "GET", "/healthz", "", "", "")
	if resp, body := open.do(t, "GET", "/metrics", "", "", ""); resp.StatusCode != 200 || !strings.Contains(body, "ariadne_http_requests_total") {
		t.Errorf("/metrics without a keys file: %d %.100s", resp.StatusCode, body)
	}
	if strings.Contains(r.logs.String(), "question") {
		t.Errorf("the access log holds request bodies: %s", r.logs.String())
	}
	for _, path := range []string{"/healthz", "/readyz", "/ui/", "/openapi.yaml"} {
		resp, body := r.do(t, "HEAD", path, "", "", "")
		want := map[string]string{"/ui/": "text/html", "/openapi.yaml": "application/yaml"}[path]
		if want == "" {
			want = "application/json"
		}
		if resp.StatusCode != 200 || body != "" || !strings.HasPrefix(resp.Header.Get("Content-Type"), want) {
			t.Errorf("HEAD %s: %d %q %v", path, resp.StatusCode, body, resp.Header)
		}
	}
	// /ui without its slash is redirected to the page (the only redirect left besides /).
	req, _ := http.NewRequest("GET", r.srv.URL+"/ui", nil)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/ui/" {
		t.Errorf("GET /ui: %d Location %q, want 301 /ui/", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestQueryTimeout: a question or search that outlives the query budget is 504 timeout (JSON, or
// an error event on a stream), not 503 unavailable; a store that is down stays 503.
func TestQueryTimeout(t *testing.T) {
	r := newRig(t, Limits{QueryTimeout: 30 * time.Millisecond})
	r.ans.block = true // returns status unavailable once its context ends, as agent.Answerer does
	r.ret.block = true
	want := "no answer within this server's time limit for a query (30ms); retry later, or ask a narrower question"
	for _, path := range []string{"/v1/query", "/v1/search"} {
		resp, body := r.do(t, "POST", path, "", "application/json", `{"question":"q"}`)
		if code, msg := errorOf(t, body); resp.StatusCode != http.StatusGatewayTimeout || code != "timeout" || msg != want {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	req, _ := http.NewRequest("POST", r.srv.URL+"/v1/query", strings.NewReader(`{"question":"q"}`))
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(raw), "event:error") || !strings.Contains(string(raw), `"code":"timeout"`) {
		t.Errorf("stream: %q", raw)
	}

	r.ans.block, r.ret.block = false, false
	r.ans.ans = agent.Answer{Status: ariadne.StatusUnavailable}
	r.ret.err = fmt.Errorf("vector: %w", ariadne.ErrUnavailable)
	if resp, body := r.do(t, "POST", "/v1/query", "", "application/json", `{"question":"q"}`); resp.StatusCode != 503 ||
		!strings.Contains(body, `"reason":"a store or model is unavailable; retry later"`) {
		t.Errorf("query with a store down: %d %s", resp.StatusCode, body)
	}
	if resp, body := r.do(t, "POST", "/v1/search", "", "application/json", `{"question":"q"}`); resp.StatusCode != 503 {
		t.Errorf("search with a store down: %d %s", resp.StatusCode, body)
	}
	// An error on a stream keeps its class (it was invalid_request for every error).
	r.ans.ans, r.ans.err = agent.Answer{}, fmt.Errorf("graph: %w", ariadne.ErrMismatch)
	req, _ = http.NewRequest("POST", r.srv.URL+"/v1/query", strings.NewReader(`{"question":"q"}`))
	req.Header.Set("Accept", "text/event-stream")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	raw, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(raw), `"code":"index_mismatch"`) {
		t.Errorf("stream error class: %q", raw)
	}
}

// TestReadiness: a failed required check is 503 not_ready; a failed optional one (the NER
// sidecar) is 200 degraded.
func TestReadiness(t *testing.T) {
	keys, _ := ParseKeys([]byte(testKeys))
	for _, tc := range []struct {
		name   string
		checks map[string]Check
		code   int
		status string
	}{
		{"all pass", map[string]Check{"neo4j": {OK: true}, "ner": {OK: true, Optional: true}}, 200, `"status":"ready"`},
		{"optional down", map[string]Check{"neo4j": {OK: true}, "ner": {OK: false, Optional: true, Detail: "down"}}, 200, `"status":"degraded"`},
		{"required down", map[string]Check{"neo4j": {OK: false}, "ner": {OK: false, Optional: true}}, 503, `"status":"not_ready"`},
	} {
		e := New(Services{Answerer: &fakeAnswerer{}, Retriever: &fakeRetriever{}, Entities: &fakeGraph{}, Library: &fakeGraph{}, Documents: &fakeDocuments{},
			Keys: keys, Ready: func(context.Context) map[string]Check { return tc.checks }, Metrics: NewMetrics(), Log: slog.New(slog.DiscardHandler)}, Limits{})
		srv := httptest.NewServer(e)
		resp, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		if resp.StatusCode != tc.code || !strings.Contains(string(body), tc.status) {
			t.Errorf("%s: %d %s, want %d %s", tc.name, resp.StatusCode, body, tc.code, tc.status)
		}
		if ra := resp.Header.Get("Retry-After"); (ra == "10") != (tc.code == 503) {
			t.Errorf("%s: Retry-After %q, want 10 exactly when not ready", tc.name, ra)
		}
		// From another host: the same status, no details (they name internal addresses).
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/readyz", nil) // RemoteAddr 192.0.2.1
		e.ServeHTTP(rec, req)
		if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.status) || strings.Contains(rec.Body.String(), "detail") {
			t.Errorf("%s from another host: %d %s, want %d %s without details", tc.name, rec.Code, rec.Body.String(), tc.code, tc.status)
		}
		if tc.name == "optional down" && !strings.Contains(string(body), `"detail":"down"`) {
			t.Errorf("%s from loopback: %s, want the details", tc.name, body)
		}
	}
}

// TestModelUsageMetrics: the chat model's token counts reach /metrics.
func TestModelUsageMetrics(t *testing.T) {
	m := NewMetrics()
	m.ModelUsage("openai:qwen2.5-0.5b", 1200, 40)
	m.ModelUsage("openai:qwen2.5-0.5b", 800, 10)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{
		`ariadne_model_tokens_total{kind="prompt",model="openai:qwen2.5-0.5b"} 2000`,
		`ariadne_model_tokens_total{kind="completion",model="openai:qwen2.5-0.5b"} 50`,
		`ariadne_model_calls_total{model="openai:qwen2.5-0.5b"} 2`,
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestParseKeys: keys-file errors name the entry and its line; misspelt fields are refused; a
// wrong key is unknown (never the public groups); the demo's file parses.
func TestParseKeys(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"keys:\n  - {name: a, key: k, groups: [x]}\n  - {name: b, key: k2, grups: [y]}\n", "line 3: unknown field grups in a key entry (it takes name, key or key_sha256, groups, write, metrics)"},
		{"public_group: [all]\n", "line 1: unknown field public_group (the file takes public_groups and keys)"},
		{"keys:\n  - {name: a, key: k, groups: [x]}\n  - {name: b, key: k2}\n", "entry 2 (line 3) needs a name, exactly one of key/key_sha256, and groups"},
		{"keys:\n  - {name: a, key_sha256: abc, groups: [x]}\n", "entry 1 (line 2): key_sha256 must be 64 hex digits"},
		{"keys:\n  - {name: a, key: k, groups: [x]}\n  - {name: a, key: k2, groups: [y]}\n", "entry 2 (line 3): duplicate name or key"},
		{"public_groups: []\nkeys:\n  - {name: a, key: k, groups: [x]}\n", "public_groups is an empty list"},
	}
	for _, tc := range tests {
		_, err := ParseKeys([]byte(tc.yaml))
		if err == nil || !errors.Is(err, ariadne.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseKeys(%q) = %v, want an ErrInvalid mentioning %q", tc.yaml, err, tc.want)
		}
	}
	if k, err := ParseKeys([]byte("keys:\n  - {name: a, key: k, groups: [x]}\n")); err != nil || strings.Join(k.public, ",") != ariadne.PublicGroup {
		t.Errorf("public_groups left out: %v %v, want the default [%s]", k, err, ariadne.PublicGroup)
	}
	bad := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.WriteFile(bad, []byte("keys:\n  - {name: a, key: k, grups: [x]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKeys(bad); err == nil || !strings.Contains(err.Error(), "keys file "+bad+": ") || !strings.Contains(err.Error(), "unknown field grups") {
		t.Errorf("LoadKeys of a bad file: %v, want its path and the field", err)
	}
	k, err := LoadKeys("../demo/api-keys.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := k.Lookup("demo-editor-key"); !ok || !c.Write || strings.Join(c.Groups, ",") != "all" {
		t.Errorf("demo editor: %+v %v", c, ok)
	}
	if c, ok := k.Lookup("demo-management-key"); !ok || c.Write || strings.Join(c.Groups, ",") != "all,management" {
		t.Errorf("demo management: %+v %v", c, ok)
	}
	if c, ok := k.Lookup("demo-management-key "); ok {
		t.Errorf("a near-miss key was accepted as %+v", c)
	}
}

// TestUnknownKeyWithoutKeysFile: a server started without a keys file says so when a key arrives
// (the README's writer key sent to an API started without ARIADNE_API_KEYS_FILE).
func TestUnknownKeyWithoutKeysFile(t *testing.T) {
	none, err := LoadKeys("")
	if err != nil {
		t.Fatal(err)
	}
	e := New(Services{Answerer: &fakeAnswerer{}, Retriever: &fakeRetriever{}, Entities: &fakeGraph{}, Library: &fakeGraph{}, Documents: &fakeDocuments{},
		Keys: none, Metrics: NewMetrics(), Log: slog.New(slog.DiscardHandler)}, Limits{})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/v1/documents", strings.NewReader("---\nid: a\n---\nx"))
	req.Header.Set("Authorization", "Bearer demo-editor-key")
	req.Header.Set("Content-Type", "text/markdown")
	e.ServeHTTP(rec, req)
	want := "unknown API key; this server has no API keys configured (start it with ARIADNE_API_KEYS_FILE)"
	if rec.Code != 401 || !strings.Contains(rec.Body.String(), `"message":"`+want+`"`) {
		t.Fatalf("%d %s, want 401 %q", rec.Code, rec.Body.String(), want)
	}
}

// TestCredentials: the API key of a request's headers — the Bearer scheme in any case, or
// X-API-Key — and a caller-facing error for every header that is present without a usable key.
func TestCredentials(t *testing.T) {
	tests := []struct {
		name       string
		auth, xkey []string
		key        string
		present    bool
		err        string
	}{
		{"no header", nil, nil, "", false, ""},
		{"bearer", []string{"Bearer k1"}, nil, "k1", true, ""},
		{"lower-case scheme", []string{"bearer k1"}, nil, "k1", true, ""},
		{"upper-case scheme", []string{"BEARER k1"}, nil, "k1", true, ""},
		{"spaces after the scheme", []string{"Bearer   k1"}, nil, "k1", true, ""},
		{"x-api-key", nil, []string{"k1"}, "k1", true, ""},
		{"both, the same key", []string{"Bearer k1"}, []string{"k1"}, "k1", true, ""},
		{"both, different keys", []string{"Bearer k1"}, []string{"k2"}, "", true,
			"the Authorization and X-API-Key headers carry different keys; send the key in one of them"},
		{"basic", []string{"Basic dXNlcjpwYXNz"}, nil, "", true,
			"the Authorization header uses the Basic scheme; this API takes 'Authorization: Bearer <API key>' or 'X-API-Key: <API key>'"},
		{"a key without a scheme", []string{"k1"}, nil, "", true,
			"the Authorization header has no scheme; send 'Authorization: Bearer <API key>'"},
		{"an odd scheme is not repeated", []string{"sk-live-0123456789abcdefghij xyz"}, nil, "", true,
			"the Authorization header uses another scheme; this API takes 'Authorization: Bearer <API key>' or 'X-API-Key: <API key>'"},
		{"empty bearer", []string{"Bearer"}, nil, "", true,
			"the Authorization header has the Bearer scheme but no key; send 'Authorization: Bearer <API key>'"},
		{"bearer and spaces", []string{"Bearer    "}, nil, "", true,
			"the Authorization header has the Bearer scheme but no key; send 'Authorization: Bearer <API key>'"},
		{"empty authorization", []string{""}, nil, "", true,
			"the Authorization header is empty; send 'Authorization: Bearer <API key>'"},
		{"two words", []string{"Bearer k1 k2"}, nil, "", true,
			"the bearer key in the Authorization header contains white space; send 'Authorization: Bearer <API key>'"},
		{"empty x-api-key", nil, []string{"  "}, "", true, "the X-API-Key header is empty; send 'X-API-Key: <API key>'"},
		{"two authorization headers", []string{"Bearer k1", "Bearer k1"}, nil, "", true, "send one Authorization header"},
		{"two x-api-key headers", nil, []string{"k1", "k2"}, "", true, "send one X-API-Key header"},
	}
	for _, tc := range tests {
		h := http.Header{}
		for _, v := range tc.auth {
			h.Add("Authorization", v)
		}
		for _, v := range tc.xkey {
			h.Add("X-API-Key", v)
		}
		key, present, err := credentials(h)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if key != tc.key || present != tc.present || msg != tc.err {
			t.Errorf("%s: key %q present %v err %q, want %q %v %q", tc.name, key, present, msg, tc.key, tc.present, tc.err)
		}
	}
}

// TestAuthorizationHeader: through the engine, a lower-case bearer scheme authenticates, and
// every Authorization header that is not a usable bearer key is 401 (JSON, WWW-Authenticate),
// never the anonymous caller.
func TestAuthorizationHeader(t *testing.T) {
	r := newRig(t, Limits{})
	r.g.sources = map[string][]ariadne.SourceInfo{"all,sales": {{Name: "crm"}}, "all": {{Name: "public"}}}
	get := func(headers ...string) (*http.Response, string) {
		req, _ := http.NewRequest("GET", r.srv.URL+"/v1/sources", nil)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Add(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp, string(raw)
	}
	for _, auth := range []string{"bearer reader-key", "BEARER reader-key", "Bearer reader-key"} {
		if resp, body := get("Authorization", auth); resp.StatusCode != 200 || !strings.Contains(body, `"name":"crm"`) {
			t.Errorf("%q: %d %s, want the reader's sources", auth, resp.StatusCode, body)
		}
	}
	if resp, body := get("X-API-Key", "reader-key"); resp.StatusCode != 200 || !strings.Contains(body, `"name":"crm"`) {
		t.Errorf("X-API-Key: %d %s", resp.StatusCode, body)
	}
	if resp, body := get(); resp.StatusCode != 200 || !strings.Contains(body, `"name":"public"`) {
		t.Errorf("no header: %d %s, want the anonymous caller's sources", resp.StatusCode, body)
	}
	for _, headers := range [][]string{
		{"Authorization", "Basic dXNlcjpwYXNz"},
		{"Authorization", "Bearer"},
		{"Authorization", "Bearer "},
		{"Authorization", ""},
		{"Authorization", "reader-key"},
		{"X-API-Key", ""},
		{"Authorization", "Bearer reader-key", "X-API-Key", "writer-key"},
		{"Authorization", "bearer nope"},
	} {
		resp, body := get(headers...)
		if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != `Bearer realm="ariadne"` {
			t.Errorf("%q: %d %s, want 401 with WWW-Authenticate", headers, resp.StatusCode, body)
			continue
		}
		if code, msg := errorOf(t, body); code != "unauthorized" || strings.Contains(msg, "dXNlcjpwYXNz") || strings.Contains(msg, "reader-key") {
			t.Errorf("%q: %s %q", headers, code, msg)
		}
	}
}

// embeddingRetriever embeds each question through a real query-embedding cache, as
// agent.Retriever does, and counts the model's calls.
type embeddingRetriever struct {
	cache *embedding.QueryCache
	mu    sync.Mutex
	calls int
}

type countingLexical struct {
	*embedding.Lexical
	r *embeddingRetriever
}

func (c countingLexical) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	c.r.mu.Lock()
	c.r.calls++
	c.r.mu.Unlock()
	return c.Lexical.EmbedQuery(ctx, text)
}

func (e *embeddingRetriever) Retrieve(ctx context.Context, req agent.Request) (agent.Result, error) {
	_, err := e.cache.EmbedQuery(ctx, req.Question)
	return agent.Result{Route: ariadne.RouteSimple}, err
}

func (e *embeddingRetriever) modelCalls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls
}

// TestQueryEmbeddingCachePerCaller: through the engine, the same question from two API keys, or
// from two anonymous client addresses, reaches the model once per caller — no caller's entry
// answers another's lookup — while one caller's repeat is a hit.
func TestQueryEmbeddingCachePerCaller(t *testing.T) {
	keys, err := ParseKeys([]byte(testKeys))
	if err != nil {
		t.Fatal(err)
	}
	ret := &embeddingRetriever{}
	metrics := NewMetrics()
	ret.cache, err = embedding.NewQueryCache(countingLexical{embedding.NewLexical(64), ret},
		embedding.QueryCacheConfig{Size: 64, OnLookup: metrics.QueryEmbeddingLookup})
	if err != nil {
		t.Fatal(err)
	}
	g := &fakeGraph{}
	e := New(Services{Answerer: &fakeAnswerer{}, Retriever: ret, Entities: g, Library: g, Documents: &fakeDocuments{}, Keys: keys,
		Metrics: metrics, Log: slog.New(slog.DiscardHandler)}, Limits{})
	ask := func(addr, key string) {
		t.Helper()
		req := httptest.NewRequest("POST", "/v1/search", strings.NewReader(`{"question":"Who signed the Borealis contract?"}`))
		req.RemoteAddr = addr
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		if w.Code != 200 {
			t.Fatalf("search: %d %s", w.Code, w.Body.String())
		}
	}
	for i, s := range []struct {
		addr, key string
		calls     int
	}{
		{"192.0.2.1:1", "reader-key", 1},
		{"192.0.2.1:1", "reader-key", 1}, // the reader's repeat: a hit
		{"192.0.2.1:1", "writer-key", 2}, // another key from the same address: a miss
		{"192.0.2.1:1", "", 3},           // anonymous from that address: its own scope
		{"192.0.2.2:1", "", 4},           // anonymous from another address: a miss
		{"192.0.2.2:1", "", 4},
		{"192.0.2.3:1", "reader-key", 4}, // the reader from elsewhere: still the reader's entry
	} {
		ask(s.addr, s.key)
		if got := ret.modelCalls(); got != s.calls {
			t.Fatalf("step %d (%s, key %q): %d model calls, want %d", i, s.addr, s.key, got, s.calls)
		}
	}
	rec := httptest.NewRecorder()
	metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{`ariadne_query_embedding_cache_total{result="hit"} 3`, `ariadne_query_embedding_cache_total{result="miss"} 4`} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestCheckJSONText: JSON text that encoding/json would change silently is refused, with where.
func TestCheckJSONText(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{`{"q":"plain"}`, ""},
		{`{"q":"Кто? 😀"}`, ""},
		{`{"q":"\ud83d\ude00"}`, ""}, // a surrogate pair: one character
		{`{"q":"\uD83D\uDE00"}`, ""},
		{`{"q":"\\ud800"}`, ""}, // an escaped backslash, then text
		{`{"q":"\u00e9\ufffd"}`, ""},
		{"{\"q\":\"\xff\"}", "invalid UTF-8 at byte 6"},
		{"{\"q\":\"\xe2\x82\"}", "invalid UTF-8 at byte 6"},
		{`{"q":"\ud800"}`, `a lone UTF-16 surrogate escape (\uD800) at byte 6, which is not a character`},
		{`{"q":"\ud800x"}`, `a lone UTF-16 surrogate escape (\uD800) at byte 6, which is not a character`},
		{`{"q":"\ud800\u0041"}`, `a lone UTF-16 surrogate escape (\uD800) at byte 6, which is not a character`},
		{`{"q":"\udfff"}`, `a lone UTF-16 surrogate escape (\uDFFF) at byte 6, which is not a character`},
		{`{"q":"ok","\udc00":1}`, `a lone UTF-16 surrogate escape (\uDC00) at byte 11, which is not a character`},
		{`{"q":"\ud800`, `a lone UTF-16 surrogate escape (\uD800) at byte 6, which is not a character`},
		{`{"q":"\u12`, ""}, // the decoder's syntax error
	} {
		err := checkJSONText([]byte(tc.in))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.err {
			t.Errorf("checkJSONText(%q) = %q, want %q", tc.in, got, tc.err)
		}
	}
}

// TestACLRules: the shape of a document's acl as sent, and the write rule (the acl shares a
// group with the writer's groups), as pure functions.
func TestACLRules(t *testing.T) {
	for _, tc := range []struct {
		name   string
		acl    []string
		scalar bool
		status int
		msg    string
	}{
		{"left out", nil, false, 0, ""},
		{"a list", []string{"management", "all"}, false, 0, ""},
		{"empty list", []string{}, false, 400, "invalid document: acl is an empty list; leave it out for the default, [all], or list the groups that may read the document"},
		{"blank name", []string{"sales", " "}, false, 400, "invalid document: acl has a blank group name (entry 2 of 2)"},
		{"empty name", []string{""}, false, 400, "invalid document: acl has a blank group name (entry 1 of 1)"},
		{"one value", []string{"management"}, true, 400, "invalid document: acl must be a list of group names, like acl: [management], not a single value (leave it out for the default, [all])"},
	} {
		e := checkACLShape(tc.acl, tc.scalar)
		if (e == nil) != (tc.status == 0) || e != nil && (e.status != tc.status || e.code != "invalid_request" || e.msg != tc.msg) {
			t.Errorf("checkACLShape %s: %+v, want %d %q", tc.name, e, tc.status, tc.msg)
		}
	}
	for _, tc := range []struct {
		acl, groups []string
		msg         string
	}{
		{[]string{"all"}, []string{"all"}, ""},
		{[]string{"all", "management"}, []string{"all"}, ""},
		{[]string{"management"}, []string{"all", "management"}, ""},
		{[]string{"management"}, []string{"all"}, "this API key may only write documents it can read: the document's acl [management] shares no group with the key's groups [all]"},
		{[]string{"managment"}, []string{"all", "management"}, "this API key may only write documents it can read: the document's acl [managment] shares no group with the key's groups [all, management]"},
		{[]string{"all"}, []string{"public", "sales"}, "this API key may only write documents it can read: the document's acl [all] shares no group with the key's groups [public, sales]"},
		{[]string{"Sales"}, []string{"sales"}, "this API key may only write documents it can read: the document's acl [Sales] shares no group with the key's groups [sales]"},
	} {
		e := checkWriteACL(tc.acl, tc.groups)
		if (e == nil) != (tc.msg == "") || e != nil && (e.status != 403 || e.code != "forbidden" || e.msg != tc.msg) {
			t.Errorf("checkWriteACL(%v, %v): %+v, want %q", tc.acl, tc.groups, e, tc.msg)
		}
	}
}

// TestPutDocumentACL: through the engine, JSON and Markdown bodies follow one ACL rule; refused
// writes never reach the pipeline.
func TestPutDocumentACL(t *testing.T) {
	r := newRig(t, Limits{})
	r.docs.sum = ingest.Summary{DocsWritten: 1, Chunks: 1}
	md := func(acl string) string { return "---\nid: notes/x\n" + acl + "---\nText.\n" }
	forbidden := "this API key may only write documents it can read: the document's acl [%s] shares no group with the key's groups [all]"
	for _, tc := range []struct {
		name, ctype, body string
		status            int
		msg               string
		stored            []string
	}{
		{"JSON left out", "application/json", `{"id":"notes/x","body":"Text."}`, 200, "", []string{"all"}},
		{"JSON null", "application/json", `{"id":"notes/x","acl":null,"body":"Text."}`, 200, "", []string{"all"}},
		{"JSON shared group", "application/json", `{"id":"notes/x","acl":["all","management"],"body":"Text."}`, 200, "", []string{"all", "management"}},
		{"JSON restricted", "application/json", `{"id":"notes/x","acl":["management"],"body":"Text."}`, 403, fmt.Sprintf(forbidden, "management"), nil},
		{"JSON typo", "application/json", `{"id":"notes/x","acl":["managment"],"body":"Text."}`, 403, fmt.Sprintf(forbidden, "managment"), nil},
		{"JSON empty list", "application/json", `{"id":"notes/x","acl":[],"body":"Text."}`, 400, "invalid document: acl is an empty list", nil},
		{"JSON blank group", "application/json", `{"id":"notes/x","acl":[""],"body":"Text."}`, 400, "invalid document: acl has a blank group name (entry 1 of 1)", nil},
		{"JSON scalar", "application/json", `{"id":"notes/x","acl":"management","body":"Text."}`, 400,
			`the body is not a valid JSON document: field "acl" must be a list of strings`, nil},
		{"Markdown left out", "text/markdown", md(""), 200, "", []string{"all"}},
		{"Markdown shared group", "text/markdown", md("acl: [all, sales]\n"), 200, "", []string{"all", "sales"}},
		{"Markdown restricted", "text/markdown", md("acl: [management]\n"), 403, fmt.Sprintf(forbidden, "management"), nil},
		{"Markdown empty list", "text/markdown", md("acl: []\n"), 400, "invalid document: acl is an empty list", nil},
		{"Markdown blank group", "text/markdown", md("acl: [\"\"]\n"), 400, "invalid document: acl has a blank group name", nil},
		{"Markdown scalar", "text/markdown", md("acl: management\n"), 400, "invalid document: acl must be a list of group names, like acl: [management], not a single value", nil},
		{"Markdown scalar all", "text/markdown", md("acl: all\n"), 400, "invalid document: acl must be a list of group names", nil},
	} {
		r.docs.got = nil
		resp, body := r.do(t, "POST", "/v1/documents", "writer-key", tc.ctype, tc.body)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, resp.StatusCode, body, tc.status)
			continue
		}
		if tc.status != 200 {
			if _, msg := errorOf(t, body); !strings.HasPrefix(msg, tc.msg) {
				t.Errorf("%s: %q, want %q", tc.name, msg, tc.msg)
			}
			if r.docs.got != nil {
				t.Errorf("%s: a refused write reached the pipeline", tc.name)
			}
			continue
		}
		if len(r.docs.got) != 1 || fmt.Sprint(r.docs.got[0].ACL) != fmt.Sprint(tc.stored) {
			t.Errorf("%s: the pipeline got %+v, want acl %v", tc.name, r.docs.got, tc.stored)
		}
	}
}

// TestVersionConflict: the version rule as a pure function.
func TestVersionConflict(t *testing.T) {
	for _, tc := range []struct {
		given, stored int
		msg           string
	}{
		{3, 2, ""},
		{1, 0, ""},
		{0, 0, ""}, // unversioned: any write replaces it
		{2, 5, `document "d" is stored at version 5; this write has version 2, which is older (send version 6 or higher to replace it)`},
		{0, 1, `document "d" is stored at version 1; this write has version 0, which is older (send version 2 or higher to replace it)`},
		{4, 4, `document "d" is stored at version 4 with other content; this write has version 4 too (send version 5 or higher to replace it)`},
	} {
		e := versionConflict("d", tc.given, tc.stored)
		if (e == nil) != (tc.msg == "") || e != nil && (e.status != 409 || e.code != "version_conflict" || e.msg != tc.msg) {
			t.Errorf("versionConflict(%d over %d) = %+v, want %q", tc.given, tc.stored, e, tc.msg)
		}
	}
}

// TestPutDocumentVersions: through the engine, a write older than the stored version (or the
// same version with other content) is 409 version_conflict and never written; a newer one, and
// the same content again, go through; the check is made again under the writer lock.
func TestPutDocumentVersions(t *testing.T) {
	r := newRig(t, Limits{})
	stored := ariadne.Document{ID: "notes/v", Title: "V", Version: 5, ACL: []string{"all"}, Body: "Five.\n"}
	r.g.docs[stored.ID] = ariadne.DocumentInfo{ID: stored.ID, Version: 5, ACL: []string{"all"}}
	r.docs.stored = map[string]ariadne.DocState{stored.ID: {Source: ariadne.DefaultSource, ContentHash: stored.ContentHash()}}
	post := func(version int, body string) (*http.Response, string) {
		r.docs.got = nil
		return r.do(t, "POST", "/v1/documents", "writer-key", "application/json",
			fmt.Sprintf(`{"id":"notes/v","title":"V","version":%d,"body":%q}`, version, body))
	}
	for _, tc := range []struct {
		version int
		body    string
		status  int
		msg     string
	}{
		{3, "Three.\n", 409, `document "notes/v" is stored at version 5; this write has version 3, which is older (send version 6 or higher to replace it)`},
		{0, "None.\n", 409, `document "notes/v" is stored at version 5; this write has version 0, which is older (send version 6 or higher to replace it)`},
		{5, "Five, edited.\n", 409, `document "notes/v" is stored at version 5 with other content; this write has version 5 too (send version 6 or higher to replace it)`},
		{5, "Five.\n", 200, ""}, // the stored content again: unchanged
		{6, "Six.\n", 200, ""},
	} {
		resp, body := post(tc.version, tc.body)
		if resp.StatusCode != tc.status {
			t.Errorf("version %d: %d %s, want %d", tc.version, resp.StatusCode, body, tc.status)
			continue
		}
		if tc.status == 409 {
			if code, msg := errorOf(t, body); code != "version_conflict" || msg != tc.msg || r.docs.got != nil {
				t.Errorf("version %d: %s %q (written: %v)", tc.version, code, msg, r.docs.got != nil)
			}
		} else if r.docs.got == nil {
			t.Errorf("version %d: not written", tc.version)
		}
	}
	// Unversioned documents: any write replaces them.
	r.g.docs["notes/u"] = ariadne.DocumentInfo{ID: "notes/u", ACL: []string{"all"}}
	r.docs.stored["notes/u"] = ariadne.DocState{Source: ariadne.DefaultSource, ContentHash: "other"}
	if resp, body := r.do(t, "POST", "/v1/documents", "writer-key", "text/markdown", "---\nid: notes/u\n---\nNew text.\n"); resp.StatusCode != 200 {
		t.Errorf("unversioned: %d %s", resp.StatusCode, body)
	}
	// Another source holds the id: the pipeline's document_conflict, not a version conflict.
	r.docs.stored["notes/w"] = ariadne.DocState{Source: "wiki", ContentHash: "other"}
	r.g.docs["notes/w"] = ariadne.DocumentInfo{ID: "notes/w", Version: 9, ACL: []string{"all"}}
	r.docs.sum = ingest.Summary{Conflicts: []ariadne.SourceConflict{{DocID: "notes/w", Source: "wiki"}}}
	if resp, body := r.do(t, "POST", "/v1/documents", "writer-key", "application/json", `{"id":"notes/w","version":1,"body":"x"}`); resp.StatusCode != 409 ||
		!strings.Contains(body, `"code":"document_conflict"`) {
		t.Errorf("another source: %d %s", resp.StatusCode, body)
	}
	r.docs.sum = ingest.Summary{}

	// Between the handler's first check and the write, another writer stores version 7 (and
	// restricts the document): the check under the writer lock sees it.
	r.docs.beforeCheck = func() {
		r.g.docs[stored.ID] = ariadne.DocumentInfo{ID: stored.ID, Version: 7, ACL: []string{"all"}}
		r.docs.stored[stored.ID] = ariadne.DocState{Source: ariadne.DefaultSource, ContentHash: "seven"}
	}
	if resp, body := post(6, "Six, edited.\n"); resp.StatusCode != 409 || !strings.Contains(body, "is stored at version 7") || r.docs.got != nil {
		t.Errorf("a concurrent newer version: %d %s", resp.StatusCode, body)
	}
	r.docs.beforeCheck = func() {
		r.g.docs[stored.ID] = ariadne.DocumentInfo{ID: stored.ID, Version: 7, ACL: []string{"management"}}
	}
	if resp, body := post(8, "Eight.\n"); resp.StatusCode != 403 || !strings.Contains(body, "this API key may not replace that document") {
		t.Errorf("restricted meanwhile: %d %s", resp.StatusCode, body)
	}
	r.docs.beforeCheck = func() { r.g.docs["notes/u"] = ariadne.DocumentInfo{ID: "notes/u", ACL: []string{"management"}} }
	r.docs.sum = ingest.Summary{DocsDeleted: 1}
	if resp, body := r.do(t, "DELETE", "/v1/documents/notes%2Fu", "writer-key", "", ""); resp.StatusCode != 404 {
		t.Errorf("delete of a document restricted meanwhile: %d %s", resp.StatusCode, body)
	}
}

// TestEntitiesPartOfName: /v1/entities finds an entity by its whole name in any case form, and,
// when nothing matches whole, by every word of the query matching a word of its name or aliases
// — a surname alone, or the words in another order (the README trial found both empty).
func TestEntitiesPartOfName(t *testing.T) {
	r := newRig(t, Limits{})
	cand := func(key, name string, aliases ...string) ariadne.EntityCandidate {
		return ariadne.EntityCandidate{StoredEntity: ariadne.StoredEntity{Entity: ariadne.Entity{Key: key, Name: name, Type: "person", Aliases: aliases}}}
	}
	r.g.cands = []ariadne.EntityCandidate{cand("people/anna-svetlova", "Анна Светлова", "Anna Svetlova"),
		cand("people/igor-lazarev", "Игорь Лазарев", "Igor Lazarev"), cand("people/anna-orlova", "Анна Орлова")}
	for _, tc := range []struct{ q, want string }{
		{"Анны Светловой", "people/anna-svetlova"},          // whole name, genitive
		{"Светловой", "people/anna-svetlova"},               // the surname alone, inflected
		{"Svetlova", "people/anna-svetlova"},                // in the other script
		{"Lazarev Igor", "people/igor-lazarev"},             // another order
		{"Анна", "people/anna-svetlova,people/anna-orlova"}, // a first name: every Anna, best first
		{"Петров", ""},
	} {
		_, body := r.do(t, "GET", "/v1/entities?q="+url.QueryEscape(tc.q), "", "", "")
		var got struct {
			Entities []EntityView `json:"entities"`
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatalf("%s: %v %s", tc.q, err, body)
		}
		var keys []string
		for _, e := range got.Entities {
			keys = append(keys, e.Key)
		}
		if strings.Join(keys, ",") != tc.want {
			t.Errorf("q=%s: %v, want %s", tc.q, keys, tc.want)
		}
	}
}

// TestHeadReads: the /v1 reads answer HEAD with GET's status and headers and no body, under the
// same authentication and ACL (a document the caller may not read is 404 for HEAD too).
func TestHeadReads(t *testing.T) {
	r := newRigWithKeys(t, testKeys+"  - {name: manager, key: manager-key, groups: [management]}\n")
	tests := []struct {
		name, path, key string
		status          int
	}{
		{"a readable document", "/v1/documents/public%2Fdoc", "", 200},
		{"a restricted document, anonymous", "/v1/documents/secret%2Fdoc", "", 404},
		{"a restricted document, with a key of its group", "/v1/documents/secret%2Fdoc", "manager-key", 200},
		{"an unknown key", "/v1/documents/public%2Fdoc", "no-such-key", 401},
		{"the document list", "/v1/documents", "", 200},
		{"the sources", "/v1/sources", "", 200},
		{"metrics without a key", "/metrics", "", 401},
		{"metrics with a key that may not", "/metrics", "manager-key", 403},
		{"metrics with its key", "/metrics", "monitor-key", 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			get, getBody := r.do(t, "GET", tc.path, tc.key, "", "")
			head, body := r.do(t, "HEAD", tc.path, tc.key, "", "")
			if head.StatusCode != tc.status || get.StatusCode != tc.status || body != "" || getBody == "" ||
				head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
				t.Errorf("HEAD %s: %d %q %q; GET: %d %q; want %d, no body, GET's content type", tc.path, head.StatusCode, body,
					head.Header.Get("Content-Type"), get.StatusCode, get.Header.Get("Content-Type"), tc.status)
			}
		})
	}
}

// TestNoStoreHeaders: every /v1 answer and /metrics — success or error, with a key or without —
// tells caches not to keep it and that it varies with the caller's key; the UI's static files,
// the same for everyone, do not (security audit, stop 62: a shared cache keying by URL alone
// would hand a restricted document fetched with X-API-Key to the next anonymous caller).
func TestNoStoreHeaders(t *testing.T) {
	e := limitsHandler(t, Limits{}) // testKeys, whose monitor-key may read /metrics
	for _, tc := range []struct {
		method, path, key string
		status            int
		store             bool
	}{
		{"GET", "/v1/documents", "monitor-key", 200, false},
		{"GET", "/v1/documents", "", 200, false},
		{"GET", "/v1/documents", "wrong-key-000", 401, false},
		{"GET", "/v1/chunks/missing", "monitor-key", 404, false},
		{"GET", "/metrics", "monitor-key", 200, false},
		{"GET", "/metrics", "", 401, false},
		{"GET", "/healthz", "", 200, true},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(tc.method, tc.path, nil)
		if tc.key != "" {
			req.Header.Set("X-API-Key", tc.key)
		}
		e.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("%s %s (key %q): %d, want %d", tc.method, tc.path, tc.key, rec.Code, tc.status)
		}
		cc, vary := rec.Header().Get("Cache-Control"), rec.Header().Get("Vary")
		if tc.store {
			if cc == "no-store" {
				t.Errorf("%s %s: Cache-Control no-store on a response the same for everyone", tc.method, tc.path)
			}
			continue
		}
		if cc != "no-store" || vary != "Authorization, X-API-Key" {
			t.Errorf("%s %s (key %q): Cache-Control %q, Vary %q; want no-store, Authorization, X-API-Key", tc.method, tc.path, tc.key, cc, vary)
		}
	}
	// Without a keys file /metrics is open, and still not to be cached.
	none, err := LoadKeys("")
	if err != nil {
		t.Fatal(err)
	}
	open := New(Services{Answerer: &fakeAnswerer{}, Retriever: &fakeRetriever{}, Entities: &fakeGraph{}, Library: &fakeGraph{}, Documents: &fakeDocuments{},
		Keys: none, Metrics: NewMetrics(), Log: slog.New(slog.DiscardHandler)}, Limits{})
	rec := httptest.NewRecorder()
	open.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 || rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("/metrics without keys: %d, Cache-Control %q", rec.Code, rec.Header().Get("Cache-Control"))
	}
}

// aclCandidates is fakeGraph whose entity index answers by the caller's groups: each candidate
// is visible to the groups listed for it.
type aclCandidates struct {
	*fakeGraph
	visible map[string][]string // candidate key → groups that see it
}

func (f aclCandidates) EntityCandidates(_ context.Context, _ string, groups []string, _ int) ([]ariadne.EntityCandidate, error) {
	var out []ariadne.EntityCandidate
	for _, c := range f.cands {
		if slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(f.visible[c.Key], g) }) {
			out = append(out, c)
		}
	}
	return out, nil
}

// TestEntitiesPlacesByGazetteer: with a gazetteer, /v1/entities finds a place by its name in the
// other language ("Vienna" lists «Вена», «Вене» lists Vienna) — only among the entities the
// caller may see: a place only a restricted chunk names is listed for its readers alone.
func TestEntitiesPlacesByGazetteer(t *testing.T) {
	g, err := lexicon.ReadGazetteer("places.tsv", strings.NewReader(
		"city\t2761369\tAT\t1691468\tVienna\tВена\ncity\t2867714\tDE\t1260391\tMunich\tМюнхен\n"))
	if err != nil {
		t.Fatal(err)
	}
	loc := func(key, name string, aliases ...string) ariadne.EntityCandidate {
		return ariadne.EntityCandidate{StoredEntity: ariadne.StoredEntity{Entity: ariadne.Entity{Key: key, Name: name, Type: "location", Aliases: aliases}}}
	}
	graph := aclCandidates{fakeGraph: &fakeGraph{cands: []ariadne.EntityCandidate{loc("location:vena", "Вена", "Вене"), loc("location:miunkhen", "Мюнхен")}},
		visible: map[string][]string{"location:vena": {"all"}, "location:miunkhen": {"sales"}}}
	keys, err := ParseKeys([]byte(testKeys))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(Services{Answerer: &fakeAnswerer{}, Retriever: &fakeRetriever{}, Entities: graph, Library: graph.fakeGraph,
		Documents: &fakeDocuments{}, Keys: keys, Metrics: NewMetrics(), Places: g,
		Ready: func(context.Context) map[string]Check { return map[string]Check{"neo4j": {OK: true}} }}, Limits{}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct{ q, key, want string }{
		{"Vienna", "", "location:vena"},
		{"Munich", "", ""},                            // only a sales chunk names it
		{"Munich", "reader-key", "location:miunkhen"}, // a sales reader sees it
		{"Richmond", "", ""},
	} {
		req, _ := http.NewRequest("GET", srv.URL+"/v1/entities?q="+url.QueryEscape(tc.q), nil)
		if tc.key != "" {
			req.Header.Set("Authorization", "Bearer "+tc.key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Entities []EntityView `json:"entities"`
		}
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		var ks []string
		for _, e := range got.Entities {
			ks = append(ks, e.Key)
		}
		if strings.Join(ks, ",") != tc.want {
			t.Errorf("q=%s key=%q: %v, want %q", tc.q, tc.key, ks, tc.want)
		}
	}
}
