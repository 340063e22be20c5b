package httpapi

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the API's Prometheus metrics, in a registry of their own.
type Metrics struct {
	reg           *prometheus.Registry
	requests      *prometheus.CounterVec   // method, route, code
	latency       *prometheus.HistogramVec // method, route (seconds)
	queries       *prometheus.CounterVec   // route (simple|hybrid|multi_hop), status
	queryLatency  *prometheus.HistogramVec // route, status (seconds)
	retries       *prometheus.CounterVec   // operation
	verifyFailure *prometheus.CounterVec   // level
	modelTokens   *prometheus.CounterVec   // model, kind (prompt|completion)
	modelCalls    *prometheus.CounterVec   // model
	queryEmbed    *prometheus.CounterVec   // result (hit|miss)
	shedTotal     *prometheus.CounterVec   // route, reason (overloaded|rate_limited|auth_failures)
}

// NewMetrics registers the metrics (and Go and process collectors) in a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ariadne_http_requests_total",
			Help: "HTTP requests by method, route and status code."}, []string{"method", "route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "ariadne_http_request_duration_seconds",
			Help: "HTTP request latency by method and route.", Buckets: prometheus.ExponentialBuckets(0.005, 2, 14)},
			[]string{"method", "route"}),
		queries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ariadne_queries_total",
			Help: "Questions answered, by retrieval route and answer status."}, []string{"route", "status"}),
		queryLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "ariadne_query_duration_seconds",
			Help: "End-to-end question latency by retrieval route and status.", Buckets: prometheus.ExponentialBuckets(0.005, 2, 14)},
			[]string{"route", "status"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ariadne_retries_total",
			Help: "Retried calls to stores and models, by operation."}, []string{"operation"}),
		verifyFailure: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ariadne_verification_failures_total",
			Help: "Citations or outputs rejected by verification, by level (0: invalid output, 1: id, 2: quote, 3: support)."},
			[]string{"level"}),
		modelTokens: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ariadne_model_tokens_total",
			Help: "Tokens of chat model calls as the server counted them, by model and kind (prompt, completion)."},
			[]string{"model", "kind"}),
		modelCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ariadne_model_calls_total",
			Help: "Answered chat model calls, by model."}, []string{"model"}),
		queryEmbed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ariadne_query_embedding_cache_total",
			Help: "Query embedding cache lookups, by result (hit, miss)."}, []string{"result"}),
		shedTotal: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ariadne_http_shed_total",
			Help: "Requests refused before any work, by route and reason (overloaded: 503 at the route's concurrency limit; rate_limited: 429 over the caller's rate; auth_failures: 429, the client address failed authentication too often)."},
			[]string{"route", "reason"}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.queries, m.queryLatency, m.retries, m.verifyFailure, m.modelTokens, m.modelCalls, m.queryEmbed, m.shedTotal,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// VerificationFailure counts one rejected citation or output (agent.Hooks).
func (m *Metrics) VerificationFailure(level int) {
	m.verifyFailure.WithLabelValues(strconv.Itoa(level)).Inc()
}

// Retry counts one retried call (agent.Hooks).
func (m *Metrics) Retry(operation string) { m.retries.WithLabelValues(operation).Inc() }

// ModelUsage counts one answered chat model call and its tokens (llm.Config.OnUsage).
func (m *Metrics) ModelUsage(model string, prompt, completion int) {
	m.modelCalls.WithLabelValues(model).Inc()
	m.modelTokens.WithLabelValues(model, "prompt").Add(float64(prompt))
	m.modelTokens.WithLabelValues(model, "completion").Add(float64(completion))
}

// QueryEmbeddingLookup counts one query embedding cache lookup (embedding.QueryCacheConfig.OnLookup).
func (m *Metrics) QueryEmbeddingLookup(hit bool) {
	result := "miss"
	if hit {
		result = "hit"
	}
	m.queryEmbed.WithLabelValues(result).Inc()
}

// shed counts one request refused by load shedding (nil Metrics count nothing).
func (m *Metrics) shed(route, reason string) {
	if m != nil {
		m.shedTotal.WithLabelValues(route, reason).Inc()
	}
}
