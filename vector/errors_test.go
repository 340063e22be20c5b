package vector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/fault"
	"github.com/weaviate/weaviate/entities/models"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestIsNotFound: the shapes of "nothing ingested yet" that Weaviate 1.29 answers, and errors that
// are not that.
func TestIsNotFound(t *testing.T) {
	emptySchema := &fault.WeaviateClientError{StatusCode: -1, Msg: "check the DerivedFromError field for more information",
		DerivedFromError: &fault.WeaviateClientError{IsUnexpectedStatusCode: true, StatusCode: 422,
			Msg: `{"error":[{"message":"no graphql provider present, this is most likely because no schema is present. Import a schema first!"}]}`}}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"class missing (404)", &fault.WeaviateClientError{IsUnexpectedStatusCode: true, StatusCode: 404}, true},
		{"no class at all (422 wrapped)", emptySchema, true},
		{"refused", &fault.WeaviateClientError{StatusCode: -1, DerivedFromError: errors.New("dial tcp 127.0.0.1:8080: connect: connection refused")}, false},
		{"bad request", &fault.WeaviateClientError{IsUnexpectedStatusCode: true, StatusCode: 422, Msg: "invalid vector length"}, false},
		{"nil", nil, false},
	}
	for _, tc := range tests {
		if got := isNotFound(tc.err); got != tc.want {
			t.Errorf("%s: isNotFound = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestGraphQLErrorsWhileAShardLoads(t *testing.T) {
	loading := gqlErrors("hybrid search", []*models.GraphQLError{{Message: "explorer: get class: vector search: tried to browse non-existing index for Chunk"}})
	if !errors.Is(loading, ariadne.ErrUnavailable) {
		t.Errorf("a shard still loading must be retried as unavailable: %v", loading)
	}
	other := gqlErrors("hybrid search", []*models.GraphQLError{{Message: "Cannot query field \"Chunk\" on type \"GetObjectsObj\"."}})
	if other == nil || errors.Is(other, ariadne.ErrUnavailable) {
		t.Errorf("a missing class is not a transient fault: %v", other)
	}
	if gqlErrors("count", nil) != nil {
		t.Error("no GraphQL errors must be nil")
	}
}

// TestGRPCKeyRefusal: Weaviate 1.29 refuses a missing or wrong key over gRPC with code Unknown and
// "extract auth: …" (its status mapping does not know the API-key check's error), so such an
// error is ErrUnauthorized — from a search (grpcError) and from the client's batch write, which
// wraps it (wrap) — not ErrUnavailable, which the retrieval would retry until its deadline. Other
// Unknown errors stay ErrUnavailable.
func TestGRPCKeyRefusal(t *testing.T) {
	refused := status.Error(codes.Unknown, "extract auth: invalid api key, please provide a valid api key")
	for _, err := range []error{
		grpcError("vector search", refused),
		grpcError("vector search", status.Error(codes.Unauthenticated, "no")),
		(&Store{}).wrap(context.Background(), "batch upsert", fmt.Errorf("batch objects: %w", refused)),
	} {
		if !errors.Is(err, ariadne.ErrUnauthorized) || errors.Is(err, ariadne.ErrUnavailable) ||
			!strings.Contains(err.Error(), "ARIADNE_WEAVIATE_API_KEY") {
			t.Errorf("%v: want ErrUnauthorized naming ARIADNE_WEAVIATE_API_KEY", err)
		}
	}
	for _, err := range []error{
		grpcError("vector search", status.Error(codes.Unknown, "shard not ready")),
		(&Store{}).wrap(context.Background(), "batch upsert", errors.New("extract auth: not a gRPC status")),
	} {
		if !errors.Is(err, ariadne.ErrUnavailable) || errors.Is(err, ariadne.ErrUnauthorized) {
			t.Errorf("%v: want ErrUnavailable", err)
		}
	}
}
