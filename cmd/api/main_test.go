package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

func TestUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, &out, &errOut, nil); err != nil || !strings.Contains(out.String(), "ARIADNE_API_ADDR") {
		t.Fatalf("--help: %v %s", err, out.String())
	}
	var ue usageError
	if err := run(context.Background(), []string{"--generator", "poet"}, &out, &errOut, nil); !errors.As(err, &ue) {
		t.Fatalf("bad enum: %v", err)
	}
	err := run(context.Background(), []string{"--trusted-proxies", "10.0.0.0/8,proxy.local"}, &out, &errOut, nil)
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `--trusted-proxies: trusted proxy "proxy.local": want an IP address or a CIDR range`) {
		t.Fatalf("a bad trusted proxy: %v", err)
	}
}

// TestIntegrationServeAndShutdown starts the real binary's run loop on a free port against the
// real stores, checks readiness and an answer, then stops it as SIGTERM would.
func TestIntegrationServeAndShutdown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var logs bytes.Buffer
	addr, done := serveAPI(t, ctx, &logs, "--embedder", "lexical", "--ner", "auto", "--ner-url", "http://127.0.0.1:1") // no NER sidecar there
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// Without the NER sidecar the API serves queries (200) but says it is degraded.
	if resp.StatusCode != 200 || !strings.Contains(string(body), "nothing ingested") || !strings.Contains(string(body), `"status":"degraded"`) ||
		!strings.Contains(string(body), `"ner":{"ok":false`) {
		t.Fatalf("readyz: %d %s", resp.StatusCode, body)
	}
	resp, err = http.Post("http://"+addr+"/v1/query", "application/json", strings.NewReader(`{"question":"Сколько дней отпуска?"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"status":"index_empty"`) {
		t.Fatalf("query on an empty class: %s\nserver log:\n%s", body, logs.String())
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("did not shut down")
	}
	if !strings.Contains(logs.String(), "shutting down") {
		t.Errorf("no shutdown in the logs:\n%s", logs.String())
	}
}

// TestIntegrationReadyzEmbedderDown: with the e5 server not answering, /readyz says not ready
// and names it (it said ready while every question failed: outside tester).
func TestIntegrationReadyzEmbedderDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs bytes.Buffer
	addr, done := serveAPI(t, ctx, &logs, "--embedder", "e5", "--e5-url", "http://127.0.0.1:1/v1", "--ner", "off", "--warm-entity-names", "0")
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"embedder":{"ok":false`) ||
		!strings.Contains(string(body), "does not answer") {
		t.Fatalf("readyz with the embedder down: %d %s", resp.StatusCode, body)
	}
	cancel()
	<-done
}

// TestIntegrationReadyzGraphDown: with Neo4j gone after the start, /readyz says degraded (200, the
// neo4j check failing and optional), since questions are still answered from the chunk index.
func TestIntegrationReadyzGraphDown(t *testing.T) {
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	bolt := testenv.NewProxy(t, strings.TrimPrefix(testenv.Neo4jURI(), "bolt://"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs bytes.Buffer
	addr, done := serveAPI(t, ctx, &logs, "--embedder", "lexical", "--ner", "off", "--neo4j-uri", "bolt://"+bolt.Addr())
	bolt.Close()
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"status":"degraded"`) || !strings.Contains(string(body), `"neo4j":{"ok":false`) ||
		!strings.Contains(string(body), "answered from the chunk index alone") {
		t.Fatalf("readyz with Neo4j down: %d %s", resp.StatusCode, body)
	}
	cancel()
	<-done
}

// TestIntegrationStartsWithGraphDown: an API started while Neo4j does not answer serves (it
// failed to start), says degraded, answers questions marked degraded, and once Neo4j answers
// says ready and warms the entity names it could not read at the start.
func TestIntegrationStartsWithGraphDown(t *testing.T) {
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	bolt := testenv.NewProxy(t, strings.TrimPrefix(testenv.Neo4jURI(), "bolt://"))
	bolt.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs testenv.LockedLog
	addr, done := serveAPI(t, ctx, &logs, "--embedder", "lexical", "--ner", "off", "--neo4j-uri", "bolt://"+bolt.Addr())
	status, body := get(t, "http://"+addr+"/readyz")
	if status != 200 || !strings.Contains(body, `"status":"degraded"`) || !strings.Contains(body, `"neo4j":{"ok":false`) {
		t.Fatalf("readyz with Neo4j down from the start: %d %s", status, body)
	}
	if !strings.Contains(logs.String(), "neo4j does not answer: starting degraded") {
		t.Errorf("no warning in the log:\n%s", logs.String())
	}
	resp, err := http.Post("http://"+addr+"/v1/query", "application/json", strings.NewReader(`{"question":"Who is the account manager of the client?"}`))
	if err != nil {
		t.Fatal(err)
	}
	qb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(qb), `"status":"index_empty"`) {
		t.Fatalf("question with Neo4j down from the start: %d %s", resp.StatusCode, qb)
	}
	bolt.Start()
	deadline := time.Now().Add(90 * time.Second)
	for {
		status, body = get(t, "http://"+addr+"/readyz")
		warmed := strings.Contains(logs.String(), "graph read path warmed")
		if strings.Contains(body, `"neo4j":{"ok":true`) && warmed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Neo4j back for 90 s: readyz %d %s, names warmed %v\n%s", status, body, warmed, logs.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
	cancel()
	<-done
}

// get reads url and returns the status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// serveAPI runs the real binary's run loop with args, on a free port against the real stores (an
// empty class of the test namespace), and waits until it listens; it returns the address and
// the channel run's result arrives on. It skips without the stores.
func serveAPI(t *testing.T, ctx context.Context, logs interface {
	io.Writer
	String() string
}, args ...string) (string, <-chan error) {
	t.Helper()
	testenv.Need(t, "Weaviate", testenv.HTTPGet(testenv.WeaviateURL()+"/v1/.well-known/ready"))
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"--addr", "127.0.0.1:0", "--weaviate-class", "ApiCmdTestEmpty",
			"--neo4j-password", testenv.Neo4jPassword(), "--neo4j-namespace", testrig.Namespace()}, args...), io.Discard, logs, ready)
	}()
	select {
	case addr := <-ready:
		return addr, done
	case err := <-done:
		t.Fatalf("run ended early: %v\n%s", err, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("not listening after 30s")
	}
	return "", done
}

// ARIADNE_BRIDGE_HOPS=0 turns the bridge hop off (the retriever's negative); a positive count
// passes through; --help names the setting.
func TestBridgeHopsSetting(t *testing.T) {
	for set, want := range map[int]int{0: -1, -3: -1, 1: 1, 2: 2} {
		if got := bridgeHops(set); got != want {
			t.Errorf("bridge-hops %d: RetrievalConfig.BridgeHops %d, want %d", set, got, want)
		}
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, &out, &errOut, nil); err != nil || !strings.Contains(out.String(), "ARIADNE_BRIDGE_HOPS") {
		t.Fatalf("--help does not name ARIADNE_BRIDGE_HOPS: %v", err)
	}
}
