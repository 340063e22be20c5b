package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
)

// Output is a parsed generator output.
type Output struct {
	NotFound bool
	Claims   []OutputClaim
}

// OutputClaim is one claim as the generator wrote it.
type OutputClaim struct {
	Text      string           `json:"text"`
	Citations []OutputCitation `json:"citations"`
}

// OutputCitation is one citation as the generator wrote it.
type OutputCitation struct {
	Fragment int    `json:"fragment"`
	ChunkID  string `json:"chunk_id"`
	Quote    string `json:"quote"`
}

// ErrInvalidOutput marks generator output that breaks the contract (not JSON, both an answer and
// a refusal, no claims, …). The answerer retries it.
var ErrInvalidOutput = errors.New("invalid generator output")

// ParseOutput parses a generator output into exactly one state: the refusal marker alone, or an
// answer with claims. Anything else — unparseable JSON, a refusal with claims, an answer that also
// says NOT_FOUND, an answer without claims or a claim without citations — is ErrInvalidOutput.
func ParseOutput(raw string) (Output, error) {
	s := strings.TrimSpace(stripCodeFence(raw))
	if s == ariadne.NotFoundMarker {
		return Output{NotFound: true}, nil
	}
	var parsed struct {
		Status string        `json:"status"`
		Claims []OutputClaim `json:"claims"`
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&parsed); err != nil {
		if strings.Contains(s, ariadne.NotFoundMarker) {
			return Output{}, fmt.Errorf("%w: %s mixed with other text", ErrInvalidOutput, ariadne.NotFoundMarker)
		}
		return Output{}, fmt.Errorf("%w: not the JSON asked for: %v", ErrInvalidOutput, err)
	}
	if dec.More() {
		return Output{}, fmt.Errorf("%w: text after the JSON object", ErrInvalidOutput)
	}
	switch parsed.Status {
	case "not_found":
		if len(parsed.Claims) > 0 {
			return Output{}, fmt.Errorf("%w: status not_found with %d claims", ErrInvalidOutput, len(parsed.Claims))
		}
		return Output{NotFound: true}, nil
	case "answer":
	default:
		return Output{}, fmt.Errorf("%w: status %q", ErrInvalidOutput, parsed.Status)
	}
	if len(parsed.Claims) == 0 {
		return Output{}, fmt.Errorf("%w: an answer without claims", ErrInvalidOutput)
	}
	for i, c := range parsed.Claims {
		if strings.TrimSpace(c.Text) == "" || len(c.Citations) == 0 {
			return Output{}, fmt.Errorf("%w: claim %d has no text or no citation", ErrInvalidOutput, i+1)
		}
		if strings.Contains(c.Text, ariadne.NotFoundMarker) {
			return Output{}, fmt.Errorf("%w: claim %d also says %s", ErrInvalidOutput, i+1, ariadne.NotFoundMarker)
		}
	}
	return Output{Claims: parsed.Claims}, nil
}

func stripCodeFence(s string) string {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "```") {
		t = strings.TrimPrefix(t, "```json")
		t = strings.TrimPrefix(t, "```")
		t = strings.TrimSuffix(strings.TrimSpace(t), "```")
	}
	return t
}
