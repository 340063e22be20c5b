package corpus

import (
	"errors"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// TestParseRegressions holds the inputs the fuzz target found, minimized.
func TestParseRegressions(t *testing.T) {
	tests := []struct {
		name, raw, wantErr string
	}{
		// A YAML !!binary value decodes to arbitrary bytes: the file is valid UTF-8 but the id,
		// title, acl or aliases were not, and became chunk ids and ACL groups.
		{"binary id", "---\nid: !!binary /w==\n---\nbody\n", "id is not valid UTF-8"},
		{"binary title", "---\nid: a\ntitle: !!binary /w==\n---\nbody\n", "title is not valid UTF-8"},
		{"binary acl", "---\nid: a\nacl: [!!binary /w==]\n---\nbody\n", "acl is not valid UTF-8"},
		{"binary alias", "---\nid: a\naliases: [!!binary gA==]\n---\nbody\n", "aliases is not valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.md", []byte(tc.raw))
			if err == nil || !errors.Is(err, ariadne.ErrInvalid) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want ErrInvalid containing %q", err, tc.wantErr)
			}
		})
	}
	// A !!binary value that is valid UTF-8 stays accepted.
	doc, err := Parse("x.md", []byte("---\nid: a\ntitle: !!binary 0J/RgNC40LLQtdGC\n---\nbody\n"))
	if err != nil || doc.Title != "Привет" {
		t.Fatalf("Parse = %q, %v; want title Привет", doc.Title, err)
	}
}
