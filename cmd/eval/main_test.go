package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/vector"
)

// TestIntegrationGoldenRefusesEmptyIndex: a golden run without --index over a class that holds
// nothing is a usage error that says to add --index, not a report of zeros with every question
// index_empty (outside tester, stop 61).
func TestIntegrationGoldenRefusesEmptyIndex(t *testing.T) {
	testenv.Need(t, "Weaviate", testenv.HTTPGet(testenv.WeaviateURL()+"/v1/.well-known/ready"))
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	class, ns := fmt.Sprintf("EvalEmpty%d", time.Now().UnixNano()), testrig.Namespace()
	t.Cleanup(func() {
		if vs, err := vector.Open(context.Background(), vector.Config{URL: testenv.WeaviateURL(), APIKey: testenv.WeaviateAPIKey(), Class: class}); err == nil {
			vs.DropClass(context.Background())
		}
		if gs, err := graph.Open(context.Background(), graph.Config{URI: testenv.Neo4jURI(), User: testenv.Neo4jUser(),
			Password: testenv.Neo4jPassword(), Namespace: ns}); err == nil {
			gs.DropNamespace(context.Background())
			gs.Close(context.Background())
		}
	})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gate.md"), []byte("---\nid: notes/gate\ntitle: Gate\n---\nThe gate closes at ten.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	questions := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(questions, []byte(`{"id":"q1","question":"When does the gate close?","type":"simple","gold_docs":["notes/gate"],"answer":"at ten"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"golden", "--golden", questions, "--corpus", dir, "--embedder", "lexical",
		"--neo4j-namespace", ns, "--weaviate-class", class, "--strategies", "hybrid"}, &out, &errOut)
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "add --index") || !strings.Contains(err.Error(), class) {
		t.Fatalf("err %v (usage error: %v), want a usage error naming the class and --index; output %q", err, errors.As(err, &ue), out.String())
	}
	if out.Len() > 0 {
		t.Errorf("a report was written: %q", out.String())
	}
}
