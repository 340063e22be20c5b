package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne/ingest"
)

const smallNote = `{"id":"notes/small","title":"Small","body":"A small note about the blue meeting room."}`

// TestDocumentWriteBusyAndTimeout: a write the pipeline could not start in time is 503 busy with
// Retry-After; a write past Limits.WriteTimeout is stopped and answered 504 timeout, both in the
// one error shape.
func TestDocumentWriteBusyAndTimeout(t *testing.T) {
	r := newRig(t, Limits{WriteTimeout: 100 * time.Millisecond})
	r.docs.err = fmt.Errorf("upsert: %w", &ingest.BusyError{Wait: 30 * time.Second})
	resp, body := r.do(t, "POST", "/v1/documents", "writer-key", "application/json", smallNote)
	if code, msg := errorOf(t, body); resp.StatusCode != http.StatusServiceUnavailable || code != "busy" ||
		resp.Header.Get("Retry-After") != "30" || !strings.Contains(msg, "after 30s") || !strings.Contains(msg, "nothing was written") {
		t.Errorf("busy: %d %s Retry-After %q", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	r.docs.err = nil
	r.docs.write = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	resp, body = r.do(t, "POST", "/v1/documents", "writer-key", "application/json", smallNote)
	if code, msg := errorOf(t, body); resp.StatusCode != http.StatusGatewayTimeout || code != "timeout" || !strings.Contains(msg, "100ms") {
		t.Errorf("past the write budget: %d %s", resp.StatusCode, body)
	}
}

// TestDocumentWriteOutlastsServerWriteTimeout: a write longer than the server's WriteTimeout
// (sized for queries) still gets its answer (outside tester: a 1 MB document was written after
// 8 minutes and the caller got an empty reply).
func TestDocumentWriteOutlastsServerWriteTimeout(t *testing.T) {
	r := newRig(t, Limits{})
	r.srv.Close()
	r.srv = httptestServer(t, r, 100*time.Millisecond)
	r.docs.write = func(ctx context.Context) error {
		select {
		case <-time.After(400 * time.Millisecond):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	resp, body := r.do(t, "POST", "/v1/documents", "writer-key", "application/json", smallNote)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"doc_id":"notes/small"`) {
		t.Fatalf("a write longer than the server's write timeout: %d %q", resp.StatusCode, body)
	}
}

// TestDocumentSourceQueryForJSON: ?source= names a JSON document's source too, a Markdown front
// matter's source: line counts as the JSON field does, and a body naming another source than
// the query is 400.
func TestDocumentSourceQueryForJSON(t *testing.T) {
	r := newRig(t, Limits{})
	if resp, body := r.do(t, "POST", "/v1/documents?source=notes", "writer-key", "application/json", smallNote); resp.StatusCode != http.StatusOK ||
		r.docs.opts.Source != "notes" || r.docs.got[0].Source != "notes" {
		t.Fatalf("?source=notes with a JSON body: %d %s, source %q", resp.StatusCode, body, r.docs.opts.Source)
	}
	md := "---\nid: notes/md\ntitle: M\nsource: wiki\n---\n\nA note.\n"
	if resp, body := r.do(t, "POST", "/v1/documents", "writer-key", "text/markdown", md); resp.StatusCode != http.StatusOK || r.docs.got[0].Source != "wiki" {
		t.Fatalf("front matter source: %d %s, source %q", resp.StatusCode, body, r.docs.got[0].Source)
	}
	if resp, body := r.do(t, "POST", "/v1/documents?source=notes", "writer-key", "text/markdown", md); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("front matter and query name two sources: %d %s", resp.StatusCode, body)
	}
	withSource := strings.Replace(smallNote, `"id"`, `"source":"wiki","id"`, 1)
	resp, body := r.do(t, "POST", "/v1/documents?source=notes", "writer-key", "application/json", withSource)
	if code, msg := errorOf(t, body); resp.StatusCode != http.StatusBadRequest || code != "invalid_request" || !strings.Contains(msg, "differ") {
		t.Errorf("two sources: %d %s", resp.StatusCode, body)
	}
}
