package vector

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/grpc"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/ariadne-graphrag/ariadne"
)

// Config says where Weaviate is.
type Config struct {
	URL      string // REST base URL, e.g. "http://127.0.0.1:8080"
	GRPCAddr string // "host:port" of the gRPC API used for batch writes; "" means REST only
	APIKey   string // optional; sent as a bearer token
	Class    string // collection name; "" means DefaultClass
	Timeout  time.Duration
	// Placement spreads the class over a Weaviate cluster (replication, shards, consistency
	// level); the zero value is a single node's behaviour.
	Placement Placement
}

// DefaultClass is the Weaviate collection that holds chunks.
const DefaultClass = "Chunk"

// Store reads and writes chunks in Weaviate. It is safe for concurrent use.
type Store struct {
	client    *weaviate.Client
	class     string
	placement Placement
	grpc      *grpcSearcher // scores-only vector searches; nil without Config.GRPCAddr
}

// Open builds a client for cfg and checks that Weaviate is ready. The error wraps
// ariadne.ErrUnavailable when it is not.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("vector: Weaviate URL %q must be http(s)://host:port: %w", cfg.URL, ariadne.ErrInvalid)
	}
	wc := weaviate.Config{Host: u.Host, Scheme: u.Scheme, Timeout: cfg.Timeout}
	if wc.Timeout == 0 {
		wc.Timeout = 30 * time.Second
	}
	// Our own HTTP client, so that the Retry-After of Weaviate's answers reaches package retry
	// (see retryAfterTransport); the API key then goes in a header.
	wc.ConnectionClient = &http.Client{Timeout: wc.Timeout, Transport: retryAfterTransport{base: http.DefaultTransport}}
	if cfg.APIKey != "" {
		wc.Headers = map[string]string{"Authorization": "Bearer " + cfg.APIKey}
	}
	if cfg.GRPCAddr != "" {
		wc.GrpcConfig = &grpc.Config{Host: cfg.GRPCAddr, Secured: u.Scheme == "https"}
	}
	if err := cfg.Placement.validate(); err != nil {
		return nil, err
	}
	client, err := weaviate.NewClient(wc)
	if err != nil {
		return nil, fmt.Errorf("vector: client for %s: %w", cfg.URL, errors.Join(ariadne.ErrUnavailable, err))
	}
	class := cfg.Class
	if class == "" {
		class = DefaultClass
	}
	s := &Store{client: client, class: class, placement: cfg.Placement}
	if cfg.GRPCAddr != "" {
		if s.grpc, err = newGRPCSearcher(cfg.GRPCAddr, u.Scheme == "https", cfg.APIKey); err != nil {
			return nil, err
		}
	}
	if err := s.Ping(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Class returns the name of the collection this store reads and writes.
func (s *Store) Class() string { return s.class }

// Ping checks Weaviate's readiness endpoint.
func (s *Store) Ping(ctx context.Context) error {
	ctx = withRetryAfter(ctx)
	ready, err := s.client.Misc().ReadyChecker().Do(ctx)
	if err != nil {
		return s.wrap(ctx, "readiness", err)
	}
	if !ready {
		return fmt.Errorf("vector: Weaviate is not ready: %w", ariadne.ErrUnavailable)
	}
	return nil
}

// gqlErrors turns GraphQL-level errors (Weaviate's second failure channel) into one error. A
// class whose schema exists but whose shard index is not loaded yet ("tried to browse
// non-existing index", seen for a few seconds after a Weaviate restart) is ErrUnavailable, so the
// retry layer waits for it; every other GraphQL error is returned as it is.
func gqlErrors(op string, errs []*models.GraphQLError) error {
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, 0, len(errs))
	loading := false
	for _, e := range errs {
		msgs = append(msgs, e.Message)
		loading = loading || strings.Contains(e.Message, "non-existing index")
	}
	if loading {
		return fmt.Errorf("vector: %s: graphql errors: %s: %w", op, strings.Join(msgs, "; "), ariadne.ErrUnavailable)
	}
	return fmt.Errorf("vector: %s: graphql errors: %s", op, strings.Join(msgs, "; "))
}
