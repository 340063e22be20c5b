package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// writeFile writes a file of the rig's corpus folder.
func writeFile(t testing.TB, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIntegrationDocumentStatesPathVersionExtractor: the graph remembers, per document, the file
// it was synced from, its version and what extracted it — what a sync needs to keep a stored
// document whose file turned malformed, refuse an older version, and know that recognition ran.
func TestIntegrationDocumentStatesPathVersionExtractor(t *testing.T) {
	r := newRig(t, t.TempDir())
	writeFile(t, r.dir, "notes/pier.md", "---\nid: notes/pier\ntitle: Pier\nversion: 3\n---\nThe pier opens at six.\n")
	r.sync(t)
	states, err := r.graph.DocumentStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st := states["notes/pier"]
	if st.Path != "notes/pier.md" || st.Version != 3 || st.Extractor != "dictionary-v1" {
		t.Errorf("state %+v, want path notes/pier.md, version 3, extractor dictionary-v1", st)
	}
}
