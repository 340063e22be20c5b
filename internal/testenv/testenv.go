// Package testenv decides whether an integration test runs, skips, or fails, and where the real
// servers it talks to are.
//
// Integration tests are named TestIntegration* and talk to real Neo4j and Weaviate servers (see
// deploy/local.sh). When a server does not answer, the test is skipped — unless
// ARIADNE_REQUIRE_INTEGRATION=1, as in `make test` and CI, where it fails instead.
package testenv

import (
	"cmp"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne/internal/loopback"
)

// Required reports whether integration tests must run (ARIADNE_REQUIRE_INTEGRATION=1).
func Required() bool { return os.Getenv("ARIADNE_REQUIRE_INTEGRATION") == "1" }

// Need skips or fails t when probe returns an error, naming the server and how to start it.
func Need(t testing.TB, server string, probe func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := probe(ctx); err != nil {
		if Required() {
			t.Fatalf("%s is required (ARIADNE_REQUIRE_INTEGRATION=1) but unreachable: %v; start it with `make up`", server, err)
		}
		t.Skipf("%s unreachable (%v); run `make up` to include this integration test", server, err)
	}
}

// Neo4jURI is the Bolt URI integration tests use: $ARIADNE_NEO4J_URI or bolt://127.0.0.1:7687,
// shifted by ARIADNE_PORT_OFFSET like every address below (loopback.Default).
func Neo4jURI() string { return loopback.Default("ARIADNE_NEO4J_URI") }

// Neo4jUser is $ARIADNE_NEO4J_USER or "neo4j".
func Neo4jUser() string { return cmp.Or(os.Getenv("ARIADNE_NEO4J_USER"), "neo4j") }

// Neo4jPassword is $ARIADNE_NEO4J_PASSWORD or the documented development default.
func Neo4jPassword() string {
	return cmp.Or(os.Getenv("ARIADNE_NEO4J_PASSWORD"), "ariadne-dev-password")
}

// Neo4jHTTP is the Neo4j HTTP base URL: $ARIADNE_NEO4J_HTTP or http://127.0.0.1:7474.
func Neo4jHTTP() string { return loopback.Default("ARIADNE_NEO4J_HTTP") }

// WeaviateURL is $ARIADNE_WEAVIATE_URL or http://127.0.0.1:8080.
func WeaviateURL() string { return loopback.Default("ARIADNE_WEAVIATE_URL") }

// WeaviateGRPC is $ARIADNE_WEAVIATE_GRPC or 127.0.0.1:50051.
func WeaviateGRPC() string { return loopback.Default("ARIADNE_WEAVIATE_GRPC") }

// WeaviateAPIKey is the key Weaviate requires: $ARIADNE_WEAVIATE_API_KEY, else the one
// deploy/local.sh generated under Home (<Home>/weaviate/api-key), else "" (loopback.WeaviateAPIKey).
func WeaviateAPIKey() string { return loopback.WeaviateAPIKey() }

// EmbedderURL is the OpenAI-compatible embedding server deploy/local.sh starts:
// $ARIADNE_E5_URL or http://127.0.0.1:8091/v1.
func EmbedderURL() string { return loopback.Default("ARIADNE_E5_URL") }

// NERURL is the NER sidecar deploy/local.sh starts: $ARIADNE_NER_URL or http://127.0.0.1:8093.
func NERURL() string { return loopback.Default("ARIADNE_NER_URL") }

// HTTPGet returns a probe that succeeds when url answers with a status below 500.
func HTTPGet(url string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			return &statusError{url: url, code: resp.StatusCode}
		}
		return nil
	}
}

// TCP returns a probe that succeeds when addr ("host:port") accepts a connection.
func TCP(addr string) func(context.Context) error {
	return func(ctx context.Context) error {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return c.Close()
	}
}

type statusError struct {
	url  string
	code int
}

func (e *statusError) Error() string { return e.url + " answered HTTP " + http.StatusText(e.code) }

// Home is Ariadne's local install directory: $ARIADNE_HOME, else <repo>/.ariadne found by
// walking up from the working directory to go.mod; "" when neither is found (loopback.Home).
func Home() string { return loopback.Home() }

// ThesaurusPath is the Russian synonym sets' file: $ARIADNE_THESAURUS, else
// <Home>/lexicon/ru-wiktionary-synsets.tsv (deploy/local.sh install lexicon).
func ThesaurusPath() string {
	if p := os.Getenv("ARIADNE_THESAURUS"); p != "" {
		return p
	}
	return filepath.Join(Home(), "lexicon", "ru-wiktionary-synsets.tsv")
}

// PlacesPath is the gazetteer's file: $ARIADNE_PLACES, else <Home>/lexicon/places.tsv
// (deploy/local.sh install lexicon).
func PlacesPath() string {
	if p := os.Getenv("ARIADNE_PLACES"); p != "" {
		return p
	}
	return filepath.Join(Home(), "lexicon", "places.tsv")
}

// LexiconPath is the bilingual dictionary's prefix: $ARIADNE_LEXICON, else
// <Home>/lexicon/mueller7 (deploy/local.sh install lexicon).
func LexiconPath() string {
	if p := os.Getenv("ARIADNE_LEXICON"); p != "" {
		return p
	}
	return filepath.Join(Home(), "lexicon", "mueller7")
}
