package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// llamaCppPythonRejection is what llama-cpp-python's server answers (HTTP 500) to a json_schema
// response_format.
const llamaCppPythonRejection = `{"error":{"message":"[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}]","type":"internal_server_error","param":null,"code":null}}`

var testSchema = &Schema{Name: "route", Schema: json.RawMessage(`{"type":"object","required":["route"],"properties":{"route":{"type":"string","enum":["simple","hybrid"]}}}`)}

// seenRequest is what the fake server records of one chat request.
type seenRequest struct {
	Mode    JSONMode // which form the request used
	Body    map[string]any
	Grammar string
}

// fakeChat is an OpenAI-compatible server whose answer to each JSON form is scripted.
type fakeChat struct {
	mu     sync.Mutex
	seen   []seenRequest
	answer func(mode JSONMode, w http.ResponseWriter) bool // false: answer normally
	usage  map[string]int
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	mode := JSONModeNone
	if rf, ok := body["response_format"].(map[string]any); ok {
		mode = JSONMode(rf["type"].(string))
	} else if _, ok := body["grammar"]; ok {
		mode = JSONModeGrammar
	}
	g, _ := body["grammar"].(string)
	f.mu.Lock()
	f.seen = append(f.seen, seenRequest{Mode: mode, Body: body, Grammar: g})
	f.mu.Unlock()
	if f.answer != nil && f.answer(mode, w) {
		return
	}
	resp := map[string]any{"choices": []map[string]any{{"message": map[string]any{"content": `{"route":"simple"}`}}}}
	if f.usage != nil {
		resp["usage"] = f.usage
	}
	json.NewEncoder(w).Encode(resp)
}

func (f *fakeChat) modes() []JSONMode {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []JSONMode
	for _, s := range f.seen {
		out = append(out, s.Mode)
	}
	return out
}

func fastRetry() retry.Policy {
	return retry.Policy{Initial: time.Millisecond, Max: 5 * time.Millisecond, MaxAttempts: 3}
}

func newTestOpenAI(t *testing.T, f *fakeChat, mode JSONMode) *OpenAI {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := NewOpenAI(Config{BaseURL: srv.URL + "/v1", Model: "m", JSONMode: mode, Retry: fastRetry()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func chatJSON(c interface {
	Chat(context.Context, Request) (string, error)
}) (string, error) {
	return c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: "route?"}}, JSON: testSchema})
}

func equalModes(a, b []JSONMode) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestExplicitJSONModesSendTheirForm(t *testing.T) {
	for _, mode := range []JSONMode{JSONModeSchema, JSONModeObject, JSONModeGrammar, JSONModeNone} {
		t.Run(string(mode), func(t *testing.T) {
			f := &fakeChat{}
			c := newTestOpenAI(t, f, mode)
			if out, err := chatJSON(c); err != nil || out != `{"route":"simple"}` {
				t.Fatalf("Chat = %q, %v", out, err)
			}
			if got := f.modes(); !equalModes(got, []JSONMode{mode}) {
				t.Fatalf("requests used %v, want [%s]", got, mode)
			}
			s := f.seen[0]
			switch mode {
			case JSONModeSchema:
				js := s.Body["response_format"].(map[string]any)["json_schema"].(map[string]any)
				if js["name"] != "route" || js["schema"] == nil || js["strict"] != true {
					t.Errorf("json_schema form: %v", js)
				}
			case JSONModeObject:
				rf := s.Body["response_format"].(map[string]any)
				if sch, ok := rf["schema"].(map[string]any); !ok || sch["type"] != "object" {
					t.Errorf("json_object form carries no schema: %v", rf)
				}
			case JSONModeGrammar:
				if !strings.Contains(s.Grammar, `root ::= `) || !strings.Contains(s.Grammar, `"\"simple\""`) {
					t.Errorf("grammar form: %q", s.Grammar)
				}
			case JSONModeNone:
				if _, ok := s.Body["response_format"]; ok {
					t.Errorf("mode none sent a response_format")
				}
			}
			if c.JSONMode() != mode {
				t.Errorf("JSONMode() = %s", c.JSONMode())
			}
		})
	}
}

func TestExplicitJSONModeRejectedIsInvalidAndNotRetried(t *testing.T) {
	for _, tc := range []struct {
		mode   JSONMode
		status int
		body   string
	}{
		{JSONModeSchema, 500, llamaCppPythonRejection},
		{JSONModeSchema, 400, `{"error":{"message":"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."}}`},
		{JSONModeObject, 422, `{"detail":[{"loc":["body","response_format","schema"],"msg":"Extra inputs are not permitted"}]}`},
		{JSONModeGrammar, 400, `{"error":"unknown field grammar"}`},
		{JSONModeObject, 415, `unsupported media type`},
		{JSONModeSchema, 404, `not found`},
	} {
		f := &fakeChat{answer: func(mode JSONMode, w http.ResponseWriter) bool {
			http.Error(w, tc.body, tc.status)
			return true
		}}
		c := newTestOpenAI(t, f, tc.mode)
		_, err := chatJSON(c)
		if !errors.Is(err, ariadne.ErrInvalid) || errors.Is(err, ariadne.ErrUnavailable) {
			t.Errorf("%s/%d: err = %v, want ErrInvalid and not ErrUnavailable", tc.mode, tc.status, err)
		}
		var rej *RejectedError
		if !errors.As(err, &rej) || rej.Mode != tc.mode || !strings.Contains(err.Error(), tc.body[:8]) {
			t.Errorf("%s/%d: err = %v, want a RejectedError quoting the answer", tc.mode, tc.status, err)
		}
		if n := len(f.modes()); n != 1 {
			t.Errorf("%s/%d: %d requests, want 1 (an invalid request is not retried)", tc.mode, tc.status, n)
		}
	}
}

func TestAutoDetectsLlamaCppPythonAndRemembers(t *testing.T) {
	f := &fakeChat{answer: func(mode JSONMode, w http.ResponseWriter) bool {
		if mode == JSONModeSchema {
			http.Error(w, llamaCppPythonRejection, 500)
			return true
		}
		return false
	}}
	c := newTestOpenAI(t, f, JSONAuto)
	if c.JSONMode() != JSONAuto {
		t.Fatalf("before detection JSONMode() = %s", c.JSONMode())
	}
	for i := 0; i < 3; i++ {
		if out, err := chatJSON(c); err != nil || out != `{"route":"simple"}` {
			t.Fatalf("call %d: Chat = %q, %v", i, out, err)
		}
	}
	want := []JSONMode{JSONModeSchema, JSONModeObject, JSONModeObject, JSONModeObject}
	if got := f.modes(); !equalModes(got, want) {
		t.Fatalf("requests used %v, want %v (the 500 validation error is not retried; json_object remembered)", got, want)
	}
	if c.JSONMode() != JSONModeObject {
		t.Errorf("JSONMode() = %s, want json_object", c.JSONMode())
	}
	// A request without a schema carries no constraint at all.
	if _, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	if got := f.modes(); got[len(got)-1] != JSONModeNone {
		t.Errorf("free-text request used %s", got[len(got)-1])
	}
}

func TestAutoOrderEndsWithGrammar(t *testing.T) {
	f := &fakeChat{answer: func(mode JSONMode, w http.ResponseWriter) bool {
		switch mode {
		case JSONModeSchema:
			http.Error(w, `{"error":"response_format json_schema is not supported"}`, 400)
			return true
		case JSONModeObject:
			http.Error(w, `{"detail":"validation error: response_format"}`, http.StatusUnprocessableEntity)
			return true
		}
		return false
	}}
	c := newTestOpenAI(t, f, JSONAuto)
	for i := 0; i < 2; i++ {
		if _, err := chatJSON(c); err != nil {
			t.Fatal(err)
		}
	}
	want := []JSONMode{JSONModeSchema, JSONModeObject, JSONModeGrammar, JSONModeGrammar}
	if got := f.modes(); !equalModes(got, want) {
		t.Fatalf("requests used %v, want %v", got, want)
	}
}

func TestAutoNoModeWorksIsClearInvalidError(t *testing.T) {
	f := &fakeChat{answer: func(mode JSONMode, w http.ResponseWriter) bool {
		http.Error(w, `{"error":"this server takes no constraint of kind `+string(mode)+`"}`, 400)
		return true
	}}
	c := newTestOpenAI(t, f, JSONAuto)
	_, err := chatJSON(c)
	if !errors.Is(err, ariadne.ErrInvalid) || errors.Is(err, ariadne.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	for _, want := range []string{"json_schema, json_object, grammar", "HTTP 400", "no constraint of kind grammar"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if got := f.modes(); !equalModes(got, []JSONMode{JSONModeSchema, JSONModeObject, JSONModeGrammar}) {
		t.Errorf("requests used %v, want one per mode", got)
	}
	if c.JSONMode() != JSONAuto {
		t.Errorf("nothing should be remembered, JSONMode() = %s", c.JSONMode())
	}
}

func TestAutoRetriesTransientWithinAModeAndKeepsIt(t *testing.T) {
	// A 503 with Retry-After during detection is a fault of the server, not a rejection of the form.
	var once sync.Once
	f := &fakeChat{}
	f.answer = func(mode JSONMode, w http.ResponseWriter) bool {
		hit := false
		once.Do(func() {
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"error":"loading model"}`, http.StatusServiceUnavailable)
			hit = true
		})
		return hit
	}
	c := newTestOpenAI(t, f, JSONAuto)
	start := time.Now()
	if _, err := chatJSON(c); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < time.Second {
		t.Errorf("did not wait for Retry-After: %v", time.Since(start))
	}
	if got := f.modes(); !equalModes(got, []JSONMode{JSONModeSchema, JSONModeSchema}) || c.JSONMode() != JSONModeSchema {
		t.Errorf("requests used %v, mode %s; want json_schema retried and kept", got, c.JSONMode())
	}
}

func TestGenuine5xxStaysTransient(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
	}{
		{500, `{"error":"CUDA out of memory"}`},
		{502, `bad gateway`},
		{503, `{"error":{"message":"response_format schema engine busy"}}`}, // only a 500 can be a validation error
	} {
		f := &fakeChat{answer: func(mode JSONMode, w http.ResponseWriter) bool {
			http.Error(w, tc.body, tc.status)
			return true
		}}
		c := newTestOpenAI(t, f, JSONAuto)
		_, err := chatJSON(c)
		if !errors.Is(err, ariadne.ErrUnavailable) {
			t.Errorf("%d: err = %v, want ErrUnavailable", tc.status, err)
		}
		if got := f.modes(); !equalModes(got, []JSONMode{JSONModeSchema, JSONModeSchema, JSONModeSchema}) {
			t.Errorf("%d: requests %v, want 3 attempts of the first mode and no detection", tc.status, got)
		}
	}
}

func TestTimeoutAndRefusedAreTransient(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(200 * time.Millisecond) }))
	defer slow.Close()
	c, _ := NewOpenAI(Config{BaseURL: slow.URL, Model: "m", Timeout: 20 * time.Millisecond, Retry: fastRetry()})
	if _, err := chatJSON(c); !errors.Is(err, ariadne.ErrUnavailable) {
		t.Errorf("timeout: err = %v, want ErrUnavailable", err)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL
	down.Close()
	c, _ = NewOpenAI(Config{BaseURL: url, Model: "m", Retry: fastRetry()})
	if _, err := chatJSON(c); !errors.Is(err, ariadne.ErrUnavailable) {
		t.Errorf("refused: err = %v, want ErrUnavailable", err)
	}
}

func TestUsageIsCounted(t *testing.T) {
	type call struct {
		model              string
		prompt, completion int
	}
	var mu sync.Mutex
	var calls []call
	onUsage := func(model string, p, c int) {
		mu.Lock()
		calls = append(calls, call{model, p, c})
		mu.Unlock()
	}
	f := &fakeChat{usage: map[string]int{"prompt_tokens": 120, "completion_tokens": 7, "total_tokens": 127}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c, _ := NewOpenAI(Config{BaseURL: srv.URL, Model: "qwen", OnUsage: onUsage})
	if _, err := chatJSON(c); err != nil {
		t.Fatal(err)
	}
	osrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"message": map[string]any{"content": "{}"}, "done": true,
			"prompt_eval_count": 33, "eval_count": 4})
	}))
	defer osrv.Close()
	o, _ := NewOllama(Config{BaseURL: osrv.URL, Model: "llama3.1:8b", OnUsage: onUsage})
	if _, err := chatJSON(o); err != nil {
		t.Fatal(err)
	}
	want := []call{{"qwen", 120, 7}, {"llama3.1:8b", 33, 4}}
	if len(calls) != 2 || calls[0] != want[0] || calls[1] != want[1] {
		t.Fatalf("usage calls %v, want %v", calls, want)
	}
}

func TestOllamaJSONModes(t *testing.T) {
	var formats []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req ollamaChatRequest
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		formats = append(formats, string(req.Format))
		mu.Unlock()
		if strings.HasPrefix(string(req.Format), "{") { // an old Ollama: only "json"
			http.Error(w, `{"error":"invalid format: expected \"json\" or a JSON schema"}`, 400)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"message": map[string]any{"content": "{}"}, "done": true})
	}))
	defer srv.Close()
	o, _ := NewOllama(Config{BaseURL: srv.URL, Model: "m", Retry: fastRetry()})
	for i := 0; i < 2; i++ {
		if _, err := chatJSON(o); err != nil {
			t.Fatal(err)
		}
	}
	if len(formats) != 3 || !strings.HasPrefix(formats[0], "{") || formats[1] != `"json"` || formats[2] != `"json"` {
		t.Fatalf("formats sent %q; want the schema, then \"json\" remembered", formats)
	}
	if _, err := NewOllama(Config{BaseURL: srv.URL, Model: "m", JSONMode: JSONModeGrammar}); !errors.Is(err, ariadne.ErrInvalid) {
		t.Errorf("ollama with grammar: err = %v", err)
	}
}

func TestParseJSONMode(t *testing.T) {
	for in, want := range map[string]JSONMode{"": JSONAuto, "auto": JSONAuto, "json_schema": JSONModeSchema,
		"json_object": JSONModeObject, "grammar": JSONModeGrammar, "none": JSONModeNone} {
		if got, err := ParseJSONMode(in); err != nil || got != want {
			t.Errorf("ParseJSONMode(%q) = %s, %v", in, got, err)
		}
	}
	if _, err := ParseJSONMode("xml"); !errors.Is(err, ariadne.ErrInvalid) {
		t.Errorf("xml: %v", err)
	}
	if _, err := NewOpenAI(Config{BaseURL: "http://x", Model: "m", JSONMode: "xml"}); !errors.Is(err, ariadne.ErrInvalid) {
		t.Errorf("NewOpenAI with an unknown mode: %v", err)
	}
}
