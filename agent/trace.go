package agent

import (
	"strings"
	"sync"
	"time"

	"github.com/ariadne-graphrag/ariadne/retry"
)

// Step records one retrieval attempt in the trace.
type Step struct {
	Strategy Strategy `json:"strategy"`
	Hits     int      `json:"hits"`
	TopScore float64  `json:"top_score"`
	Coverage float64  `json:"coverage"`
	Weak     bool     `json:"weak"`
	Note     string   `json:"note,omitempty"`
	// ChunkIDs are the first TraceChunkIDs chunks the step retrieved, best first (all readable by
	// the caller: every search and graph read takes the caller's groups), so a reader can tell
	// whether the chunk that answers was retrieved and how high (README trial, stop 58).
	ChunkIDs   []string `json:"chunk_ids,omitempty"`
	DurationMS float64  `json:"duration_ms"`
}

// TraceChunkIDs is how many retrieved chunk ids a trace step lists.
const TraceChunkIDs = 10

// RetryEvent records a retried call in the trace.
type RetryEvent struct {
	Operation string  `json:"operation"`
	Attempt   int     `json:"attempt"`
	WaitMS    float64 `json:"wait_ms"`
	Error     string  `json:"error"` // retry.Describe: the kind of fault, no addresses
}

// Trace explains a retrieval.
type Trace struct {
	Router  Decision           `json:"router"`
	Linked  []Linked           `json:"linked_entities"`
	Steps   []Step             `json:"steps"`
	Retries []RetryEvent       `json:"retries"`
	Timings map[string]float64 `json:"timings_ms"`
	// Degraded names the stores the question went without (DegradedGraph); empty when none.
	Degraded []string `json:"degraded,omitempty"`
	mu       sync.Mutex
}

// DegradedGraph marks a question answered without the graph store: Neo4j was unavailable, so
// no entity linking, no comparison pages, no multi_hop route (it runs as hybrid) and no chain —
// the chunk index's search alone, which filters by the caller's groups as always.
const DegradedGraph = "graph"

func (t *Trace) addRetry(op string, a retry.Attempt) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.Retries = append(t.Retries, RetryEvent{Operation: op, Attempt: a.Number, WaitMS: ms(a.Wait), Error: retry.Describe(a.Err)})
}

func (t *Trace) time(name string, start time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.Timings == nil {
		t.Timings = map[string]float64{}
	}
	t.Timings[name] += ms(time.Since(start))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// note appends a remark to the last step's note (the trace explains; it decides nothing).
func (t *Trace) note(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.Steps); n > 0 {
		t.Steps[n-1].Note = strings.TrimPrefix(t.Steps[n-1].Note+"; "+s, "; ")
	}
}

// reassess updates the last step's coverage and weakness to ev's (withLinkedDocuments: the
// strategy's hits fused with the linked entities' pages).
func (t *Trace) reassess(ev Evidence) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.Steps); n > 0 {
		t.Steps[n-1].Coverage, t.Steps[n-1].Weak = ev.Coverage, ev.Weak
	}
}

// newTrace returns an empty trace whose lists encode as [] rather than null.
func newTrace() *Trace {
	return &Trace{Linked: []Linked{}, Steps: []Step{}, Retries: []RetryEvent{}, Timings: map[string]float64{}}
}
