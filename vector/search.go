package vector

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"

	"github.com/ariadne-graphrag/ariadne"
)

func validateQuery(mode ariadne.SearchMode, q ariadne.SearchQuery) error {
	if len(q.Groups) == 0 {
		return fmt.Errorf("vector: search without permission groups: %w", ariadne.ErrInvalid)
	}
	switch mode {
	case ariadne.SearchVector:
		if len(q.Vector) == 0 {
			return fmt.Errorf("vector: vector search needs a query vector: %w", ariadne.ErrInvalid)
		}
	case ariadne.SearchBM25:
		if strings.TrimSpace(q.Text) == "" {
			return fmt.Errorf("vector: BM25 search needs query text: %w", ariadne.ErrInvalid)
		}
	case ariadne.SearchHybrid:
		if q.Alpha < 0 || q.Alpha > 1 {
			return fmt.Errorf("vector: hybrid alpha %v outside [0, 1]: %w", q.Alpha, ariadne.ErrInvalid)
		}
		if len(q.Vector) == 0 || strings.TrimSpace(q.Text) == "" {
			return fmt.Errorf("vector: hybrid search needs query text and a query vector: %w", ariadne.ErrInvalid)
		}
		if q.Fusion != ariadne.FusionRelativeScore && q.Fusion != ariadne.FusionRanked {
			return fmt.Errorf("vector: hybrid fusion %q (want relative_score or ranked): %w", q.Fusion, ariadne.ErrInvalid)
		}
	default:
		return fmt.Errorf("vector: unknown search mode %q: %w", mode, ariadne.ErrInvalid)
	}
	return nil
}

// Search runs one search and returns chunks ranked best first. The permission filter is part of
// the same query, so a chunk the caller may not read is never returned. Both of Weaviate's failure
// channels are checked; an unreachable server is ErrUnavailable.
func (s *Store) Search(ctx context.Context, mode ariadne.SearchMode, q ariadne.SearchQuery) ([]ariadne.ScoredChunk, error) {
	ctx = withRetryAfter(ctx)
	if err := validateQuery(mode, q); err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	if s.grpc != nil {
		return s.grpc.search(ctx, s, mode, q, limit)
	}
	where := filters.Where().WithPath([]string{"acl"}).WithOperator(filters.ContainsAny).WithValueText(q.Groups...)
	if len(q.ChunkIDs) > 0 {
		where = filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
			where,
			filters.Where().WithPath([]string{"chunk_id"}).WithOperator(filters.ContainsAny).WithValueText(q.ChunkIDs...),
		})
	}
	fields := resultFields()
	if q.ScoresOnly {
		fields = scoreFields()
	}
	if q.WithVectors {
		fields = withVectorField(fields)
	}
	get := s.client.GraphQL().Get().WithClassName(s.class).WithFields(fields...).WithWhere(where).WithLimit(limit).
		WithConsistencyLevel(s.placement.Consistency)
	terms, ok := keywordQuery(mode, q)
	if !ok {
		return nil, nil // only function words: BM25 has nothing to match
	}
	switch mode {
	case ariadne.SearchVector:
		get = get.WithNearVector(s.client.GraphQL().NearVectorArgBuilder().WithVector(q.Vector))
	case ariadne.SearchBM25:
		get = get.WithBM25(s.client.GraphQL().Bm25ArgBuilder().WithQuery(terms).WithProperties("search_text"))
	case ariadne.SearchHybrid:
		fusion := graphql.RelativeScore
		if q.Fusion == ariadne.FusionRanked {
			fusion = graphql.Ranked
		}
		get = get.WithHybrid(s.client.GraphQL().HybridArgumentBuilder().WithQuery(terms).WithVector(q.Vector).
			WithAlpha(float32(q.Alpha)).WithFusionType(fusion).WithProperties([]string{"search_text"}))
	}
	resp, err := get.Do(ctx)
	if err != nil {
		if isNotFound(err) {
			return nil, nil // nothing ingested yet: the class, or any class, does not exist
		}
		return nil, s.wrap(ctx, string(mode)+" search", err)
	}
	if len(resp.Errors) > 0 && noClass(resp.Errors[0].Message) {
		return nil, nil // nothing ingested yet: the class does not exist
	}
	if err := gqlErrors(string(mode)+" search", resp.Errors); err != nil {
		return nil, err
	}
	hits := hitsOf(resp, s.class)
	out := make([]ariadne.ScoredChunk, 0, len(hits))
	for _, h := range hits {
		sc := ariadne.ScoredChunk{Chunk: chunkFromProperties(h), Sources: []string{string(mode)}}
		add, _ := h["_additional"].(map[string]any)
		if vs, ok := add["vector"].([]any); ok {
			sc.Vector = make([]float32, 0, len(vs))
			for _, x := range vs {
				if f, ok := number(x); ok {
					sc.Vector = append(sc.Vector, float32(f))
				}
			}
		}
		switch mode {
		case ariadne.SearchVector:
			if d, ok := number(add["distance"]); ok {
				sc.Score = 1 - d
			}
		default:
			if v, ok := number(add["score"]); ok {
				sc.Score = v
			}
		}
		out = append(out, sc)
	}
	return out, nil
}

// keywordQuery is the keyword side of a BM25 or hybrid search: q.Terms joined by spaces, or for
// hybrid the question's text when no term is left. ok is false for a BM25 search with no term
// (only function words), which has nothing to match.
func keywordQuery(mode ariadne.SearchMode, q ariadne.SearchQuery) (terms string, ok bool) {
	terms = strings.Join(q.Terms, " ")
	switch {
	case terms != "":
		return terms, true
	case mode == ariadne.SearchBM25:
		return "", false
	case mode == ariadne.SearchHybrid:
		return q.Text, true
	}
	return "", true
}

func resultFields() []graphql.Field {
	fields := make([]graphql.Field, 0, len(resultProperties)+1)
	for _, n := range resultProperties {
		fields = append(fields, graphql.Field{Name: n})
	}
	return append(fields, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "score"}, {Name: "distance"}}})
}

// withVectorField adds the stored embedding to the _additional field of fields.
func withVectorField(fields []graphql.Field) []graphql.Field {
	out := make([]graphql.Field, 0, len(fields))
	for _, f := range fields {
		if f.Name == "_additional" {
			f = graphql.Field{Name: f.Name, Fields: append(append([]graphql.Field(nil), f.Fields...), graphql.Field{Name: "vector"})}
		}
		out = append(out, f)
	}
	return out
}

// scoreFields are the fields of a ScoresOnly search: the chunk id and the score.
func scoreFields() []graphql.Field {
	return []graphql.Field{{Name: "chunk_id"},
		{Name: "_additional", Fields: []graphql.Field{{Name: "score"}, {Name: "distance"}}}}
}

func chunkFromProperties(h map[string]any) ariadne.Chunk {
	c := ariadne.Chunk{ID: str(h["chunk_id"]), DocID: str(h["doc_id"]), DocType: str(h["doc_type"]),
		Title: str(h["title"]), Text: str(h["text"]), Lang: str(h["lang"]), Updated: str(h["updated"])}
	if hp := str(h["heading"]); hp != "" {
		c.Heading = strings.Split(hp, " > ")
	}
	if v, ok := number(h["position"]); ok {
		c.Position = int(v)
	}
	if v, ok := number(h["doc_version"]); ok {
		c.DocVersion = int(v)
	}
	if acl, ok := h["acl"].([]any); ok {
		for _, g := range acl {
			c.ACL = append(c.ACL, str(g))
		}
	}
	return c
}

// number reads a GraphQL number, which Weaviate sends as a JSON number or (for _additional
// scores) a string.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// Chunks reads the chunks with the given ids that one of groups may read, in the order of ids
// (ids not stored or not readable are left out); nothing without ids. It is the chunk index's
// copy of what graph.Store.Chunks reads from Neo4j — the same properties, ACL and text — for
// when the graph store is unavailable (httpapi's GET /v1/chunks/{id}). Errors wrap
// ariadne.ErrInvalid without groups and ariadne.ErrUnavailable when Weaviate cannot be reached.
func (s *Store) Chunks(ctx context.Context, ids, groups []string) ([]ariadne.Chunk, error) {
	if len(groups) == 0 {
		return nil, fmt.Errorf("vector: chunks without permission groups: %w", ariadne.ErrInvalid)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	where := filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
		filters.Where().WithPath([]string{"acl"}).WithOperator(filters.ContainsAny).WithValueText(groups...),
		filters.Where().WithPath([]string{"chunk_id"}).WithOperator(filters.ContainsAny).WithValueText(ids...),
	})
	resp, err := s.client.GraphQL().Get().WithClassName(s.class).WithFields(resultFields()...).WithWhere(where).
		WithLimit(len(ids)).WithConsistencyLevel(s.placement.Consistency).Do(ctx)
	if err != nil {
		if isNotFound(err) {
			return nil, nil
		}
		return nil, s.wrap(ctx, "read chunks", err)
	}
	if len(resp.Errors) > 0 && noClass(resp.Errors[0].Message) {
		return nil, nil
	}
	if err := gqlErrors("read chunks", resp.Errors); err != nil {
		return nil, err
	}
	byID := map[string]ariadne.Chunk{}
	for _, h := range hitsOf(resp, s.class) {
		c := chunkFromProperties(h)
		byID[c.ID] = c
	}
	out := make([]ariadne.Chunk, 0, len(byID))
	for _, id := range ids {
		if c, ok := byID[id]; ok && ariadne.CanRead(c.ACL, groups) {
			out = append(out, c)
			delete(byID, id)
		}
	}
	return out, nil
}
