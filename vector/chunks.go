package vector

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/fault"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/ariadne-graphrag/ariadne"
)

var embeddingRE = regexp.MustCompile(`embedder=([^;]+); dim=(\d+)`)

// classDescription records the embedding in the class, where Weaviate keeps it with the schema.
func classDescription(e ariadne.Embedding) string {
	return "Ariadne chunks (" + e.String() + ")"
}

func parseEmbedding(desc string) (ariadne.Embedding, bool) {
	m := embeddingRE.FindStringSubmatch(desc)
	if m == nil {
		return ariadne.Embedding{}, false
	}
	dim, _ := strconv.Atoi(m[2])
	return ariadne.Embedding{Name: m[1], Dim: dim}, true
}

// chunkProperties is the Chunk class schema: ids and filters as `field` tokens, prose stored
// without an inverted index, and search_text — Ariadne's own analysis, done by the caller
// (IndexedChunk.SearchText: textnorm.SearchTerms, Russian stems, transliteration, joined codes) —
// as `whitespace` tokens for BM25.
func chunkProperties() []*models.Property {
	text := func(name, tok, desc string) *models.Property {
		return &models.Property{Name: name, DataType: []string{"text"}, Tokenization: tok, Description: desc}
	}
	yes, no := true, false
	// Read back with a hit, never searched or filtered on: BM25 runs over search_text only, so an
	// inverted index of these (Weaviate builds a filterable and a searchable one for every text
	// property unless told not to) would be written for every chunk and never read.
	stored := func(name, desc string) *models.Property {
		return &models.Property{Name: name, DataType: []string{"text"}, Tokenization: "word", IndexSearchable: &no, IndexFilterable: &no, Description: desc}
	}
	return []*models.Property{
		text("chunk_id", "field", "Ariadne chunk id: <doc id>#<position>-<hash8>; the join key with Neo4j"),
		text("doc_id", "field", "the document's id"),
		{Name: "doc_version", DataType: []string{"int"}},
		text("doc_type", "field", "the document's front matter type"),
		{Name: "position", DataType: []string{"int"}},
		stored("title", "document title"),
		stored("heading", "heading path, ' > '-separated"),
		stored("text", "the chunk's verbatim text"),
		{Name: "search_text", DataType: []string{"text"}, Tokenization: "whitespace", IndexSearchable: &yes,
			IndexFilterable: &no, Description: "BM25 terms of title, heading and text (textnorm.SearchTerms)"},
		text("lang", "field", "document language"),
		{Name: "acl", DataType: []string{"text[]"}, Tokenization: "field", Description: "groups allowed to read"},
		text("updated", "field", "document date, ISO"),
		text("source", "field", "the document's source; absent on objects written before sources (read as 'default')"),
		text("content_key", "field", "sha256 of embedder, title, heading path and text (ariadne.Chunk.ContentKey): reuse the vector"),
		text("analysis", "field", "the analysis search_text was made with (textnorm.AnalysisVersion); absent on objects written before it was stored"),
	}
}

// EnsureClass creates the chunk class for embedding e if it does not exist and adds properties
// missing from an older schema; a class from before sources gets every object's source
// (ariadne.DefaultSource) and content key filled in once (backfillSources). A class built for another embedding is an ErrMismatch error that
// says to re-index.
func (s *Store) EnsureClass(ctx context.Context, e ariadne.Embedding) error {
	ctx = withRetryAfter(ctx)
	cls, err := s.client.Schema().ClassGetter().WithClassName(s.class).Do(ctx)
	if err != nil && !isNotFound(err) {
		return s.wrap(ctx, "get class", err)
	}
	if err != nil || cls == nil {
		cls := &models.Class{
			Class:           s.class,
			Description:     classDescription(e),
			Vectorizer:      "none",
			Properties:      chunkProperties(),
			VectorIndexType: "hnsw",
			VectorIndexConfig: map[string]any{
				"distance": "cosine",
			},
		}
		s.placement.apply(cls)
		err = s.client.Schema().ClassCreator().WithClass(cls).Do(ctx)
		if err != nil {
			if strings.Contains(err.Error(), "already exists") {
				return s.EnsureClass(ctx, e)
			}
			return s.wrap(ctx, "create class", err)
		}
		return nil
	}
	if err := s.placement.check(s.class, cls); err != nil {
		return err
	}
	if have, ok := parseEmbedding(cls.Description); ok && have != e {
		return fmt.Errorf("vector: class %s holds vectors of %s, not %s; re-index it (cmd/extract --reindex) or set ARIADNE_WEAVIATE_CLASS to another class: %w",
			s.class, have, e, ariadne.ErrMismatch)
	}
	have := map[string]bool{}
	for _, p := range cls.Properties {
		have[p.Name] = true
	}
	for _, p := range chunkProperties() {
		if !have[p.Name] {
			if err := s.client.Schema().PropertyCreator().WithClassName(s.class).WithProperty(p).Do(ctx); err != nil {
				return s.wrap(ctx, "add property "+p.Name, err)
			}
		}
	}
	if !have["content_key"] {
		// A class from before sources: its objects become the default source's, with content keys.
		if _, err := s.backfillSources(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// ClassEmbedding returns the embedding the class was built for; ok is false when the class does
// not exist (nothing ingested).
func (s *Store) ClassEmbedding(ctx context.Context) (ariadne.Embedding, bool, error) {
	ctx = withRetryAfter(ctx)
	cls, err := s.client.Schema().ClassGetter().WithClassName(s.class).Do(ctx)
	if err != nil {
		if isNotFound(err) {
			return ariadne.Embedding{}, false, nil
		}
		return ariadne.Embedding{}, false, s.wrap(ctx, "get class", err)
	}
	e, ok := parseEmbedding(cls.Description)
	if !ok {
		return ariadne.Embedding{}, false, fmt.Errorf("vector: class %s has no embedder record in its description: %w", s.class, ariadne.ErrMismatch)
	}
	return e, true, nil
}

// DropClass deletes the class and every object in it, and its evidence-unit vectors' class.
func (s *Store) DropClass(ctx context.Context) error {
	ctx = withRetryAfter(ctx)
	for _, class := range []string{s.class, s.UnitClass()} {
		err := s.client.Schema().ClassDeleter().WithClassName(class).Do(ctx)
		if err != nil && !isNotFound(err) {
			return s.wrap(ctx, "delete class "+class, err)
		}
	}
	return nil
}

// Upsert writes chunks with their vectors and BM25 terms in batches of 100. Object ids are
// ObjectID(chunk id), so writing a chunk again overwrites it. Every per-object error is returned
// in Failed; err is for failures of whole requests. A chunk without a vector is ErrInvalid.
func (s *Store) Upsert(ctx context.Context, chunks []ariadne.IndexedChunk) (ariadne.UpsertResult, error) {
	ctx = withRetryAfter(ctx)
	var res ariadne.UpsertResult
	for _, c := range chunks {
		if len(c.Vector) == 0 {
			return res, fmt.Errorf("vector: chunk %s has no vector: %w", c.ID, ariadne.ErrInvalid)
		}
	}
	for start := 0; start < len(chunks); start += 100 {
		end := min(start+100, len(chunks))
		objs := make([]*models.Object, 0, end-start)
		byID := map[string]string{}
		for i := start; i < end; i++ {
			c := chunks[i]
			id := ObjectID(c.ID)
			byID[id] = c.ID
			objs = append(objs, &models.Object{Class: s.class, ID: strfmt.UUID(id), Vector: c.Vector, Properties: chunkToProperties(c)})
		}
		resp, err := s.client.Batch().ObjectsBatcher().WithObjects(objs...).WithConsistencyLevel(s.placement.Consistency).Do(ctx)
		if err != nil {
			return res, s.wrap(ctx, "batch upsert", err)
		}
		if len(resp) != len(objs) {
			return res, fmt.Errorf("vector: batch answered for %d of %d objects", len(resp), len(objs))
		}
		for _, r := range resp {
			if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				msgs := make([]string, 0, len(r.Result.Errors.Error))
				for _, e := range r.Result.Errors.Error {
					msgs = append(msgs, e.Message)
				}
				res.Failed = append(res.Failed, ariadne.ObjectError{ChunkID: byID[string(r.ID)], Message: strings.Join(msgs, "; ")})
				continue
			}
			res.Written++
		}
	}
	return res, nil
}

func chunkToProperties(c ariadne.IndexedChunk) map[string]any {
	acl := c.ACL
	if len(acl) == 0 {
		acl = []string{ariadne.PublicGroup}
	}
	search := c.SearchText
	return map[string]any{
		"chunk_id": c.ID, "doc_id": c.DocID, "doc_version": c.DocVersion, "doc_type": c.DocType,
		"position": c.Position, "title": c.Title, "heading": c.HeadingPath(), "text": c.Text,
		"search_text": search, "lang": c.Lang, "acl": acl, "updated": c.Updated,
		"source": sourceName(c.Source), "content_key": c.ContentKey, "analysis": c.Analysis,
	}
}

// DeleteChunks deletes the objects of the given chunk ids (missing ones are ignored) and returns
// how many were deleted.
func (s *Store) DeleteChunks(ctx context.Context, chunkIDs []string) (int, error) {
	ctx = withRetryAfter(ctx)
	deleted := 0
	for start := 0; start < len(chunkIDs); start += 200 {
		ids := chunkIDs[start:min(start+200, len(chunkIDs))]
		resp, err := s.client.Batch().ObjectsBatchDeleter().WithClassName(s.class).WithOutput("minimal").WithConsistencyLevel(s.placement.Consistency).
			WithWhere(filters.Where().WithPath([]string{"chunk_id"}).WithOperator(filters.ContainsAny).WithValueText(ids...)).
			Do(ctx)
		if err != nil {
			return deleted, s.wrap(ctx, "batch delete", err)
		}
		if resp != nil && resp.Results != nil {
			deleted += int(resp.Results.Successful)
			if resp.Results.Failed > 0 {
				return deleted, fmt.Errorf("vector: %d objects could not be deleted", resp.Results.Failed)
			}
		}
	}
	return deleted, nil
}

// ChunkIDs lists every chunk id stored in the class (cursor over all objects), sorted.
func (s *Store) ChunkIDs(ctx context.Context) ([]string, error) {
	ctx = withRetryAfter(ctx)
	var out []string
	err := s.scan(ctx, "list chunk ids", 1000, []graphql.Field{{Name: "chunk_id"}, {Name: "_additional", Fields: []graphql.Field{{Name: "id"}}}},
		func(hits []map[string]any) error {
			for _, h := range hits {
				out = append(out, str(h["chunk_id"]))
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// ChunkTexts returns the text and acl of every chunk object in the class (cursor over all
// objects), in Weaviate's id order; only Text and ACL are set.
func (s *Store) ChunkTexts(ctx context.Context) ([]ariadne.Chunk, error) {
	ctx = withRetryAfter(ctx)
	var out []ariadne.Chunk
	err := s.scan(ctx, "list chunk texts", 500, []graphql.Field{{Name: "text"}, {Name: "acl"}, {Name: "_additional", Fields: []graphql.Field{{Name: "id"}}}},
		func(hits []map[string]any) error {
			for _, h := range hits {
				out = append(out, ariadne.Chunk{Text: str(h["text"]), ACL: strs(h["acl"])})
			}
			return nil
		})
	return out, err
}

// StoredVectors lists every chunk object in the class with its source and analysis (cursor over
// all objects), sorted by chunk id. Objects written before sources have the source
// ariadne.DefaultSource; those written before analyses were stored have the analysis "".
func (s *Store) StoredVectors(ctx context.Context) ([]ariadne.StoredVector, error) {
	ctx = withRetryAfter(ctx)
	var out []ariadne.StoredVector
	err := s.scan(ctx, "list stored vectors", 1000,
		[]graphql.Field{{Name: "chunk_id"}, {Name: "source"}, {Name: "analysis"}, {Name: "_additional", Fields: []graphql.Field{{Name: "id"}}}},
		func(hits []map[string]any) error {
			for _, h := range hits {
				out = append(out, ariadne.StoredVector{ChunkID: str(h["chunk_id"]), Source: sourceName(str(h["source"])), Analysis: str(h["analysis"])})
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b ariadne.StoredVector) int { return strings.Compare(a.ChunkID, b.ChunkID) })
	return out, nil
}

// VectorsByContentKey returns the stored vector of each content key the class holds
// (ariadne.Chunk.ContentKey) in an object every reader of readers (an acl) may read — public, or
// restricted to groups that include all of readers (ariadne.ReadersWithin) — looked up 100 keys
// per query; other keys are absent. When several objects share a key, any one of them answers
// (their vectors are the same embedding of the same text). Reuse is scoped so: a writer whose
// chunk's text is that of a chunk it may not read would otherwise see its write skip the
// embedder, and time its way to a restricted chunk's exact text (an outside tester did).
func (s *Store) VectorsByContentKey(ctx context.Context, keys, readers []string) (map[string][]float32, error) {
	readable := filters.Where().WithPath([]string{"acl"}).WithOperator(filters.ContainsAny).WithValueText(ariadne.PublicGroup)
	if !slices.Contains(readers, ariadne.PublicGroup) && len(readers) > 0 {
		readable = filters.Where().WithOperator(filters.Or).WithOperands([]*filters.WhereBuilder{readable,
			filters.Where().WithPath([]string{"acl"}).WithOperator(filters.ContainsAll).WithValueText(readers...)})
	}
	return s.vectorsByKey(ctx, "vectors by content key", s.class, "content_key", 4, "", keys, readable)
}

// vectorsByKey returns the vector of each key that objects of class hold in their text property
// prop, looked up 100 keys per query with room for perKey objects a key and the consistency level
// consistency ("" sends none); keys no object has (and all keys, when the class does not exist)
// are absent, and when several objects share a key the first one read answers. what names the
// operation in errors.
func (s *Store) vectorsByKey(ctx context.Context, what, class, prop string, perKey int, consistency string, keys []string, and ...*filters.WhereBuilder) (map[string][]float32, error) {
	ctx = withRetryAfter(ctx)
	out := map[string][]float32{}
	for start := 0; start < len(keys); start += 100 {
		batch := keys[start:min(start+100, len(keys))]
		where := filters.Where().WithPath([]string{prop}).WithOperator(filters.ContainsAny).WithValueText(batch...)
		if len(and) > 0 {
			where = filters.Where().WithOperator(filters.And).WithOperands(append([]*filters.WhereBuilder{where}, and...))
		}
		resp, err := s.client.GraphQL().Get().WithClassName(class).
			WithFields(graphql.Field{Name: prop}, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "vector"}}}).
			WithWhere(where).
			WithLimit(perKey * len(batch)).WithConsistencyLevel(consistency).Do(ctx)
		if err != nil {
			if isNotFound(err) {
				return out, nil
			}
			return nil, s.wrap(ctx, what, err)
		}
		if len(resp.Errors) > 0 && noClass(resp.Errors[0].Message) {
			return out, nil
		}
		if err := gqlErrors(what, resp.Errors); err != nil {
			return nil, err
		}
		for _, h := range hitsOf(resp, class) {
			k := str(h[prop])
			add, _ := h["_additional"].(map[string]any)
			if _, seen := out[k]; k == "" || seen {
				continue
			}
			if v := vectorOf(add); len(v) > 0 {
				out[k] = v
			}
		}
	}
	return out, nil
}

func sourceName(s string) string {
	if s == "" {
		return ariadne.DefaultSource
	}
	return s
}

// Count returns how many chunk objects the class holds (0 when it does not exist).
func (s *Store) Count(ctx context.Context) (int, error) {
	return s.count(ctx, nil)
}

// CountReadable returns how many chunk objects the class holds that a caller with groups may
// read (the acl filter every search applies).
func (s *Store) CountReadable(ctx context.Context, groups []string) (int, error) {
	if len(groups) == 0 {
		return 0, nil
	}
	return s.count(ctx, filters.Where().WithPath([]string{"acl"}).WithOperator(filters.ContainsAny).WithValueText(groups...))
}

// StaleAnalysis returns how many of the class's chunk objects hold BM25 terms made by another
// analysis than version (textnorm.AnalysisVersion; objects from before analyses were recorded
// count as stale), and how many objects it holds: two aggregate queries. A sync rewrites them
// (ingest: Plan.Reanalyze).
func (s *Store) StaleAnalysis(ctx context.Context, version string) (stale, total int, err error) {
	if total, err = s.count(ctx, nil); err != nil || total == 0 {
		return 0, total, err
	}
	current, err := s.count(ctx, filters.Where().WithPath([]string{"analysis"}).WithOperator(filters.Equal).WithValueText(version))
	if err != nil {
		if strings.Contains(err.Error(), "no such prop") {
			return total, total, nil // a class from before analyses were recorded (EnsureClass adds the property)
		}
		return 0, total, err
	}
	return total - current, total, nil
}

// count is Count of the objects where selects (all when nil).
func (s *Store) count(ctx context.Context, where *filters.WhereBuilder) (int, error) {
	ctx = withRetryAfter(ctx)
	q := s.client.GraphQL().Aggregate().WithClassName(s.class).
		WithFields(graphql.Field{Name: "meta", Fields: []graphql.Field{{Name: "count"}}})
	if where != nil {
		q = q.WithWhere(where)
	}
	resp, err := q.Do(ctx)
	if err != nil {
		if isNotFound(err) {
			return 0, nil
		}
		return 0, s.wrap(ctx, "count", err)
	}
	if len(resp.Errors) > 0 {
		if noClass(resp.Errors[0].Message) {
			return 0, nil
		}
		return 0, gqlErrors("count", resp.Errors)
	}
	agg, _ := resp.Data["Aggregate"].(map[string]any)
	rows, _ := agg[s.class].([]any)
	if len(rows) == 0 {
		return 0, nil
	}
	meta, _ := rows[0].(map[string]any)["meta"].(map[string]any)
	n, _ := meta["count"].(float64)
	return int(n), nil
}

func hitsOf(resp *models.GraphQLResponse, class string) []map[string]any {
	get, _ := resp.Data["Get"].(map[string]any)
	list, _ := get[class].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func isNotFound(err error) bool {
	var we *fault.WeaviateClientError
	if errors.As(err, &we) && we.StatusCode == 404 {
		return true
	}
	// A Weaviate without any class answers GraphQL with 422 "no graphql provider present" (in
	// 1.29, wrapped in a client error without a status): nothing is ingested anywhere yet.
	return err != nil && (strings.Contains(err.Error(), "status code: 404") || strings.Contains(err.Error(), emptySchemaMessage))
}

const emptySchemaMessage = "no graphql provider present"
