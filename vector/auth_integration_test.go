package vector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/loopback"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
)

// TestIntegrationWeaviateRequiresKey: the Weaviate deploy/local.sh starts reads and lists nothing
// for a client without its API key. Its gRPC port and cluster data port listen on every interface
// (Weaviate 1.29 cannot narrow them; README, Security notes), so anyone who reaches the machine
// reaches them. The test writes a management-only chunk with a canary, then asks for it:
//
//   - over REST and gRPC without a key and with a wrong one: refused (401; over gRPC an
//     authentication error, authRefused), and no answer carries the canary; Ariadne's own store
//     then fails with ErrUnauthorized, which is not retried as a passing fault;
//   - with the key (testenv.WeaviateAPIKey: ARIADNE_WEAVIATE_API_KEY, else the file local.sh
//     keeps under ARIADNE_HOME): the chunk, over both;
//   - the readiness probe stays public (local.sh, probes and Store.Ping use it without a key);
//   - the cluster data port (gossip + 1), whose /indices/ API serves shard objects to other
//     nodes, answers 401 without the cluster credentials (local.sh's Weaviate only: its port is
//     known).
//
// With anonymous access, as local.sh started Weaviate until this test was added, the first
// request without a key listed the chunk, and the data port served its text to anyone.
func TestIntegrationWeaviateRequiresKey(t *testing.T) {
	s, class := lexicalTestClass(t, "AriadneAuth") // created with the key
	ctx := context.Background()
	const canary = "canary-7f3a management-only penalty"
	if _, err := s.Upsert(ctx, []ariadne.IndexedChunk{{Chunk: ariadne.Chunk{ID: "contracts/secret#0000-1",
		DocID: "contracts/secret", Title: "Contract", Text: canary, ACL: []string{"management"}},
		Vector: []float32{1, 0, 0, 0}, SearchText: "canary penalty"}}); err != nil {
		t.Fatalf("write with the key: %v", err)
	}
	key := testenv.WeaviateAPIKey()
	base := testenv.WeaviateURL()

	rest := func(method, path, auth, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	gql := `{"query":"{ Get { ` + class + ` { text acl } } }"}`
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/v1/schema", ""},
		{"GET", "/v1/objects?class=" + class, ""},
		{"POST", "/v1/graphql", gql},
	} {
		for _, auth := range []string{"", "Bearer wrong-" + strconv.Itoa(len(key)), "Basic YTpi"} {
			code, body := rest(r.method, r.path, auth, r.body)
			if code != http.StatusUnauthorized || strings.Contains(body, canary) || strings.Contains(body, class) {
				t.Errorf("REST %s %s with Authorization %q: %d %.200s; want 401 and neither the class nor its text", r.method, r.path, auth, code, body)
			}
		}
		if code, body := rest(r.method, r.path, "Bearer "+key, r.body); code != http.StatusOK || !strings.Contains(body, class) {
			t.Errorf("REST %s %s with the key: %d %.200s; want 200 naming the class", r.method, r.path, code, body)
		}
	}
	if code, _ := rest("GET", "/v1/.well-known/ready", "", ""); code != http.StatusOK {
		t.Errorf("readiness without a key: %d, want 200 (it is public)", code)
	}

	conn, err := grpc.NewClient(testenv.WeaviateGRPC(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := pb.NewWeaviateClient(conn)
	search := func(auth string) (*pb.SearchReply, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if auth != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", auth)
		}
		return client.Search(ctx, &pb.SearchRequest{Collection: class, Limit: 10, Uses_127Api: true,
			Properties: &pb.PropertiesRequest{NonRefProperties: []string{"text", "acl"}}})
	}
	for _, auth := range []string{"", "Bearer wrong-" + strconv.Itoa(len(key))} {
		reply, err := search(auth)
		if len(reply.GetResults()) > 0 || !authRefused(err) {
			t.Errorf("gRPC Search with authorization %q: %d results, err %v; want refused for its key", auth, len(reply.GetResults()), err)
		}
	}
	reply, err := search("Bearer " + key)
	if err != nil || len(reply.GetResults()) != 1 ||
		!strings.Contains(fmt.Sprint(reply.GetResults()[0].GetProperties().GetNonRefProps()), canary) {
		t.Errorf("gRPC Search with the key: %v, %v; want the chunk", reply.GetResults(), err)
	}

	// Ariadne's own store without the key, or with a wrong one: every call fails as
	// ErrUnauthorized (not retried as a passing fault), naming the key to check.
	for _, k := range []string{"", "wrong-key"} {
		bad, err := Open(ctx, Config{URL: base, GRPCAddr: testenv.WeaviateGRPC(), APIKey: k, Class: class})
		if err != nil {
			t.Fatalf("Open with key %q: %v (the readiness probe is public)", k, err)
		}
		_, serr := bad.Search(ctx, ariadne.SearchVector, ariadne.SearchQuery{Vector: []float32{1, 0, 0, 0}, Groups: []string{"management"}, Limit: 5})
		_, uerr := bad.Upsert(ctx, []ariadne.IndexedChunk{{Chunk: ariadne.Chunk{ID: "x#0000-2", DocID: "x", Text: "x", ACL: []string{"all"}},
			Vector: []float32{0, 1, 0, 0}}})
		gerr := bad.EnsureClass(ctx, ariadne.Embedding{Name: "lexical-ngram-v1/4", Dim: 4})
		for op, err := range map[string]error{"search (gRPC)": serr, "upsert": uerr, "ensure class": gerr} {
			if !errors.Is(err, ariadne.ErrUnauthorized) || !strings.Contains(err.Error(), "ARIADNE_WEAVIATE_API_KEY") {
				t.Errorf("%s with key %q: %v; want ErrUnauthorized naming ARIADNE_WEAVIATE_API_KEY", op, k, err)
			}
		}
	}

	// The cluster data port of local.sh's Weaviate: its gossip port (7946 + offset, or
	// ARIADNE_WEAVIATE_GOSSIP_PORT) + 1. Another Weaviate (ARIADNE_WEAVIATE_URL elsewhere) is not
	// local.sh's, and its ports are unknown here.
	off, _ := loopback.Offset()
	if base != fmt.Sprintf("http://127.0.0.1:%d", 8080+off) {
		t.Logf("Weaviate at %s is not deploy/local.sh's: its cluster data port is not checked", base)
		return
	}
	gossip := 7946 + off
	if p, err := strconv.Atoi(os.Getenv("ARIADNE_WEAVIATE_GOSSIP_PORT")); err == nil {
		gossip = p
	}
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/nodes/status?output=verbose", gossip+1))
	if err != nil {
		t.Fatalf("cluster data port: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(b), class) {
		t.Errorf("cluster data port %d without credentials: %d %.200s; want 401", gossip+1, resp.StatusCode, b)
	}
}
