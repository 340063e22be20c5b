package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/embedding"
)

// QueryRequest is the body of POST /v1/query and POST /v1/search.
type QueryRequest struct {
	Question string `json:"question"`
	Mode     string `json:"mode"`            // auto (default), simple, hybrid, multi_hop
	TopK     int    `json:"top_k,omitempty"` // 1..20; default 8 (a Go client's 0 is left out: the default)
	Debug    bool   `json:"debug"`           // include the trace
}

// queryBody is QueryRequest as it is decoded: top_k is a pointer, so that an explicit 0 is
// told from an absent field (the default) and refused like any value outside 1..20.
type queryBody struct {
	Question string `json:"question"`
	Mode     string `json:"mode"`
	TopK     *int   `json:"top_k"`
	Debug    bool   `json:"debug"`
}

func (b queryBody) request() QueryRequest {
	r := QueryRequest{Question: b.Question, Mode: b.Mode, Debug: b.Debug, TopK: 8}
	if b.TopK != nil {
		r.TopK = *b.TopK
	}
	return r
}

// MaxQuestionRunes bounds a question.
const MaxQuestionRunes = 2000

func (r *QueryRequest) validate() error {
	r.Question = strings.TrimSpace(r.Question)
	switch {
	case r.Question == "":
		return ariadne.Messagef(ariadne.ErrInvalid, "question is required")
	case utf8.RuneCountInString(r.Question) > MaxQuestionRunes:
		return ariadne.Messagef(ariadne.ErrInvalid, "question is longer than %d characters", MaxQuestionRunes)
	case strings.ContainsRune(r.Question, 0):
		return ariadne.Messagef(ariadne.ErrInvalid, "question contains a NUL character")
	}
	if r.Mode == "" {
		r.Mode = "auto"
	}
	if r.Mode != "auto" && !ariadne.Route(r.Mode).Valid() {
		return ariadne.Messagef(ariadne.ErrInvalid, "mode must be auto, simple, hybrid or multi_hop")
	}
	if r.TopK < 1 || r.TopK > 20 {
		return ariadne.Messagef(ariadne.ErrInvalid, "top_k must be between 1 and 20")
	}
	return nil
}

// cacheScope is the caller's query-embedding cache scope (embedding.WithCacheScope): its API
// key's name, or for an anonymous caller its client address. A cache hit is faster, so a shared
// cache would tell anyone whether another caller recently asked exactly their question; scoped,
// an entry answers only its own caller.
func cacheScope(c *gin.Context) string {
	if caller := callerOf(c); !caller.Anonymous {
		return "key:" + caller.Name
	}
	return "addr:" + c.ClientIP()
}

// bindQuery binds and validates a query body strictly — one JSON object, no unknown fields, nothing
// after it — and writes the error response itself.
func (h *handlers) bindQuery(c *gin.Context) (QueryRequest, bool) {
	var req QueryRequest
	var body queryBody
	raw, err := io.ReadAll(c.Request.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(c, http.StatusRequestEntityTooLarge, "payload_too_large", fmt.Sprintf("the body is over %d bytes", mbe.Limit))
			return req, false
		}
		writeError(c, http.StatusBadRequest, "invalid_request", "could not read the body")
		return req, false
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		writeError(c, http.StatusBadRequest, "invalid_request", "a JSON body is required")
		return req, false
	}
	if err := decodeStrict(raw, &body); err != nil {
		writeError(c, http.StatusBadRequest, "invalid_request", "the body is not valid JSON for this endpoint: "+err.Error())
		return req, false
	}
	req = body.request()
	if err := req.validate(); err != nil {
		h.writeErr(c, err)
		return req, false
	}
	return req, true
}

// decodeStrict decodes exactly one JSON object into v: invalid UTF-8 (encoding/json would
// silently replace it with U+FFFD), an escaped lone UTF-16 surrogate (the same), an unknown field
// or anything but white space after the object is an error whose text names it (it is shown to
// the caller).
func decodeStrict(raw []byte, v any) error {
	if err := checkJSONText(raw); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("syntax error at byte %d", se.Offset)
		case errors.As(err, &te) && te.Field == "":
			return fmt.Errorf("the body must be a JSON object, not %s", te.Value)
		case errors.As(err, &te):
			return fmt.Errorf("field %q must be %s", te.Field, jsonTypeName(te.Type.String()))
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return fmt.Errorf("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
		}
		return errors.New("not one JSON object")
	}
	if rest := bytes.TrimSpace(raw[dec.InputOffset():]); len(rest) > 0 {
		return errors.New("text after the JSON object")
	}
	return nil
}

// checkJSONText refuses JSON text that encoding/json would change silently: bytes that are not
// UTF-8, and \u escapes of UTF-16 surrogates that are not a high–low pair (both become U+FFFD).
func checkJSONText(raw []byte) error {
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Errorf("invalid UTF-8 at byte %d", i)
		}
		i += n
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++ // the escaped character: a backslash, a quote, or u and four hex digits
		if i >= len(raw) || raw[i] != 'u' {
			continue
		}
		r, ok := hex4(raw[i+1:])
		if !ok {
			continue // a syntax error the decoder reports
		}
		at := i - 1
		i += 4
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if low, ok := hex4(raw[min(i+3, len(raw)):]); ok && i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' && low >= 0xDC00 && low < 0xE000 {
				i += 6
				continue
			}
			return fmt.Errorf("a lone UTF-16 surrogate escape (\\u%04X) at byte %d, which is not a character", r, at)
		case r >= 0xDC00 && r < 0xE000:
			return fmt.Errorf("a lone UTF-16 surrogate escape (\\u%04X) at byte %d, which is not a character", r, at)
		}
	}
	return nil
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// jsonTypeName names a Go type as a JSON value the caller should send ("an integer", "a list of
// strings"), with its article.
func jsonTypeName(goType string) string {
	switch goType {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "int", "int64", "int32", "uint", "uint64", "uint32":
		return "an integer"
	case "float64", "float32":
		return "a number"
	case "[]string":
		return "a list of strings"
	case "*int":
		return "an integer"
	}
	if strings.HasPrefix(goType, "[]") {
		return "a list"
	}
	return "an object"
}

// QueryResponse is the answer of POST /v1/query.
type QueryResponse struct {
	Status    ariadne.Status     `json:"status"`
	Answer    string             `json:"answer"`
	Reason    string             `json:"reason,omitempty"`
	Route     ariadne.Route      `json:"route,omitempty"`
	Citations []ariadne.Citation `json:"citations"`
	Claims    []ariadne.Claim    `json:"claims"`
	Paths     []ariadne.Path     `json:"paths"`
	// Chain: on the multi_hop route, the evidence path the answer follows, one verified sentence
	// per hop in path order (its claims lead Claims); absent when no path could be claimed.
	Chain []agent.ChainHop `json:"chain,omitempty"`
	// Compared: for a comparison of named things, each one with the verified sentence about it
	// (its claims lead Claims); when one of them has no such sentence the status is not_found.
	Compared []agent.ComparedItem `json:"compared,omitempty"`
	// ComparedOutcome: the compared thing the question asks for, when code can tell it from the
	// compared sentences' dates (the earliest or the latest); absent otherwise.
	ComparedOutcome *agent.ComparisonOutcome `json:"compared_outcome,omitempty"`
	// Degraded names the stores the answer went without: ["graph"] when Neo4j was unavailable
	// and the answer comes from the chunk index's search alone (no entity linking, multi_hop
	// runs as hybrid, no chain). Absent when none.
	Degraded  []string           `json:"degraded,omitempty"`
	Trace     *agent.AnswerTrace `json:"trace,omitempty"`
	RequestID string             `json:"request_id"`
}

func (h *handlers) query(c *gin.Context) {
	req, ok := h.bindQuery(c)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), h.lim.QueryTimeout)
	defer cancel()
	ctx = embedding.WithCacheScope(ctx, cacheScope(c))
	areq := agent.Request{Question: req.Question, Groups: callerOf(c).Groups, Mode: req.Mode, TopK: req.TopK}
	if strings.Contains(c.GetHeader("Accept"), "text/event-stream") {
		h.queryStream(ctx, c, req, areq)
		return
	}
	start := time.Now()
	ans, err := h.svc.Answerer.Answer(ctx, areq, nil)
	if (err != nil || ans.Status == ariadne.StatusUnavailable) && timedOut(ctx, c) {
		writeError(c, http.StatusGatewayTimeout, "timeout", timeoutMessage(h.lim.QueryTimeout))
		return
	}
	if err != nil {
		h.writeErr(c, err)
		return
	}
	h.observe(ans, time.Since(start))
	code := http.StatusOK
	if ans.Status == ariadne.StatusUnavailable {
		code = http.StatusServiceUnavailable
		c.Header("Retry-After", unavailableRetryAfter)
	}
	c.JSON(code, h.response(c, ans, req.Debug))
}

func (h *handlers) response(c *gin.Context, ans agent.Answer, debug bool) QueryResponse {
	resp := QueryResponse{Status: ans.Status, Answer: ans.Answer, Reason: ans.Reason, Route: ans.Route,
		Citations: ans.Citations, Claims: ans.Claims, Paths: ans.Paths, Chain: ans.Chain, Compared: ans.Compared, ComparedOutcome: ans.ComparedOutcome, Degraded: ans.Degraded,
		RequestID: c.GetString(requestIDKey)}
	if ans.Status == ariadne.StatusUnavailable {
		resp.Reason = unavailableText(ans.Reason)
	}
	if debug {
		resp.Trace = ans.Trace
	}
	return resp
}

func (h *handlers) observe(ans agent.Answer, d time.Duration) {
	if h.svc.Metrics == nil {
		return
	}
	route := string(ans.Route)
	if route == "" {
		route = "none"
	}
	h.svc.Metrics.queries.WithLabelValues(route, string(ans.Status)).Inc()
	h.svc.Metrics.queryLatency.WithLabelValues(route, string(ans.Status)).Observe(d.Seconds())
}

// queryStream answers with server-sent events: "route", "retrieval" and "verification" progress
// events, then one "answer" event with the verified response (the same body as without streaming).
// No text is sent before it has been verified.
func (h *handlers) queryStream(ctx context.Context, c *gin.Context, req QueryRequest, areq agent.Request) {
	c.Header("Content-Type", "text/event-stream")
	c.Header("Cache-Control", "no-cache")
	c.Header("X-Accel-Buffering", "no")
	c.Status(http.StatusOK)
	events := make(chan agent.Event, 16)
	type result struct {
		ans agent.Answer
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		ans, err := h.svc.Answerer.Answer(ctx, areq, func(e agent.Event) {
			select {
			case events <- e:
			case <-ctx.Done():
			}
		})
		done <- result{ans, err}
	}()
	for {
		select {
		case e := <-events:
			c.SSEvent(e.Name, e.Data)
			c.Writer.Flush()
		case r := <-done:
			for len(events) > 0 {
				e := <-events
				c.SSEvent(e.Name, e.Data)
			}
			if (r.err != nil || r.ans.Status == ariadne.StatusUnavailable) && timedOut(ctx, c) {
				var b ErrorBody
				b.Error.Code, b.Error.Message, b.Error.RequestID = "timeout", timeoutMessage(h.lim.QueryTimeout), c.GetString(requestIDKey)
				c.SSEvent("error", b)
			} else if r.err != nil {
				var b ErrorBody
				_, b.Error.Code, b.Error.Message = h.errorClass(c, r.err)
				b.Error.RequestID = c.GetString(requestIDKey)
				c.SSEvent("error", b)
			} else {
				h.observe(r.ans, time.Since(start))
				c.SSEvent("answer", h.response(c, r.ans, req.Debug))
			}
			c.Writer.Flush()
			return
		}
	}
}

// SearchResponse is the answer of POST /v1/search: retrieval only.
type SearchResponse struct {
	Route  ariadne.Route  `json:"route"`
	Chunks []SearchHit    `json:"chunks"`
	Paths  []ariadne.Path `json:"paths"`
	// Degraded: as in QueryResponse.
	Degraded  []string     `json:"degraded,omitempty"`
	Trace     *agent.Trace `json:"trace,omitempty"`
	RequestID string       `json:"request_id"`
}

// SearchHit is one retrieved chunk.
type SearchHit struct {
	ChunkID string   `json:"chunk_id"`
	DocID   string   `json:"doc_id"`
	Title   string   `json:"title"`
	Heading string   `json:"heading"`
	Text    string   `json:"text"`
	Score   float64  `json:"score"`
	Sources []string `json:"sources"`
}

func (h *handlers) search(c *gin.Context) {
	req, ok := h.bindQuery(c)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), h.lim.QueryTimeout)
	defer cancel()
	ctx = embedding.WithCacheScope(ctx, cacheScope(c))
	res, err := h.svc.Retriever.Retrieve(ctx, agent.Request{Question: req.Question, Groups: callerOf(c).Groups, Mode: req.Mode, TopK: req.TopK})
	if err != nil && timedOut(ctx, c) {
		writeError(c, http.StatusGatewayTimeout, "timeout", timeoutMessage(h.lim.QueryTimeout))
		return
	}
	if err != nil {
		h.writeErr(c, err)
		return
	}
	resp := SearchResponse{Route: res.Route, Chunks: []SearchHit{}, Paths: res.Paths, RequestID: c.GetString(requestIDKey)}
	if res.Trace != nil {
		resp.Degraded = res.Trace.Degraded
	}
	if resp.Paths == nil {
		resp.Paths = []ariadne.Path{}
	}
	for _, ch := range res.Chunks {
		resp.Chunks = append(resp.Chunks, SearchHit{ChunkID: ch.ID, DocID: ch.DocID, Title: ch.Title, Heading: ch.HeadingPath(),
			Text: ch.Text, Score: ch.Score, Sources: ch.Sources})
	}
	if req.Debug {
		resp.Trace = res.Trace
	}
	c.JSON(http.StatusOK, resp)
}
