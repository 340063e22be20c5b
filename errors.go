package ariadne

import "errors"

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
)
