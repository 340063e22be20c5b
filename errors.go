package ariadne

import (
	"errors"
	"fmt"
)

// Sentinel errors. Adapters wrap driver errors into these at their boundary (with %w), so callers
// match with errors.Is and the HTTP layer maps each to one status.
var (
	// ErrNotFound means the requested document, entity or chunk does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid means the caller's input (a question, a document, a parameter) is malformed.
	ErrInvalid = errors.New("invalid input")
	// ErrUnavailable means a store or model could not be reached within the retry budget.
	ErrUnavailable = errors.New("unavailable")
	// ErrNoEvidence means retrieval found nothing the caller may read that answers the question.
	ErrNoEvidence = errors.New("no evidence")
	// ErrIndexEmpty means nothing has been ingested yet (distinct from ErrNoEvidence).
	ErrIndexEmpty = errors.New("index is empty")
	// ErrMismatch means stored data was produced by an incompatible configuration, e.g. vectors of
	// another embedder or dimension; the remedy is to re-index.
	ErrMismatch = errors.New("configuration mismatch")
	// ErrConflict means a write collides with stored data it may not replace, e.g. a document id
	// that another source holds.
	ErrConflict = errors.New("conflict")
)

// ErrUnauthorized means a store or model rejected Ariadne's own credentials (the Neo4j password,
// a Weaviate or model API key): a configuration fault of the service, not of its caller.
var ErrUnauthorized = errors.New("credentials rejected")

// Message is an error whose text is written for the person who made the request ("top_k must be
// between 1 and 20"). Kind is the sentinel it belongs to (ErrInvalid, ErrNotFound, …). The HTTP
// layer shows Text to callers; any other error's text stays in the logs.
type Message struct {
	Text string
	Kind error
}

func (m *Message) Error() string { return m.Text }

// Unwrap returns Kind, so errors.Is(err, ErrInvalid) holds for a Message of that kind.
func (m *Message) Unwrap() error { return m.Kind }

// Messagef returns a Message of kind with a formatted text.
func Messagef(kind error, format string, args ...any) error {
	return &Message{Text: fmt.Sprintf(format, args...), Kind: kind}
}
