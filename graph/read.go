package graph

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// MaxHops is the longest path Paths and Expand return.
const MaxHops = 4

// PathQuery selects paths.
type PathQuery struct {
	From, To  []string // entity keys; Paths connects any From to any To
	MaxHops   int      // 1..MaxHops
	Groups    []string // the caller's permission groups: an edge needs a readable chunk
	RelTypes  []string // allowed relationship types; empty means every type
	Limit     int      // paths returned at most (default 20)
	HubDegree int      // 0 means the default
}

// pathRules keep a path p only when every edge has readable supporting chunks of an allowed type,
// every node is visible to the caller and no inner node is a hub — more than $hub relationships
// the caller may read (readableDegree: restricted relationships make no entity a hub for a caller
// who cannot read them); shared by Paths and Expand (parameters, no user text).
var pathRules = `
  AND all(r IN relationships(p) WHERE r.chunk_ids IS NOT NULL
          AND (size($types) = 0 OR type(r) IN $types)
          AND any(g IN r.acl WHERE g IN $groups))
  AND all(n IN nodes(p) WHERE any(g IN coalesce(n.acl, []) WHERE g IN $groups))
  AND all(n IN nodes(p)[1..-1] WHERE ` + readableDegree("n") + ` <= $hub)
RETURN p
ORDER BY length(p), [n IN nodes(p) | n.key], [r IN relationships(p) | type(r)]
LIMIT $limit`

var pathsCypher = `
MATCH (a:Entity) WHERE ` + visibleAs("a", "$from", "$fromUIDs") + `
MATCH (b:Entity) WHERE ` + visibleAs("b", "$to", "$toUIDs") + ` AND b <> a
MATCH p = allShortestPaths((a)-[*..4]-(b))
WHERE length(p) <= $maxHops` + pathRules

// visibleAs is matchVisible with other parameter names for the key lists.
func visibleAs(v, keys, uids string) string {
	return strings.NewReplacer("$keys", keys, "$uids", uids).Replace(matchVisible(v))
}

// Paths returns the shortest paths (up to MaxHops) between any entity of From and any of To,
// over allowed relationship types, where every hop is supported by at least one chunk the caller
// may read. Each edge lists only the readable supporting chunk ids. Shortest first; paths of one
// length by their nodes' entity keys, so a repeated query returns the same paths in the same order.
func (s *Store) Paths(ctx context.Context, q PathQuery) ([]ariadne.Path, error) {
	if len(q.From) == 0 || len(q.To) == 0 {
		return nil, nil
	}
	params, err := pathParams(q)
	if err != nil {
		return nil, err
	}
	params["from"], params["fromUIDs"] = splitKeys(q.From)
	params["to"], params["toUIDs"] = splitKeys(q.To)
	res, err := s.readRows(ctx, pathsCypher, []string{"p"}, params)
	if err != nil {
		return nil, translate("paths", err)
	}
	return s.toPaths(ctx, res.Records, q.Groups)
}

var expandCypher = `
MATCH (a:Entity) WHERE ` + visibleAs("a", "$from", "$fromUIDs") + `
MATCH p = (a)-[*1..2]-(b:Entity)
WHERE length(p) <= $maxHops AND b <> a` + pathRules

// Expand returns the paths of one or two hops (MaxHops caps it at 2 here) that start at any entity
// of From, with the same permission and type rules as Paths.
func (s *Store) Expand(ctx context.Context, q PathQuery) ([]ariadne.Path, error) {
	if len(q.From) == 0 {
		return nil, nil
	}
	if q.MaxHops > 2 {
		q.MaxHops = 2
	}
	params, err := pathParams(q)
	if err != nil {
		return nil, err
	}
	params["from"], params["fromUIDs"] = splitKeys(q.From)
	res, err := s.readRows(ctx, expandCypher, []string{"p"}, params)
	if err != nil {
		return nil, translate("expand", err)
	}
	return s.toPaths(ctx, res.Records, q.Groups)
}

func pathParams(q PathQuery) (map[string]any, error) {
	if q.MaxHops < 1 || q.MaxHops > MaxHops {
		return nil, fmt.Errorf("graph: max hops %d outside 1..%d: %w", q.MaxHops, MaxHops, ariadne.ErrInvalid)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	hub := q.HubDegree
	if hub <= 0 {
		hub = ariadne.HubDegree
	}
	types := q.RelTypes
	if types == nil {
		types = []string{}
	}
	return map[string]any{"maxHops": q.MaxHops, "groups": q.Groups, "types": types, "limit": limit, "hub": hub}, nil
}

const readableChunksCypher = `
UNWIND $ids AS cid
MATCH (c:Chunk {id: cid})
WHERE any(g IN c.acl WHERE g IN $groups)
RETURN c.id AS id`

// toPaths maps path records to domain paths: nodes as the caller's views, and on each edge only
// the chunk ids the caller may read.
func (s *Store) toPaths(ctx context.Context, recs []*neo4j.Record, groups []string) ([]ariadne.Path, error) {
	var all, raw []string
	paths := make([]dbtype.Path, 0, len(recs))
	for _, r := range recs {
		p, ok := get(r, "p").(dbtype.Path)
		if !ok {
			return nil, fmt.Errorf("graph: path record without a path: %w", ariadne.ErrUnavailable)
		}
		paths = append(paths, p)
		for _, rel := range p.Relationships {
			all = append(all, strs(rel.Props["chunk_ids"])...)
		}
		for _, n := range p.Nodes {
			raw = append(raw, str(n.Props["key"]))
		}
	}
	readable := map[string]bool{}
	if len(all) > 0 {
		res, err := s.readRows(ctx, readableChunksCypher, []string{"id"}, map[string]any{"ids": dedupe(all), "groups": groups})
		if err != nil {
			return nil, translate("readable chunks", err)
		}
		for _, r := range res.Records {
			readable[str(get(r, "id"))] = true
		}
	}
	views, err := s.nodeViews(ctx, raw, groups)
	if err != nil {
		return nil, err
	}
	out := make([]ariadne.Path, 0, len(paths))
	for _, p := range paths {
		keyOf := map[string]string{}
		var path ariadne.Path
		ok := true
		for _, n := range p.Nodes {
			v, seen := views[str(n.Props["key"])]
			if !seen {
				ok = false // defensive: the query already required visible nodes
				break
			}
			keyOf[n.ElementId] = v.entity.Key
			path.Nodes = append(path.Nodes, v.node())
		}
		for _, rel := range p.Relationships {
			if !ok {
				break
			}
			var ids []string
			for _, id := range strs(rel.Props["chunk_ids"]) {
				if readable[id] {
					ids = append(ids, id)
				}
			}
			if len(ids) == 0 {
				ok = false // defensive: the query already required a readable chunk per hop
				break
			}
			path.Edges = append(path.Edges, ariadne.PathEdge{From: keyOf[rel.StartElementId], To: keyOf[rel.EndElementId], Type: rel.Type, ChunkIDs: ids})
		}
		if ok {
			out = append(out, path)
		}
	}
	return out, nil
}

func dedupe(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

// Audit counts violations of the graph's invariants; every field is zero in a healthy graph.
type Audit struct {
	EntitiesWithoutSupport int // no mention, no relation, no document
	RelationsWithoutChunks int // empty chunk_ids
	DanglingProvenance     int // chunk ids on relations that name no stored chunk
	ChunksWithoutDocument  int
	DuplicateEntityNames   int // two undocumented entities of one type with the same name (a missed merge)
}

const auditCypher = `
CALL () { MATCH (e:Entity) WHERE NOT EXISTS { (e)--() } RETURN count(e) AS lonely }
CALL () { MATCH (:Entity)-[r]->(:Entity) WHERE r.chunk_ids IS NOT NULL AND size(r.chunk_ids) = 0 RETURN count(r) AS empty }
CALL () { MATCH (:Entity)-[r]->(:Entity) WHERE r.chunk_ids IS NOT NULL
          UNWIND r.chunk_ids AS cid
          WITH cid WHERE NOT EXISTS { MATCH (:Chunk {id: cid}) }
          RETURN count(cid) AS dangling }
CALL () { MATCH (c:Chunk) WHERE NOT EXISTS { (:Document)-[:HAS_CHUNK]->(c) } RETURN count(c) AS orphanChunks }
CALL () { MATCH (e:Entity) WHERE e.doc_id IS NULL
          WITH e.type AS t, toLower(e.name) AS n, count(*) AS k WHERE k > 1 RETURN count(*) AS dups }
RETURN lonely, empty, dangling, orphanChunks, dups`

// Audit checks the graph's invariants.
func (s *Store) Audit(ctx context.Context) (Audit, error) {
	res, err := s.read(ctx, auditCypher, nil)
	if err != nil {
		return Audit{}, translate("audit", err)
	}
	r := res.Records[0]
	var a Audit
	for _, f := range []struct {
		k string
		v *int
	}{{"lonely", &a.EntitiesWithoutSupport}, {"empty", &a.RelationsWithoutChunks}, {"dangling", &a.DanglingProvenance},
		{"orphanChunks", &a.ChunksWithoutDocument}, {"dups", &a.DuplicateEntityNames}} {
		if *f.v, err = count(r, f.k); err != nil {
			return Audit{}, err
		}
	}
	return a, nil
}

const chunksCypher = `
UNWIND $ids AS cid
MATCH (c:Chunk {id: cid})
WHERE any(g IN c.acl WHERE g IN $groups)
MATCH (d:Document)-[:HAS_CHUNK]->(c)
RETURN c.id AS id, c.doc_id AS doc_id, c.position AS position, c.heading AS heading, c.text AS text,
       c.acl AS acl, c.lang AS lang, d.title AS title, d.type AS doc_type, d.version AS version,
       d.updated AS updated, c.start AS start, c.end AS end`

// Chunks returns the chunks with the given ids that the caller may read, in the order of ids.
func (s *Store) Chunks(ctx context.Context, ids []string, groups []string) ([]ariadne.Chunk, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	res, err := s.readRows(ctx, chunksCypher, []string{"id", "doc_id", "position", "heading", "text", "acl", "lang", "title", "doc_type", "version", "updated", "start", "end"}, map[string]any{"ids": ids, "groups": groups})
	if err != nil {
		return nil, translate("chunks", err)
	}
	byID := map[string]ariadne.Chunk{}
	for _, r := range res.Records {
		c := ariadne.Chunk{ID: str(get(r, "id")), DocID: str(get(r, "doc_id")), Text: str(get(r, "text")),
			Title: str(get(r, "title")), DocType: str(get(r, "doc_type")), Lang: str(get(r, "lang")),
			ACL: strs(get(r, "acl")), Updated: str(get(r, "updated"))}
		if h := str(get(r, "heading")); h != "" {
			c.Heading = strings.Split(h, " > ")
		}
		c.Position = toInt(get(r, "position"))
		c.DocVersion = toInt(get(r, "version"))
		c.Start, c.End = toInt(get(r, "start")), toInt(get(r, "end"))
		byID[c.ID] = c
	}
	out := make([]ariadne.Chunk, 0, len(byID))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			out = append(out, c)
		}
	}
	return out, nil
}

func toInt(v any) int {
	n, _ := v.(int64)
	return int(n)
}

// QueryReadOnly runs one Cypher statement with parameters in a read transaction and returns its
// rows. Neo4j rejects writes in a read transaction, so tools (and the Browser query tests) can run
// arbitrary statements safely.
func (s *Store) QueryReadOnly(ctx context.Context, cypher string, params map[string]any) ([]map[string]any, error) {
	sess := s.driver.NewSession(ctx, s.sessionConfig(neo4j.AccessModeRead))
	defer sess.Close(context.WithoutCancel(ctx))
	rows, err := sess.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, s.cy(cypher), params)
		if err != nil {
			return nil, err
		}
		recs, err := res.Collect(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]map[string]any, 0, len(recs))
		for _, r := range recs {
			out = append(out, r.AsMap())
		}
		return out, nil
	})
	if err != nil {
		return nil, translate("read-only query", err)
	}
	return rows.([]map[string]any), nil
}

const candidatesCypher = `
CALL db.index.fulltext.queryNodes('` + EntityFulltextIndex + `', $query) YIELD node, score
WHERE any(g IN coalesce(node.acl, []) WHERE g IN $groups)
RETURN node.key AS raw, score
ORDER BY score DESC, raw
LIMIT $limit`

// EntityCandidates asks the entity fulltext index (names, aliases and their phonetic Latin keys)
// for entities whose names share words with text, among those the caller (groups) may see, each
// as the caller's view (see views.go): each content word is searched as written, in its phonetic
// Latin form, and, for longer words, as a prefix (so inflected forms such as «Донского» reach
// «Донской»). The text is data: Lucene syntax characters are escaped. Best match first by the
// names the caller may see (visibleNameScore; equal scores by entity key), at most limit (default
// 50). The index's own score counts every spelling of an entity, those of restricted chunks too,
// so it only chooses a pool of candidatePool(limit) (security audit, stop 60: a management memo
// spelling a public company otherwise moved it first, and another out of the anonymous list).
func (s *Store) EntityCandidates(ctx context.Context, text string, groups []string, limit int) ([]ariadne.EntityCandidate, error) {
	q := luceneQuery(text)
	if q == "" || len(groups) == 0 {
		return nil, nil
	}
	if limit <= 0 {
		limit = 50
	}
	res, err := s.readRows(ctx, candidatesCypher, []string{"raw", "score"}, map[string]any{"query": q, "limit": candidatePool(limit), "groups": groups})
	if err != nil {
		if noIndex(err) {
			return nil, nil // nothing ingested into this graph yet: no schema, no entities
		}
		return nil, translate("entity candidates", err)
	}
	views, err := s.recordViews(ctx, res.Records, groups)
	if err != nil {
		return nil, err
	}
	forms := textnorm.LinkForms(text)
	out := make([]ariadne.EntityCandidate, 0, len(res.Records))
	for _, r := range res.Records {
		v, ok := views[str(get(r, "raw"))]
		if !ok {
			continue
		}
		out = append(out, ariadne.EntityCandidate{StoredEntity: v.entity, Degree: v.degree, Score: visibleNameScore(forms, v.entity.Entity)})
	}
	slices.SortStableFunc(out, func(a, b ariadne.EntityCandidate) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Key, b.Key))
	})
	return out[:min(len(out), limit)], nil
}

// candidatePool is how many of the index's best matches EntityCandidates ranks again for a list
// of limit: a pool so much larger that restricted spellings, which raise an entity's index score,
// push a visible match out of it only among hundreds of matches of the same words.
func candidatePool(limit int) int { return max(8*limit, 400) }

// visibleNameScore scores an entity against the link forms of a text by the names the caller sees
// (e, a view: its name and visible aliases): each form a word of those names has counts 1 — 0.5
// as a prefix — so that ranking depends on nothing the caller may not read.
func visibleNameScore(forms []textnorm.LinkForm, e ariadne.Entity) float64 {
	have := map[string]bool{}
	for _, n := range append([]string{e.Name}, e.Aliases...) {
		for _, f := range textnorm.LinkForms(n) {
			if !f.Prefix {
				have[f.Text] = true
			}
		}
	}
	var score float64
	for _, f := range forms {
		switch {
		case !f.Prefix && have[f.Text]:
			score++
		case f.Prefix:
			for h := range have {
				if strings.HasPrefix(h, f.Text) {
					score += 0.5
					break
				}
			}
		}
	}
	return score
}

// noIndex reports whether err says the entity fulltext index does not exist (an empty graph).
func noIndex(err error) bool {
	var neoErr *neo4j.Neo4jError
	return errors.As(err, &neoErr) && strings.Contains(neoErr.Msg, "no such fulltext schema index")
}

// luceneQuery joins the entity-linking forms of a text (textnorm.LinkForms) into an OR query
// for the entity fulltext index, with every Lucene special character escaped; prefix forms end
// in '*'. A form longer than maxLinkFormRunes is left out: no name has such a word, and Lucene
// refuses a prefix query that long ("input automaton is too large"), which failed the whole
// question with a bare 400 (security audit: one Cyrillic word of 1 000 letters). Past
// maxLuceneTerms distinct terms the rest of the text is left out: Lucene refuses a query of more
// than 1 024 clauses (TooManyClauses), which failed a 1 304-character question with a 400
// (security audit, stop 58); the index's analyzer may split a term in a few, hence the margin.
func luceneQuery(text string) string {
	forms := textnorm.LinkForms(text)
	terms := make([]string, 0, len(forms))
	for _, f := range forms {
		if utf8.RuneCountInString(f.Text) > maxLinkFormRunes {
			continue
		}
		t := luceneEscape(f.Text)
		if f.Prefix {
			t += "*"
		}
		if !slices.Contains(terms, t) {
			terms = append(terms, t)
		}
		if len(terms) == maxLuceneTerms {
			break
		}
	}
	return strings.Join(terms, " OR ")
}

// maxLinkFormRunes bounds the words luceneQuery sends to the fulltext index, maxLuceneTerms
// their number.
const (
	maxLinkFormRunes = 100
	maxLuceneTerms   = 300
)

func luceneEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`+-&|!(){}[]^"~*?:\/`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

const chunkEntitiesCypher = `
UNWIND $ids AS cid
MATCH (c:Chunk {id: cid})-[:MENTIONS]->(e:Entity)
WHERE any(g IN c.acl WHERE g IN $groups)
RETURN cid AS chunk_id, collect(DISTINCT e.key) AS keys`

// EntitiesOfChunks returns, per readable chunk id, the keys (as the caller sees them) of the
// entities it mentions.
func (s *Store) EntitiesOfChunks(ctx context.Context, ids, groups []string) (map[string][]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	res, err := s.readRows(ctx, chunkEntitiesCypher, []string{"chunk_id", "keys"}, map[string]any{"ids": ids, "groups": groups})
	if err != nil {
		return nil, translate("entities of chunks", err)
	}
	var raw []string
	for _, r := range res.Records {
		raw = append(raw, strs(get(r, "keys"))...)
	}
	views, err := s.nodeViews(ctx, raw, groups)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, r := range res.Records {
		for _, k := range strs(get(r, "keys")) {
			if v, ok := views[k]; ok {
				id := str(get(r, "chunk_id"))
				out[id] = append(out[id], v.entity.Key)
			}
		}
	}
	return out, nil
}

const documentChunksCypher = `
UNWIND $docs AS did
MATCH (:Document {id: did})-[:HAS_CHUNK]->(c:Chunk)
WHERE any(g IN c.acl WHERE g IN $groups)
RETURN c.id AS id ORDER BY did, c.position`

// DocumentChunkIDs returns the ids of the readable chunks of the given documents, in document
// order.
func (s *Store) DocumentChunkIDs(ctx context.Context, docIDs, groups []string) ([]string, error) {
	if len(docIDs) == 0 {
		return nil, nil
	}
	res, err := s.readRows(ctx, documentChunksCypher, []string{"id"}, map[string]any{"docs": docIDs, "groups": groups})
	if err != nil {
		return nil, translate("document chunks", err)
	}
	out := make([]string, 0, len(res.Records))
	for _, r := range res.Records {
		out = append(out, str(get(r, "id")))
	}
	return out, nil
}

// Entity returns one entity by key — an entity key or an opaque key (UIDPrefix…) — as the
// caller (groups) may see it, or ErrNotFound when it does not exist or the caller may not see
// it (the two are indistinguishable). An entity key works only for a caller who may see it.
func (s *Store) Entity(ctx context.Context, key string, groups []string) (ariadne.Entity, error) {
	keys, uids := splitKeys([]string{key})
	res, err := s.read(ctx, entityRawsCypher, map[string]any{"keys": keys, "uids": uids, "groups": groups})
	if err != nil {
		return ariadne.Entity{}, translate("entity", err)
	}
	if len(res.Records) > 0 { // keys and uids are unique: one record at most
		raw := str(get(res.Records[0], "raw"))
		views, err := s.views(ctx, []string{raw}, groups)
		if err != nil {
			return ariadne.Entity{}, err
		}
		if v, ok := views[raw]; ok {
			return v.entity.Entity, nil
		}
	}
	return ariadne.Entity{}, fmt.Errorf("graph: no such entity: %w", ariadne.ErrNotFound)
}

// ExpandDegree is the number of relationships above which Edges reads an entity's relationships
// only toward the other entities it was asked about (the default edge limit).
const ExpandDegree = 2000

// expandDegree is ExpandDegree, lowered by tests.
var expandDegree = ExpandDegree

var edgesCypher = `
MATCH (a:Entity) WHERE ` + matchVisible("a") + `
WITH a, ` + readableDegree("a") + ` AS degree ORDER BY degree, a.key
CALL (a, degree) {
  CALL (a, degree) {
    WITH a WHERE degree <= $expand
    MATCH (a)-[r]-(b:Entity)
    RETURN r, b
    UNION
    WITH a WHERE degree > $expand
    MATCH (b:Entity) WHERE ` + matchVisible("b") + `
    MATCH (a)-[r]-(b)
    RETURN r, b
  }
  WITH r, b WHERE r.chunk_ids IS NOT NULL
    AND (size($types) = 0 OR type(r) IN $types)
    AND any(g IN r.acl WHERE g IN $groups)
    AND any(g IN coalesce(b.acl, []) WHERE g IN $groups)
  RETURN r ORDER BY b.key, type(r), r.chunk_ids
}
WITH DISTINCT r
WITH r, startNode(r) AS s, endNode(r) AS e, [cid IN r.chunk_ids WHERE EXISTS {
       MATCH (c:Chunk {id: cid}) WHERE any(g IN c.acl WHERE g IN $groups) }] AS readable
WHERE size(readable) > 0
WITH r, s, e, readable LIMIT $limit
WITH collect([s.key, e.key, type(r), readable]) AS rows, collect(DISTINCT s) + collect(DISTINCT e) AS ends
RETURN rows, [n IN ends | [n.key, n.name, n.name_acl, n.type, n.doc_id, ` + readableDegree("n") + `]] AS ends`

// Edges returns the relationships incident to any of keys (as the caller sees them: entity keys
// or opaque keys) that the caller may read: at least one supporting chunk readable, both ends
// visible; only readable chunk ids are listed, and both ends are the caller's views. At most limit
// (default 2000), ordered by the ends' keys (the caller's), then type.
//
// Which relationships fill the limit is fixed by the graph and the caller, not by the order Neo4j
// finds them in (the multi-hop walk and its evidence paths depend on it): the entities of keys
// are read in order of their degree as the caller sees it (readableDegree; fewest relationships
// first: theirs are the more specific hops, a hub's are cut first), each entity's relationships
// by the other end's key and type, until limit relationships with a readable chunk are found;
// the query stops there. An entity with more than ExpandDegree relationships the caller may read
// (a hub) contributes only those toward the other entities of keys. The ends' degrees
// (Edge.FromDeg, ToDeg) are the caller's too.
// Sorting every candidate relationship before the limit instead took 3.4 s per query at 100k
// chunks (docs/performance.md).
func (s *Store) Edges(ctx context.Context, keys, groups, relTypes []string, limit int) ([]ariadne.Edge, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	if relTypes == nil {
		relTypes = []string{}
	}
	if limit <= 0 {
		limit = 2000
	}
	plain, uids := splitKeys(keys)
	res, err := s.read(ctx, edgesCypher, map[string]any{"keys": plain, "uids": uids, "groups": groups, "types": relTypes, "limit": limit,
		"expand": expandDegree})
	if err != nil {
		return nil, translate("edges", err)
	}
	if len(res.Records) != 1 {
		return nil, fmt.Errorf("graph: edges: %d records, want 1: %w", len(res.Records), ariadne.ErrUnavailable)
	}
	// One record: the relationships as [start key, end key, type, readable chunk ids] and their
	// ends' properties, each end once or twice — not a record per relationship with both ends'
	// properties, which cost the client 24 ms of CPU per call for 2 000 relationships (Bolt
	// reads every record as its own message; readRows) against 3.5 ms.
	//
	// Both ends are visible to the caller (the query checks it). An end whose name the caller
	// may see (name_acl, as nodeViewsCypher decides) is viewed from the properties the query
	// returned; only the others — shown by an opaque key and a readable surface — are read again,
	// by nodeViews. Reading every end again cost one more query and an index seek per end: for
	// the ~1 300 ends of a 100k question, Edges took 55.7 ms p50 that way and 45.7 ms this way.
	rows, _ := get(res.Records[0], "rows").([]any)
	ends, _ := get(res.Records[0], "ends").([]any)
	views := map[string]entityView{}
	var opaque []string
	seen := map[string]bool{}
	for _, n := range ends {
		p, _ := n.([]any)
		if len(p) != 6 {
			return nil, fmt.Errorf("graph: edges: end %v, want 6 values: %w", n, ariadne.ErrUnavailable)
		}
		raw := str(p[0])
		if seen[raw] {
			continue
		}
		seen[raw] = true
		if !slices.ContainsFunc(strs(p[2]), func(g string) bool { return slices.Contains(groups, g) }) {
			opaque = append(opaque, raw)
			continue
		}
		views[raw] = entityView{raw: raw, degree: toInt(p[5]), entity: ariadne.StoredEntity{Entity: ariadne.Entity{
			Key: raw, Name: str(p[1]), Type: str(p[3]), DocID: str(p[4])}}}
	}
	more, err := s.nodeViews(ctx, opaque, groups)
	if err != nil {
		return nil, err
	}
	maps.Copy(views, more)
	out := make([]ariadne.Edge, 0, len(rows))
	for _, row := range rows {
		r, _ := row.([]any)
		if len(r) != 4 {
			return nil, fmt.Errorf("graph: edges: row %v, want 4 values: %w", row, ariadne.ErrUnavailable)
		}
		from, okFrom := views[str(r[0])]
		to, okTo := views[str(r[1])]
		if !okFrom || !okTo {
			continue
		}
		out = append(out, ariadne.Edge{From: from.node(), To: to.node(), FromDeg: from.degree, ToDeg: to.degree,
			Type: str(r[2]), ChunkIDs: strs(r[3])})
	}
	slices.SortStableFunc(out, func(a, b ariadne.Edge) int {
		return cmp.Or(cmp.Compare(a.From.Key, b.From.Key), cmp.Compare(a.To.Key, b.To.Key), cmp.Compare(a.Type, b.Type))
	})
	return out, nil
}

// entityDegreesCypher gives each visible entity of $keys/$uids keyed as the caller sees it, with
// its relationships to other entities that have a supporting chunk the caller may read (r.acl).
// The stored e.degree counts every relationship, restricted ones too, and a walk that ranks paths
// by it changes a public caller's answer when a restricted document relates an entity (security
// audit: a finance contract flipped an anonymous multi-hop answer). An entity with the per-acl
// counts is read from them (readableDegree); one of a graph written before them (RefreshStale
// gives them) has its relationships counted, up to ExpandDegree in all, past which it keeps
// its stored degree: counting a hub's relationships per read costs a scan of them.
var entityDegreesCypher = `
MATCH (e:Entity) WHERE ` + matchVisible("e") + `
RETURN CASE WHEN any(g IN coalesce(e.name_acl, []) WHERE g IN $groups) THEN e.key ELSE $uidPrefix + e.uid END AS key,
       CASE WHEN e.degree_groups IS NOT NULL THEN ` + readableDegree("e") + `
            WHEN coalesce(e.degree, 0) > ` + strconv.Itoa(ExpandDegree) + ` THEN e.degree
            ELSE size([(e)-[r]-(:Entity) WHERE r.chunk_ids IS NOT NULL AND any(g IN r.acl WHERE g IN $groups) | 1]) END AS degree`

// EntityDegrees returns, for each of keys (as the caller sees them: entity keys or opaque keys)
// that the caller may see, its degree as the caller sees it: the relationships to other entities
// with a supporting chunk the caller may read (entityDegreesCypher), keyed as the caller sees
// the entity. A multi-hop answer ranks its candidate paths by these (agent.walkOdds); a path's
// entities are a few dozen, so counting their relationships costs little.
func (s *Store) EntityDegrees(ctx context.Context, keys, groups []string) (map[string]int, error) {
	out := map[string]int{}
	if len(keys) == 0 {
		return out, nil
	}
	plain, uids := splitKeys(keys)
	res, err := s.read(ctx, entityDegreesCypher, map[string]any{"keys": plain, "uids": uids, "groups": groups, "uidPrefix": UIDPrefix})
	if err != nil {
		return nil, translate("entity degrees", err)
	}
	for _, r := range res.Records {
		out[str(get(r, "key"))] = toInt(get(r, "degree"))
	}
	return out, nil
}

// entityRawsCypher gives the raw keys of the entities with the given keys or opaque keys that the
// caller may see (Entity, EntityAliases).
var entityRawsCypher = `
MATCH (e:Entity) WHERE ` + matchVisible("e") + `
RETURN e.key AS raw`

// EntityAliases returns, for each of keys (as the caller sees them: entity keys or opaque keys)
// that the caller may see, the other names the caller's view gives it (Entity.Aliases: defined
// aliases and the surfaces of readable mentions, see viewsCypher), keyed as
// given. Keys the caller may not see are absent. A multi-hop answer's chain uses them to find the
// sentence of a hop that names an end in the other script or language.
func (s *Store) EntityAliases(ctx context.Context, keys, groups []string) (map[string][]string, error) {
	if len(keys) == 0 {
		return map[string][]string{}, nil
	}
	plain, uids := splitKeys(keys)
	res, err := s.read(ctx, entityRawsCypher, map[string]any{"keys": plain, "uids": uids, "groups": groups})
	if err != nil {
		return nil, translate("entity aliases", err)
	}
	views, err := s.recordViews(ctx, res.Records, groups)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]string, len(views))
	for _, v := range views {
		out[v.entity.Key] = v.entity.Aliases
	}
	return out, nil
}

// recordViews is views of the records' "raw" column.
func (s *Store) recordViews(ctx context.Context, recs []*neo4j.Record, groups []string) (map[string]entityView, error) {
	raw := make([]string, 0, len(recs))
	for _, r := range recs {
		raw = append(raw, str(get(r, "raw")))
	}
	return s.views(ctx, raw, groups)
}

// EntityNames returns up to limit distinct entity names a caller holding groups may see (the
// stored name of an entity the caller may see whose name_acl the caller may read), most
// connected entities first (by the relationships those groups may read: readableDegree, then
// name). Its only use is warming the walk's name cache for the public groups
// (agent.Retriever.WarmNames): a name only restricted chunks give is never embedded ahead, and
// which names fill the list does not depend on restricted relationships (security audit, stop
// 60), so no caller can time a name against what others may read.
func (s *Store) EntityNames(ctx context.Context, groups []string, limit int) ([]string, error) {
	if limit <= 0 || len(groups) == 0 {
		return []string{}, nil
	}
	res, err := s.read(ctx, `
MATCH (e:Entity) WHERE e.name IS NOT NULL AND e.name <> ''
  AND any(g IN coalesce(e.acl, []) WHERE g IN $groups)
  AND any(g IN coalesce(e.name_acl, []) WHERE g IN $groups)
WITH e.name AS name, max(`+readableDegree("e")+`) AS degree
ORDER BY degree DESC, name
LIMIT $limit
RETURN collect(name) AS names`, map[string]any{"limit": limit, "groups": groups})
	if err != nil {
		return nil, translate("entity names", err)
	}
	return strs(get(res.Records[0], "names")), nil
}
