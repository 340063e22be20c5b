package ariadne

// NotFoundMarker is the fixed refusal a generator must output, alone, when the fragments do not
// answer the question.
const NotFoundMarker = "NOT_FOUND"

// Route is the retrieval strategy chosen for a question.
type Route string

// Routes, in escalation order: simple → hybrid → multi_hop.
const (
	RouteSimple   Route = "simple"
	RouteHybrid   Route = "hybrid"
	RouteMultiHop Route = "multi_hop"
)

// Valid reports whether r is one of the three routes.
func (r Route) Valid() bool {
	return r == RouteSimple || r == RouteHybrid || r == RouteMultiHop
}

// Status is the outcome of a query. Each value means something different to a caller.
type Status string

const (
	// StatusAnswered: a verified answer with at least one verified citation.
	StatusAnswered Status = "answered"
	// StatusNotFound: the documents the caller may read do not say.
	StatusNotFound Status = "not_found"
	// StatusRefused: generated answers failed verification after the allowed retries.
	StatusRefused Status = "refused"
	// StatusIndexEmpty: nothing has been ingested.
	StatusIndexEmpty Status = "index_empty"
	// StatusUnavailable: a store (or the model) stayed down past the retry window.
	StatusUnavailable Status = "unavailable"
)

// ScoredChunk is a retrieved chunk with its score under the retriever that produced it and the
// names of the retrievers that found it ("bm25", "vector", "hybrid", "graph").
type ScoredChunk struct {
	Chunk
	Score   float64  // retriever-specific; for fused lists an RRF sum
	Sources []string // retrievers that returned this chunk
	// Vector is the chunk's stored embedding, only when the search asked (SearchQuery.WithVectors).
	Vector []float32 `json:"-"`
}

// Citation ties one claim of an answer to a chunk and a verbatim quote.
// Start and End are byte offsets of the quote inside Chunk.Text, set by verification.
type Citation struct {
	ChunkID  string `json:"chunk_id"`
	DocID    string `json:"doc_id"`
	Title    string `json:"title"`
	Quote    string `json:"quote"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Verified bool   `json:"verified"`
}

// Claim is one sentence of an answer with the citations that support it.
type Claim struct {
	Text      string     `json:"text"`
	Citations []Citation `json:"citations"`
}
