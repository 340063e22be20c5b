// Package httpapi is Ariadne's HTTP API, the only package that imports Gin: query and search,
// entities and their neighbours, document ingestion and removal, health, readiness, Prometheus
// metrics and the OpenAPI document.
//
// Handlers are thin: bind with ShouldBind*, validate, call a service, render. Every error is one
// JSON shape, {"error":{"code","message","request_id"}}, and internal details never leak. The
// caller's API key maps to permission groups; without a key a caller has the public groups only.
package httpapi

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/web"
)

//go:embed openapi.yaml
var openAPISpec []byte

// OpenAPISpec returns the OpenAPI 3 document served at /openapi.yaml.
func OpenAPISpec() []byte { return openAPISpec }

// Entities reads the entity graph (graph.Store). Every method takes the caller's permission
// groups and returns only what those groups may see.
type Entities interface {
	EntityCandidates(ctx context.Context, text string, groups []string, limit int) ([]ariadne.EntityCandidate, error)
	Entity(ctx context.Context, key string, groups []string) (ariadne.Entity, error)
	Edges(ctx context.Context, keys, groups, relTypes []string, limit int) ([]ariadne.Edge, error)
}

// Library reads stored documents and chunks (graph.Store), only those the groups may read.
type Library interface {
	Documents(ctx context.Context, groups []string, limit, offset int) ([]ariadne.DocumentInfo, int, error)
	Document(ctx context.Context, id string, groups []string) (ariadne.DocumentInfo, []ariadne.Chunk, error)
	Chunks(ctx context.Context, ids, groups []string) ([]ariadne.Chunk, error)
	// DocumentACL is for write checks only: who may read a stored document, if it exists.
	DocumentACL(ctx context.Context, id string) (acl []string, found bool, err error)
	// Sources lists the sources with documents the groups may read, with counts over those only.
	Sources(ctx context.Context, groups []string) ([]ariadne.SourceInfo, error)
}

// ChunkIndex reads chunks by id from the chunk index, as the caller (groups) may read them.
type ChunkIndex interface {
	Chunks(ctx context.Context, ids, groups []string) ([]ariadne.Chunk, error)
}

// Documents writes documents through the ingestion pipeline (ingest.Pipeline).
type Documents interface {
	Upsert(ctx context.Context, docs []ariadne.Document, opts ingest.Options) (ingest.Summary, error)
	Delete(ctx context.Context, ids []string, opts ingest.Options) (ingest.Summary, error)
}

// Check is one readiness check.
type Check struct {
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
	// Optional marks a part only some requests need (the NER sidecar: document writes): when it
	// fails the service is "degraded" (200), not "not_ready" (503), so queries keep their traffic.
	Optional bool `json:"optional,omitempty"`
}

// Readiness runs the readiness checks (both stores, the embedder, the index).
type Readiness func(ctx context.Context) map[string]Check

// Answerer answers a question end to end for a caller (agent.Answerer).
type Answerer interface {
	Answer(ctx context.Context, req agent.Request, progress func(agent.Event)) (agent.Answer, error)
}

// Retriever retrieves evidence for a caller without answering (agent.Retriever).
type Retriever interface {
	Retrieve(ctx context.Context, req agent.Request) (agent.Result, error)
}

// Services are what the handlers call; cmd/api wires the concrete stores and agents.
type Services struct {
	Answerer  Answerer
	Retriever Retriever
	Entities  Entities
	Library   Library
	// ChunkIndex, when set, reads a chunk from the chunk index (vector.Store.Chunks) when the
	// Library's graph store is unavailable, so that the citations of an answer given without the
	// graph (agent.DegradedGraph) can still be opened. Optional.
	ChunkIndex ChunkIndex
	Documents  Documents
	Keys       *Keys
	Ready      Readiness
	Metrics    *Metrics
	Log        *slog.Logger
	UI         web.Config // the analyst page at /ui/ (package web)
	// Places, when set, lets GET /v1/entities find a place by its names in the gazetteer
	// (agent.PlaceCandidates): "Vienna" lists the entity the knowledge base writes «Вена».
	// Optional.
	Places *lexicon.Gazetteer
}

// Limits bound requests.
type Limits struct {
	QueryBody    int64         // bytes; default 64 KiB
	DocumentBody int64         // bytes; default 8 MiB
	QueryTimeout time.Duration // per /v1/query or /v1/search; default 90s
	// WriteTimeout bounds one POST or DELETE /v1/documents (a large document is embedded chunk by
	// chunk: minutes); past it the write stops and is answered 504 timeout. The response's write
	// deadline is moved past it, so the server's own WriteTimeout (sized for queries) does not cut
	// the answer of a long write (outside tester: a 1 MB write succeeded after 8 minutes and the
	// caller got an empty reply). Default 30 min.
	WriteTimeout time.Duration

	// Load shedding (limits.go): requests in flight per route class, the longest a request
	// waits for a slot before a 503 overloaded, and each caller's token bucket (429 rate_limited).
	// Zero concurrency means the default, a negative one switches that limit off; a zero rate
	// switches rate limiting off (cmd/api turns it on: 20/s per key by default).
	QueryConcurrency int           // /v1/query and /v1/search; default 16
	WriteConcurrency int           // POST/DELETE /v1/documents; default 4
	ReadConcurrency  int           // every other /v1 route; default 64
	QueueWait        time.Duration // default 100ms
	RatePerKey       float64       // requests per second per API key (anonymous: per client address); 0: off
	RateBurst        int           // bucket size; default 2×RatePerKey
	// FailedAuthPerMinute bounds failed authentications per client address (a bucket of that
	// size, refilled at that rate); past it, requests with a key from the address are 429 until
	// a token is back. 0 means the default, 10; negative switches it off.
	FailedAuthPerMinute int
	// TrustedProxies are the addresses or CIDR ranges of reverse proxies whose X-Forwarded-For
	// and X-Real-IP headers give the client address; none by default, so the client address
	// is the connection's peer and a client cannot pick it. An invalid entry is logged and
	// none is trusted (cmd/api refuses to start with one: CheckTrustedProxies).
	TrustedProxies []string
}

// CheckTrustedProxies reports an entry of Limits.TrustedProxies that is neither an IP address
// nor a CIDR range.
func CheckTrustedProxies(proxies []string) error {
	for _, p := range proxies {
		if _, _, err := net.ParseCIDR(p); err != nil && net.ParseIP(p) == nil {
			return fmt.Errorf("trusted proxy %q: want an IP address or a CIDR range: %w", p, ariadne.ErrInvalid)
		}
	}
	return nil
}

func (l *Limits) defaults() {
	if l.QueryConcurrency == 0 {
		l.QueryConcurrency = 16
	}
	if l.WriteConcurrency == 0 {
		l.WriteConcurrency = 4
	}
	if l.ReadConcurrency == 0 {
		l.ReadConcurrency = 64
	}
	if l.QueueWait <= 0 {
		l.QueueWait = 100 * time.Millisecond
	}
	if l.RateBurst <= 0 {
		l.RateBurst = max(1, int(2*l.RatePerKey))
	}
	if l.FailedAuthPerMinute == 0 {
		l.FailedAuthPerMinute = 10
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = 30 * time.Minute
	}
}

// limit returns the concurrency limit middleware for n slots (a no-op when n < 0).
func (l Limits) limit(n int, m *Metrics) gin.HandlerFunc {
	if n < 0 {
		return func(c *gin.Context) { c.Next() }
	}
	return concurrencyLimit(n, l.QueueWait, m)
}

// New builds the Gin engine with every route, in one place.
func New(svc Services, lim Limits) *gin.Engine {
	if lim.QueryBody <= 0 {
		lim.QueryBody = 64 << 10
	}
	if lim.DocumentBody <= 0 {
		lim.DocumentBody = 8 << 20
	}
	if lim.QueryTimeout <= 0 {
		lim.QueryTimeout = 90 * time.Second
	}
	if svc.Log == nil {
		svc.Log = slog.Default()
	}
	lim.defaults()
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.UseRawPath = true // entity keys and document ids contain '/', sent as %2F
	e.UnescapePathValues = true
	e.HandleMethodNotAllowed = true
	// No HTML redirects: /v1/documents/ is a JSON 404 that says what was meant (noRoute); /ui
	// is redirected there explicitly.
	e.RedirectTrailingSlash = false
	if err := CheckTrustedProxies(lim.TrustedProxies); err != nil {
		svc.Log.Error("no reverse proxy is trusted", "err", err)
		lim.TrustedProxies = nil
	}
	_ = e.SetTrustedProxies(lim.TrustedProxies) // checked above; nil trusts none (gin's default trusts every peer)
	h := &handlers{svc: svc, lim: lim}
	if lim.FailedAuthPerMinute > 0 {
		h.authFailures = newKeyLimiter(float64(lim.FailedAuthPerMinute)/60, lim.FailedAuthPerMinute)
	}
	e.Use(requestID(), accessLog(svc.Log, svc.Metrics), recovery(svc.Log))
	e.NoRoute(noRoute)
	e.NoMethod(func(c *gin.Context) {
		writeError(c, http.StatusMethodNotAllowed, "method_not_allowed", "method not allowed on this endpoint")
	})

	e.GET("/healthz", h.healthz)
	e.HEAD("/healthz", h.healthz)
	e.GET("/readyz", h.readyz)
	e.HEAD("/readyz", h.readyz)
	metrics := []gin.HandlerFunc{gin.WrapH(svc.Metrics.Handler())}
	if svc.Keys.Configured() {
		// With keys, /metrics needs one that may read it: request counts by route tell when
		// documents are written, restricted ones too (security review).
		metrics = append([]gin.HandlerFunc{h.authenticate, h.requirePermission(func(c Caller) bool { return c.Metrics },
			"reading /metrics needs an API key with metrics: true in the keys file",
			"this API key may not read /metrics (give it metrics: true in the keys file)")}, metrics...)
	}
	metrics = append([]gin.HandlerFunc{noStore()}, metrics...)
	e.GET("/metrics", metrics...)
	e.HEAD("/metrics", metrics...)
	spec := func(c *gin.Context) { c.Data(http.StatusOK, "application/yaml", openAPISpec) }
	e.GET("/openapi.yaml", spec)
	e.HEAD("/openapi.yaml", spec)
	e.GET("/", func(c *gin.Context) { c.Redirect(http.StatusFound, web.Prefix) })
	e.HEAD("/", func(c *gin.Context) { c.Redirect(http.StatusFound, web.Prefix) })
	ui := jsonNotFound(web.Handler(svc.UI))
	e.GET(web.Prefix+"*path", ui)
	e.HEAD(web.Prefix+"*path", ui) // link checkers and uptime probes ask HEAD (it was 405: outside tester)

	v1 := e.Group("/v1", noStore(), h.authenticate)
	if lim.RatePerKey > 0 {
		v1.Use(rateLimit(newKeyLimiter(lim.RatePerKey, lim.RateBurst), svc.Metrics))
	}
	queries := lim.limit(lim.QueryConcurrency, svc.Metrics) // one semaphore shared by query and search
	writes := lim.limit(lim.WriteConcurrency, svc.Metrics)
	reads := lim.limit(lim.ReadConcurrency, svc.Metrics)
	v1.POST("/query", queries, limitBody(lim.QueryBody), h.query)
	v1.POST("/search", queries, limitBody(lim.QueryBody), h.search)
	// The reads answer HEAD as well (uptime probes and link checkers ask it; it was 405): the same
	// handlers, so the same authentication, ACL and status, and net/http drops the body.
	for path, read := range map[string]gin.HandlerFunc{"/entities": h.entities, "/entities/:key/neighbors": h.neighbors,
		"/documents": h.listDocuments, "/documents/:id": h.getDocument, "/chunks/:id": h.getChunk, "/sources": h.listSources} {
		v1.GET(path, reads, read)
		v1.HEAD(path, reads, read)
	}
	requireWrite := h.requirePermission(func(c Caller) bool { return c.Write },
		"writing documents needs an API key that may write", "this API key may not write documents")
	v1.POST("/documents", writes, limitBody(lim.DocumentBody), requireWrite, h.putDocument)
	v1.DELETE("/documents/:id", writes, requireWrite, h.deleteDocument)
	return e
}

type handlers struct {
	svc          Services
	lim          Limits
	authFailures *keyLimiter // failed authentications by client address; nil: not limited
}

// ErrorBody is the one error shape of the API.
type ErrorBody struct {
	Error struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		RequestID string `json:"request_id"`
	} `json:"error"`
}

func writeError(c *gin.Context, status int, code, msg string) {
	var b ErrorBody
	b.Error.Code, b.Error.Message, b.Error.RequestID = code, msg, c.GetString(requestIDKey)
	c.AbortWithStatusJSON(status, b)
}

// writeErr writes an error as its class's status, code and message (errorClass).
func (h *handlers) writeErr(c *gin.Context, err error) {
	status, code, msg := h.errorClass(c, err)
	if code == "unavailable" {
		c.Header("Retry-After", unavailableRetryAfter)
	}
	writeError(c, status, code, msg)
}

// unavailableRetryAfter is the Retry-After of a 503 unavailable, in seconds: the graph store's read
// breaker stays open this long after Neo4j was found unreachable (graph.Config.ReadOpen), and a
// restarted store is usually back within it.
const unavailableRetryAfter = "10"

// errorClass maps an error to its status once: ErrInvalid → 400, ErrNotFound → 404, ErrConflict →
// 409 (code document_conflict), ErrUnavailable → 503, ErrUnauthorized → 503 (a store rejected
// Ariadne's own credentials), ErrMismatch → 503 (the index needs re-indexing), a deadline → 503
// (a store's or model's own timeout; a request that ran out of its query budget is answered 504
// timeout before it gets here, see timedOut), anything else → 500. The message is the error's
// ariadne.Message when it has one (written for the caller); otherwise a fixed sentence per
// class, and the detail goes to the log.
func (h *handlers) errorClass(c *gin.Context, err error) (status int, code, msg string) {
	var busy *ingest.BusyError
	switch {
	case errors.Is(err, ariadne.ErrInvalid):
		return http.StatusBadRequest, "invalid_request", publicMessage(err, "the request is invalid")
	case errors.Is(err, ariadne.ErrConflict):
		return http.StatusConflict, "document_conflict", publicMessage(err, "the write conflicts with stored data")
	case errors.Is(err, ariadne.ErrNotFound):
		return http.StatusNotFound, "not_found", publicMessage(err, "not found")
	case errors.As(err, &busy):
		// Retry-After is the wait again: the running write may take minutes (a large document),
		// and a client that came back after 5 s only queued for another full wait (README trial).
		c.Header("Retry-After", strconv.Itoa(max(5, int(busy.Wait.Seconds()))))
		return http.StatusServiceUnavailable, "busy", fmt.Sprintf("another document write was still running after %s (a large document can take minutes); nothing was written: retry later", busy.Wait)
	case errors.Is(err, ariadne.ErrUnauthorized):
		h.svc.Log.Error("a store rejected Ariadne's credentials", "request_id", c.GetString(requestIDKey), "err", err)
		return http.StatusServiceUnavailable, "unavailable", unavailableMessage
	case errors.Is(err, ariadne.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, "unavailable", unavailableText(err.Error())
	case errors.Is(err, ariadne.ErrMismatch):
		return http.StatusServiceUnavailable, "index_mismatch", "the index was built with another embedder; it must be re-indexed"
	default:
		h.svc.Log.Error("request failed", "request_id", c.GetString(requestIDKey), "err", err)
		return http.StatusInternalServerError, "internal", "internal error"
	}
}

const unavailableMessage = "a store or model is unavailable; retry later"

// components are the error-chain prefixes of Ariadne's packages (each wraps its failures as
// "<package>: …") and the part each names, for unavailableText.
var components = []struct{ prefix, name string }{
	{"graph: ", "the graph store (Neo4j)"},
	{"Neo4j (graph store)", "the graph store (Neo4j)"},
	{"vector: ", "the vector store (Weaviate)"},
	{"embedding: ", "the embedder"},
	{"the embedder (", "the embedder"},
	{"ner: ", "the NER sidecar"},
	{"llm: ", "the chat model"},
	{"the answer model", "the chat model"},
}

// unavailableText is unavailableMessage naming the part that failed, read from the error
// chain's innermost package prefix (an operator could not tell which server to look at: outside
// tester). Only the part's name is shown, never the chain (addresses, queries).
func unavailableText(chain string) string {
	name, at := "", -1
	for _, c := range components {
		if i := strings.LastIndex(chain, c.prefix); i > at {
			name, at = c.name, i
		}
	}
	if name == "" {
		return unavailableMessage
	}
	return name + " is unavailable; retry later"
}

// publicMessage returns the text of the error's ariadne.Message, written for callers, or
// fallback: never the text of an internal error chain.
func publicMessage(err error, fallback string) string {
	var m *ariadne.Message
	if errors.As(err, &m) {
		return m.Text
	}
	return fallback
}

func (h *handlers) healthz(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) }

func (h *handlers) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 5*time.Second)
	defer cancel()
	checks := h.svc.Ready(ctx)
	status, code := "ready", http.StatusOK
	for _, ch := range checks {
		if !ch.OK && ch.Optional && code == http.StatusOK {
			status = "degraded"
		}
	}
	for _, ch := range checks {
		if !ch.OK && !ch.Optional {
			status, code = "not_ready", http.StatusServiceUnavailable
		}
	}
	if !fromLoopback(c.Request.RemoteAddr) {
		// The details name internal addresses and error chains: for an operator on the host, not
		// for whoever reaches the port (a probe needs only the status code).
		for name, ch := range checks {
			ch.Detail = ""
			checks[name] = ch
		}
	}
	if code == http.StatusServiceUnavailable {
		c.Header("Retry-After", unavailableRetryAfter)
	}
	c.JSON(code, gin.H{"status": status, "checks": checks})
}

// fromLoopback reports whether a connection's remote address (net/http's RemoteAddr, never a
// forwarded header) is a loopback address.
func fromLoopback(remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
