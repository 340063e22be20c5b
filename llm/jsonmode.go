package llm

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// JSONMode is how a request asks the server for JSON that conforms to a Schema. Servers differ:
// OpenAI, vLLM and llama.cpp's own server take `response_format: {"type":"json_schema",…}`;
// llama-cpp-python's server rejects that and takes `{"type":"json_object","schema":…}`; llama.cpp
// servers also take a GBNF `grammar`; Ollama takes `format` (a schema, or "json").
type JSONMode string

const (
	// JSONAuto tries the forms in order (OpenAI client: json_schema, json_object, grammar; Ollama
	// client: format with the schema, then format "json") and remembers the first one the server
	// accepts.
	JSONAuto JSONMode = "auto"
	// JSONModeSchema sends response_format {"type":"json_schema","json_schema":{name,schema,strict}};
	// for Ollama, format is the schema.
	JSONModeSchema JSONMode = "json_schema"
	// JSONModeObject sends response_format {"type":"json_object","schema":…} (llama-cpp-python
	// enforces the schema; other servers may only enforce JSON); for Ollama, format "json".
	JSONModeObject JSONMode = "json_object"
	// JSONModeGrammar sends a GBNF grammar compiled from the schema (llama.cpp and
	// llama-cpp-python servers); not available for Ollama.
	JSONModeGrammar JSONMode = "grammar"
	// JSONModeNone sends no constraint: only the prompt asks for JSON.
	JSONModeNone JSONMode = "none"
)

// ParseJSONMode checks a mode name; "" is auto.
func ParseJSONMode(s string) (JSONMode, error) {
	switch m := JSONMode(strings.TrimSpace(s)); m {
	case "":
		return JSONAuto, nil
	case JSONAuto, JSONModeSchema, JSONModeObject, JSONModeGrammar, JSONModeNone:
		return m, nil
	}
	return "", fmt.Errorf("llm: unknown JSON mode %q (auto, json_schema, json_object, grammar, none): %w", s, ariadne.ErrInvalid)
}

// RejectedError is a request the server refused as invalid: HTTP 400, 404, 415 or 422, or a 500
// whose body is a request-validation error about response_format or the schema (what
// llama-cpp-python answers to a json_schema response_format). It is never retried: it wraps
// ariadne.ErrInvalid and hides the HTTP status from retry.Transient.
type RejectedError struct {
	Mode   JSONMode // the JSON form the request used ("" for a request without one)
	Status *retry.HTTPStatusError
}

func (e *RejectedError) Error() string {
	if e.Mode == "" {
		return "request rejected as invalid: " + e.Status.Error()
	}
	return fmt.Sprintf("request with JSON mode %s rejected as invalid: %s", e.Mode, e.Status.Error())
}

// Unwrap makes errors.Is(err, ariadne.ErrInvalid) hold.
func (e *RejectedError) Unwrap() error { return ariadne.ErrInvalid }

// rejection classifies err: it returns a *RejectedError when the server refused the request as
// invalid, and err unchanged otherwise (transport faults, 429 and other 5xx stay transient).
func rejection(err error, mode JSONMode) error {
	var he *retry.HTTPStatusError
	if !errors.As(err, &he) {
		return err
	}
	switch he.StatusCode {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity:
		return &RejectedError{Mode: mode, Status: he}
	case http.StatusInternalServerError:
		if validationBody(he.Body) {
			return &RejectedError{Mode: mode, Status: he}
		}
	}
	return err
}

// validationBody reports whether a 500's body is a request-validation error about the JSON
// constraint, e.g. llama-cpp-python's
// "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\" …".
func validationBody(body string) bool {
	b := strings.ToLower(body)
	about := strings.Contains(b, "response_format") || strings.Contains(b, "schema") || strings.Contains(b, "grammar")
	validation := strings.Contains(b, "validation") || strings.Contains(b, "literal_error") ||
		strings.Contains(b, "input should be") || strings.Contains(b, "field required") ||
		strings.Contains(b, "extra inputs are not permitted") || strings.Contains(b, "extra_forbidden") ||
		strings.Contains(b, "invalid") || strings.Contains(b, "not supported") || strings.Contains(b, "unsupported")
	return about && validation
}

// noModeError is what auto detection returns when the server rejected every form.
func noModeError(name string, tried []JSONMode, last *RejectedError) error {
	names := make([]string, len(tried))
	for i, m := range tried {
		names[i] = string(m)
	}
	return fmt.Errorf("llm: %s: the server accepts none of the JSON modes %s (set ARIADNE_LLM_JSON_MODE=none to send no constraint); its last answer: %s: %w",
		name, strings.Join(names, ", "), truncate(last.Status.Error(), 300), ariadne.ErrInvalid)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
