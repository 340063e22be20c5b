package vector

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
)

// IndexCheck is the result of SelfCheck.
type IndexCheck struct {
	Sampled int      // objects queried by their own vector
	Lost    []string // chunk ids of those the vector index did not return (findsItself)
}

// OK reports whether every sampled object was found by its own vector.
func (c IndexCheck) OK() bool { return len(c.Lost) == 0 }

// SelfCheck tests the vector index against the objects it should hold: it reads up to n objects
// of the class with their stored vectors (n consecutive objects in Weaviate's id order from a
// random offset, so that repeated checks — the API's guard runs one every 15 s — see different
// objects; ids are hashes of chunk ids, so each sample is spread over the corpus) and searches each
// by its own vector (findsItself: top 3, confirmed with a top 64). An object the HNSW index
// holds is its own nearest neighbour (distance 0; the top 3 leave room for chunks with the same
// text, the top 64 for the approximate search's misses). One that is not means the index lost
// its entry while the object survived: Weaviate 1.29 restarted after kill -9 kept every object
// and stored vector of a class written minutes before, but 40 of its 45 HNSW entries, so vector
// search answered every query with the same few chunks (docs/reliability.md). Counts and stored
// vectors do not show that; this does. It costs n+2 queries, and one more per top-3 miss. An
// absent or empty class is a zero IndexCheck. Errors wrap ariadne.ErrUnavailable when Weaviate
// does not answer.
func (s *Store) SelfCheck(ctx context.Context, n int) (IndexCheck, error) {
	ctx = withRetryAfter(ctx)
	if n <= 0 {
		n = 8
	}
	total, err := s.Count(ctx)
	if err != nil {
		return IndexCheck{}, err
	}
	resp, err := s.client.GraphQL().Get().WithClassName(s.class).
		WithFields(graphql.Field{Name: "chunk_id"}, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "id"}, {Name: "vector"}}}).
		WithOffset(sampleOffset(total, n)).WithLimit(n).Do(ctx)
	if err != nil {
		if isNotFound(err) {
			return IndexCheck{}, nil
		}
		return IndexCheck{}, s.wrap(ctx, "index self-check", err)
	}
	if len(resp.Errors) > 0 && noClass(resp.Errors[0].Message) {
		return IndexCheck{}, nil
	}
	if err := gqlErrors("index self-check", resp.Errors); err != nil {
		return IndexCheck{}, err
	}
	var out IndexCheck
	for _, h := range hitsOf(resp, s.class) {
		add, _ := h["_additional"].(map[string]any)
		id, vec := str(add["id"]), vectorOf(add)
		if id == "" || len(vec) == 0 {
			continue // an object without a vector is the digest's problem, not the index's
		}
		out.Sampled++
		found, err := s.findsItself(ctx, id, vec)
		if err != nil {
			return IndexCheck{}, err
		}
		if !found {
			out.Lost = append(out.Lost, str(h["chunk_id"]))
		}
	}
	return out, nil
}

// maxQueryResults is Weaviate's default cap on offset + limit of one query
// (QUERY_MAXIMUM_RESULTS).
const maxQueryResults = 10000

// sampleOffset picks where a sample of n of total objects starts: uniformly among the offsets
// whose sample fits in the class and under Weaviate's result cap; 0 when all fit in one sample.
func sampleOffset(total, n int) int {
	last := min(total, maxQueryResults) - n
	if last <= 0 {
		return 0
	}
	return rand.IntN(last + 1)
}

// findsItself reports whether a nearVector search with vec returns the object id: among the top
// 3, or, failing that, among the top confirmLimit. HNSW search is approximate, and Weaviate's
// dynamic ef follows the limit (8 × limit, at least 100, at most 500): at 100k chunks about 1 in
// 400 objects is missed by a top-3 search (ef 100) and found at the top by a top-64 one (ef 500),
// which a lost entry never is. Retrieval asks for Candidates hits, so its ef is the larger one.
func (s *Store) findsItself(ctx context.Context, id string, vec []float32) (bool, error) {
	for _, limit := range []int{3, confirmLimit} {
		resp, err := s.client.GraphQL().Get().WithClassName(s.class).
			WithFields(graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "id"}}}).
			WithNearVector(s.client.GraphQL().NearVectorArgBuilder().WithVector(vec)).WithLimit(limit).Do(ctx)
		if err != nil {
			return false, s.wrap(ctx, "index self-check", err)
		}
		if err := gqlErrors("index self-check", resp.Errors); err != nil {
			return false, err
		}
		for _, h := range hitsOf(resp, s.class) {
			if add, _ := h["_additional"].(map[string]any); str(add["id"]) == id {
				return true, nil
			}
		}
	}
	return false, nil
}

// confirmLimit is the limit of findsItself's second search, whose dynamic ef is Weaviate's
// largest by default (dynamicEfMax 500).
const confirmLimit = 64

// Describe says what a failed check means for an operator.
func (c IndexCheck) Describe(class string) string {
	if c.OK() {
		return "the sampled chunks are found by their own vectors" // no count: /readyz answers anyone
	}
	return fmt.Sprintf("the vector index of class %s lost entries: %d of %d sampled chunks are not found by their own vector (Weaviate restarted after a crash?); answers would use partial evidence: repair it (cmd/extract --repair-index; the API repairs in the background unless ARIADNE_VECTOR_INDEX_REPAIR=false)",
		class, len(c.Lost), c.Sampled)
}
