package vector

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
)

// openTestStore connects to the real Weaviate of deploy/local.sh, or skips/fails (see testenv).
func openTestStore(t *testing.T, class string) *Store {
	t.Helper()
	cfg := Config{URL: testenv.WeaviateURL(), GRPCAddr: testenv.WeaviateGRPC(), APIKey: testenv.WeaviateAPIKey(), Class: class}
	testenv.Need(t, "Weaviate", func(ctx context.Context) error { _, err := Open(ctx, cfg); return err })
	s, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

// lexicalTestEmbedding is the embedding lexicalTestClass creates its classes for.
var lexicalTestEmbedding = ariadne.Embedding{Name: "lexical-ngram-v1/4", Dim: 4}

// lexicalTestClass opens a store on a new class named prefix + a timestamp, with
// lexicalTestEmbedding, dropped when the test ends; it returns the store and the class name.
func lexicalTestClass(t *testing.T, prefix string) (*Store, string) {
	t.Helper()
	class := fmt.Sprintf("%s%d", prefix, time.Now().UnixNano())
	s := openTestStore(t, class)
	t.Cleanup(func() { s.DropClass(context.Background()) })
	if err := s.EnsureClass(context.Background(), lexicalTestEmbedding); err != nil {
		t.Fatalf("create class %s: %v", class, err)
	}
	return s, class
}

// TestIntegrationWeaviateSmoke proves the server is real: a class with vectorizer none, a batch of
// objects with our own vectors and Cyrillic and Latin text (per-object errors checked), and a
// hybrid query whose first hit is the expected object.
func TestIntegrationWeaviateSmoke(t *testing.T) {
	class := fmt.Sprintf("AriadneSmoke%d", time.Now().UnixNano())
	s := openTestStore(t, class)
	ctx := context.Background()
	err := s.client.Schema().ClassCreator().WithClass(&models.Class{
		Class:      class,
		Vectorizer: "none",
		Properties: []*models.Property{
			{Name: "key", DataType: []string{"text"}, Tokenization: "field"},
			{Name: "body", DataType: []string{"text"}, Tokenization: "word"},
		},
	}).Do(ctx)
	if err != nil {
		t.Fatalf("create class: %v", err)
	}
	t.Cleanup(func() { s.client.Schema().ClassDeleter().WithClassName(class).Do(context.Background()) })

	docs := []struct {
		key, body string
		vec       []float32
	}{
		{"ru-vacation", "Ежегодный оплачиваемый отпуск составляет 28 календарных дней", []float32{1, 0, 0, 0}},
		{"en-vpn", "VPN access is requested through the ServiceDesk", []float32{0, 1, 0, 0}},
		{"ru-kafka", "Кафка хранит события в топиках", []float32{0, 0, 1, 0}},
		{"en-redis", "Redis eviction policy is volatile-lfu", []float32{0, 0, 0, 1}},
	}
	objs := make([]*models.Object, 0, len(docs))
	for _, d := range docs {
		objs = append(objs, &models.Object{
			Class:      class,
			ID:         strfmtUUID(uuid.NewSHA1(uuid.NameSpaceURL, []byte(d.key))),
			Properties: map[string]any{"key": d.key, "body": d.body},
			Vector:     d.vec,
		})
	}
	resp, err := s.client.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx)
	if err != nil {
		t.Fatalf("batch: %v", err)
	}
	if len(resp) != len(docs) {
		t.Fatalf("batch answered for %d objects, want %d", len(resp), len(docs))
	}
	for _, r := range resp {
		if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
			t.Fatalf("object %v failed: %s", r.ID, r.Result.Errors.Error[0].Message)
		}
	}

	for _, tc := range []struct {
		query string
		vec   []float32
		want  string
	}{
		{"отпуск календарных дней", []float32{0.9, 0.1, 0, 0}, "ru-vacation"},
		{"Кафка топики", []float32{0, 0, 1, 0}, "ru-kafka"},
		{"redis eviction", []float32{0, 0.2, 0, 0.8}, "en-redis"},
	} {
		res, err := s.client.GraphQL().Get().WithClassName(class).
			WithFields(graphql.Field{Name: "key"}).
			WithHybrid(s.client.GraphQL().HybridArgumentBuilder().WithQuery(tc.query).WithVector(tc.vec).
				WithAlpha(0.5).WithFusionType(graphql.RelativeScore)).
			WithLimit(3).Do(ctx)
		if err != nil {
			t.Fatalf("hybrid %q: %v", tc.query, err)
		}
		if err := gqlErrors("hybrid", res.Errors); err != nil {
			t.Fatal(err)
		}
		hits := res.Data["Get"].(map[string]any)[class].([]any)
		if len(hits) == 0 {
			t.Fatalf("hybrid %q: no hits", tc.query)
		}
		if got := hits[0].(map[string]any)["key"]; got != tc.want {
			t.Errorf("hybrid %q: first hit %v, want %s", tc.query, got, tc.want)
		}
	}
}
