package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
)

// The fuzz engine is the real one (httpapi.New: middleware, auth, body limit, binding,
// validation, the real agent.Answerer and agent.Retriever, not fakes of them) over in-memory
// stores that hold nothing, so a valid request ends in status index_empty without any server.

// emptyStores is every store and model the agent needs, empty; it records the questions it saw.
type emptyStores struct {
	mu       sync.Mutex
	embedded []string
}

func (s *emptyStores) Search(context.Context, ariadne.SearchMode, ariadne.SearchQuery) ([]ariadne.ScoredChunk, error) {
	return nil, nil
}

func (s *emptyStores) EntityCandidates(context.Context, string, []string, int) ([]ariadne.EntityCandidate, error) {
	return nil, nil
}

func (s *emptyStores) Edges(context.Context, []string, []string, []string, int) ([]ariadne.Edge, error) {
	return nil, nil
}

func (s *emptyStores) EntitiesOfChunks(context.Context, []string, []string) (map[string][]string, error) {
	return map[string][]string{}, nil
}

func (s *emptyStores) DocumentChunkIDs(context.Context, []string, []string) ([]string, error) {
	return nil, nil
}

func (s *emptyStores) Name() string { return "fuzz" }

func (s *emptyStores) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedded = append(s.embedded, text)
	return []float32{1, 0, 0}, nil
}

func (s *emptyStores) Generate(context.Context, agent.GenerationInput) (string, error) {
	return ariadne.NotFoundMarker, nil
}

func (s *emptyStores) CountReadable(context.Context, []string) (int, error) { return 0, nil }

func (s *emptyStores) questions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.embedded
	s.embedded = nil
	return q
}

var (
	fuzzEngineOnce sync.Once
	fuzzEngine     *gin.Engine
	fuzzStores     *emptyStores
)

func engineForFuzz(t testing.TB) (*gin.Engine, *emptyStores) {
	fuzzEngineOnce.Do(func() {
		keys, err := LoadKeys("")
		if err != nil {
			t.Fatal(err)
		}
		st := &emptyStores{}
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		r := agent.NewRetriever(st, st, st, nil, agent.RetrievalConfig{}, log)
		a := agent.NewAnswerer(r, st, st, agent.AnswerConfig{}, agent.Hooks{}, log)
		fuzzEngine = New(Services{Answerer: a, Retriever: r, Keys: keys, Metrics: NewMetrics(), Log: log}, Limits{})
		fuzzStores = st
	})
	return fuzzEngine, fuzzStores
}

// FuzzQueryBinding posts arbitrary bodies to POST /v1/query (JSON and server-sent events) and
// POST /v1/search through the real Gin engine and checks the request contract against an
// independent oracle (encoding/json into QueryRequest, as Gin's JSON binding decodes, then the
// rules of the API documentation):
//
//   - the handler never panics (the recovery middleware would answer 500) and never answers
//     anything but 200, 400 or 413;
//   - a body the oracle cannot decode, or that is not UTF-8 or escapes a lone UTF-16 surrogate
//     (which encoding/json would turn into U+FFFD), is 400 invalid_request; a decoded request with a blank
//     question, one over MaxQuestionRunes runes, a NUL, an unknown mode or top_k outside 1..20
//     (absent or null meaning 8) is 400 invalid_request; anything else is 200;
//   - every error is a JSON ErrorBody with a code, a message and the request id of the
//     X-Request-ID header; a JSON answer is a QueryResponse/SearchResponse (status index_empty
//     here, since the stores are empty); a stream ends with an "answer" event;
//   - the question that reaches retrieval is the trimmed question, and only valid requests
//     reach it.
func FuzzQueryBinding(f *testing.F) {
	for _, s := range []string{
		`{"question":"Сколько дней отпуска?"}`,
		`{"question":"  Что такое DOG-2031-042?  ","mode":"hybrid","top_k":20,"debug":true}`,
		`{"question":"q","mode":"auto","top_k":0}`,
		`{"question":"q","mode":"multi_hop","top_k":21}`,
		`{"question":"q","mode":"fast"}`,
		`{"question":"q","top_k":-1}`,
		`{"question":"q","top_k":1.5}`,
		`{"question":"a\u0000b"}`,
		`{"question":"   "}`,
		`{"question":"\ud800 lone surrogate"}`,
		"{\"question\":\"bad \xff utf-8\"}",
		`{"question":"q"} trailing`,
		`{"question":"q"}{"question":"second"}`,
		`{"QUESTION":"case","Mode":"simple"}`,
		`{"question":"q","unknown":{"a":[1,2]}}`,
		`{"question":["not","a","string"]}`,
		`{"question":"q","top_k":9999999999999999999}`,
		`null`,
		`[]`,
		`"just a string"`,
		``,
		`{`,
		"{\"question\":\"" + strings.Repeat("я", MaxQuestionRunes) + "\"}",
		"{\"question\":\"" + strings.Repeat("я", MaxQuestionRunes+1) + "\"}",
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Add([]byte(`{"question":"Кто руководит командой интеграций?"}`), uint8(1))
	f.Add([]byte(`{"question":"geolink","mode":"simple","top_k":3}`), uint8(2))
	f.Fuzz(func(t *testing.T, body []byte, endpoint uint8) {
		e, st := engineForFuzz(t)
		st.questions()
		path, stream := "/v1/query", false
		switch endpoint % 3 {
		case 1:
			stream = true
		case 2:
			path = "/v1/search"
		}
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if stream {
			req.Header.Set("Accept", "text/event-stream")
		}
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)

		want, wantErr := oracleQuery(body)
		rid := w.Header().Get("X-Request-ID")
		switch {
		case len(body) > 64<<10:
			expectError(t, w, rid, http.StatusRequestEntityTooLarge, "payload_too_large", body)
		case wantErr != "":
			expectError(t, w, rid, http.StatusBadRequest, "invalid_request", body)
		default:
			if w.Code != http.StatusOK {
				t.Fatalf("body %q (a valid request %+v) answered %d: %s", body, want, w.Code, w.Body.String())
			}
			if got := st.questions(); len(got) != 1 || got[0] != want.Question {
				t.Fatalf("body %q: retrieval saw %q, want the trimmed question %q", body, got, want.Question)
			}
			switch {
			case stream:
				if !strings.Contains(w.Body.String(), "event:answer") {
					t.Fatalf("stream without an answer event: %q", w.Body.String())
				}
			case path == "/v1/search":
				var sr SearchResponse
				if err := json.Unmarshal(w.Body.Bytes(), &sr); err != nil || sr.Chunks == nil || !sr.Route.Valid() {
					t.Fatalf("search response %q: %v", w.Body.String(), err)
				}
			default:
				var qr QueryResponse
				if err := json.Unmarshal(w.Body.Bytes(), &qr); err != nil || qr.Status != ariadne.StatusIndexEmpty || qr.RequestID != rid {
					t.Fatalf("query response %q: %v", w.Body.String(), err)
				}
				if want.Debug != (qr.Trace != nil) {
					t.Fatalf("debug %v but trace present=%v", want.Debug, qr.Trace != nil)
				}
			}
			return
		}
		if got := st.questions(); len(got) != 0 {
			t.Fatalf("body %q was rejected but reached retrieval with %q", body, got)
		}
	})
}

// oracleQuery decodes and validates a body as the API documents it, independently of
// QueryRequest.validate; it returns the request retrieval should see, or why it is invalid.
func oracleQuery(body []byte) (QueryRequest, string) {
	var r QueryRequest
	var in struct {
		Question, Mode string
		TopK           *int `json:"top_k"`
		Debug          bool
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return r, "not JSON for this endpoint: " + err.Error()
	}
	if len(bytes.TrimSpace(body[dec.InputOffset():])) > 0 {
		return r, "text after the object"
	}
	// encoding/json turns bytes that are not UTF-8 and lone surrogate escapes into U+FFFD; the
	// API refuses both instead of answering a question the caller did not send.
	if !utf8.Valid(body) {
		return r, "invalid UTF-8"
	}
	lower := strings.ToLower(string(body))
	if strings.Count(in.Question+in.Mode, "\uFFFD") > strings.Count(lower, "\ufffd")+strings.Count(lower, `\ufffd`) {
		return r, "a lone surrogate became U+FFFD"
	}
	r = QueryRequest{Question: in.Question, Mode: in.Mode, Debug: in.Debug, TopK: 8}
	if in.TopK != nil {
		r.TopK = *in.TopK // an explicit 0 is out of range, not the default
	}
	r.Question = strings.TrimSpace(r.Question)
	n := 0
	for range r.Question {
		n++
	}
	switch {
	case r.Question == "":
		return r, "blank question"
	case n > MaxQuestionRunes:
		return r, "question too long"
	case strings.IndexByte(r.Question, 0) >= 0:
		return r, "NUL"
	}
	switch r.Mode {
	case "":
		r.Mode = "auto"
	case "auto", "simple", "hybrid", "multi_hop":
	default:
		return r, "mode"
	}
	if r.TopK < 1 || r.TopK > 20 {
		return r, "top_k"
	}
	return r, ""
}

func expectError(t *testing.T, w *httptest.ResponseRecorder, rid string, status int, code string, body []byte) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("body %q answered %d, want %d: %s", body, w.Code, status, w.Body.String())
	}
	var eb ErrorBody
	if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || eb.Error.Code != code || eb.Error.Message == "" ||
		eb.Error.RequestID == "" || eb.Error.RequestID != rid {
		t.Fatalf("body %q: error response %q (X-Request-ID %q), want code %s: %v", body, w.Body.String(), rid, code, err)
	}
}
