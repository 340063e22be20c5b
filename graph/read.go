package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// MaxHops is the longest path Paths and Expand return.
const MaxHops = 4

// hubDegree is the number of entity–entity relationships above which an entity is a hub (the
// company itself, a standard technology). Paths may start or end at a hub but not pass through
// one: "both mention the company" is not a useful hop.
const hubDegree = 30

// PathQuery selects paths.
type PathQuery struct {
	From, To  []string // entity keys; Paths connects any From to any To
	MaxHops   int      // 1..MaxHops
	Groups    []string // the caller's permission groups: an edge needs a readable chunk
	RelTypes  []string // allowed relationship types; empty means every type
	Limit     int      // paths returned at most (default 20)
	HubDegree int      // 0 means the default
}

// pathRules keep a path p only when every edge has readable supporting chunks of an allowed type
// and no inner node is a hub; shared by Paths and Expand (parameters, no user text).
const pathRules = `
  AND all(r IN relationships(p) WHERE r.chunk_ids IS NOT NULL
          AND (size($types) = 0 OR type(r) IN $types)
          AND any(g IN r.acl WHERE g IN $groups))
  AND all(n IN nodes(p)[1..-1] WHERE coalesce(n.degree, 0) <= $hub)
RETURN p
ORDER BY length(p)
LIMIT $limit`

const pathsCypher = `
MATCH (a:Entity) WHERE a.key IN $from
MATCH (b:Entity) WHERE b.key IN $to AND b <> a
MATCH p = allShortestPaths((a)-[*..4]-(b))
WHERE length(p) <= $maxHops` + pathRules

// Paths returns the shortest paths (up to MaxHops) between any entity of From and any of To,
// over allowed relationship types, where every hop is supported by at least one chunk the caller
// may read. Each edge lists only the readable supporting chunk ids.
func (s *Store) Paths(ctx context.Context, q PathQuery) ([]ariadne.Path, error) {
	if len(q.From) == 0 || len(q.To) == 0 {
		return nil, nil
	}
	params, err := pathParams(q)
	if err != nil {
		return nil, err
	}
	params["from"], params["to"] = q.From, q.To
	res, err := s.run(ctx, pathsCypher, params)
	if err != nil {
		return nil, translate("paths", err)
	}
	return s.toPaths(ctx, res.Records, q.Groups)
}

const expandCypher = `
MATCH (a:Entity) WHERE a.key IN $from
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
	params["from"] = q.From
	res, err := s.run(ctx, expandCypher, params)
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
		hub = hubDegree
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

// toPaths maps path records to domain paths, keeping on each edge only the chunk ids the caller may
// read.
func (s *Store) toPaths(ctx context.Context, recs []*neo4j.Record, groups []string) ([]ariadne.Path, error) {
	var all []string
	for _, r := range recs {
		p := get(r, "p").(dbtype.Path)
		for _, rel := range p.Relationships {
			all = append(all, strs(rel.Props["chunk_ids"])...)
		}
	}
	readable := map[string]bool{}
	if len(all) > 0 {
		res, err := s.run(ctx, readableChunksCypher, map[string]any{"ids": dedupe(all), "groups": groups})
		if err != nil {
			return nil, translate("readable chunks", err)
		}
		for _, r := range res.Records {
			readable[str(get(r, "id"))] = true
		}
	}
	out := make([]ariadne.Path, 0, len(recs))
	for _, r := range recs {
		p := get(r, "p").(dbtype.Path)
		keyOf := map[int64]string{}
		var path ariadne.Path
		for _, n := range p.Nodes {
			keyOf[n.Id] = str(n.Props["key"])
			path.Nodes = append(path.Nodes, ariadne.PathNode{Key: str(n.Props["key"]), Name: str(n.Props["name"]),
				Type: str(n.Props["type"]), DocID: str(n.Props["doc_id"])})
		}
		ok := true
		for _, rel := range p.Relationships {
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
			path.Edges = append(path.Edges, ariadne.PathEdge{From: keyOf[rel.StartId], To: keyOf[rel.EndId], Type: rel.Type, ChunkIDs: ids})
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
	res, err := s.run(ctx, auditCypher, nil)
	if err != nil {
		return Audit{}, translate("audit", err)
	}
	r := res.Records[0]
	n := func(k string) int { return int(get(r, k).(int64)) }
	return Audit{EntitiesWithoutSupport: n("lonely"), RelationsWithoutChunks: n("empty"), DanglingProvenance: n("dangling"),
		ChunksWithoutDocument: n("orphanChunks"), DuplicateEntityNames: n("dups")}, nil
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
	res, err := s.run(ctx, chunksCypher, map[string]any{"ids": ids, "groups": groups})
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
	sess := s.driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: s.db, AccessMode: neo4j.AccessModeRead})
	defer sess.Close(context.WithoutCancel(ctx))
	rows, err := sess.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, cypher, params)
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
RETURN node.key AS key, node.name AS name, node.type AS type, coalesce(node.doc_id, '') AS doc_id,
       coalesce(node.aliases, []) AS aliases, coalesce(node.quoted_aliases, []) AS quoted,
       coalesce(node.context, '') AS context, coalesce(node.degree, 0) AS degree, score
ORDER BY score DESC
LIMIT $limit`

// EntityCandidate is an entity the fulltext index proposes for a text, to be confirmed by the
// resolver's matcher (package resolution) before it counts as linked.
type EntityCandidate struct {
	StoredEntity
	Degree int     // entity–entity relationships
	Score  float64 // Lucene score
}

// EntityCandidates asks the entity fulltext index (names, aliases and their phonetic Latin keys)
// for entities whose names share words with text: each content word is searched as written, in
// its phonetic Latin form, and, for longer words, as a prefix (so inflected forms such as
// «Камского» reach «Камский»). The text is data: Lucene syntax characters are escaped.
func (s *Store) EntityCandidates(ctx context.Context, text string, limit int) ([]EntityCandidate, error) {
	q := LuceneQuery(text)
	if q == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = 50
	}
	res, err := s.run(ctx, candidatesCypher, map[string]any{"query": q, "limit": limit})
	if err != nil {
		return nil, translate("entity candidates", err)
	}
	out := make([]EntityCandidate, 0, len(res.Records))
	for _, r := range res.Records {
		score, _ := get(r, "score").(float64)
		out = append(out, EntityCandidate{
			StoredEntity: StoredEntity{
				Entity: ariadne.Entity{Key: str(get(r, "key")), Name: str(get(r, "name")), Type: str(get(r, "type")),
					DocID: str(get(r, "doc_id")), Aliases: strs(get(r, "aliases"))},
				QuotedAliases: strs(get(r, "quoted")), Context: str(get(r, "context"))},
			Degree: toInt(get(r, "degree")), Score: score})
	}
	return out, nil
}

// LuceneQuery turns free text into an OR query for the entity fulltext index, with every Lucene
// special character escaped.
func LuceneQuery(text string) string {
	var terms []string
	add := func(t string) {
		if t != "" && !slices.Contains(terms, t) {
			terms = append(terms, t)
		}
	}
	for _, w := range textnorm.Words(text) {
		f := textnorm.FoldString(w.Text)
		if textnorm.IsStopword(f) || len([]rune(f)) < 2 {
			continue
		}
		add(luceneEscape(f))
		lat := textnorm.Latin(w.Text)
		add(luceneEscape(lat))
		for _, form := range []string{f, lat} {
			if r := []rune(form); len(r) >= 5 {
				add(luceneEscape(string(r[:max(4, len(r)-3)])) + "*")
			}
		}
	}
	return strings.Join(terms, " OR ")
}

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

// EntitiesOfChunks returns, per readable chunk id, the keys of the entities it mentions.
func (s *Store) EntitiesOfChunks(ctx context.Context, ids, groups []string) (map[string][]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	res, err := s.run(ctx, chunkEntitiesCypher, map[string]any{"ids": ids, "groups": groups})
	if err != nil {
		return nil, translate("entities of chunks", err)
	}
	out := map[string][]string{}
	for _, r := range res.Records {
		out[str(get(r, "chunk_id"))] = strs(get(r, "keys"))
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
	res, err := s.run(ctx, documentChunksCypher, map[string]any{"docs": docIDs, "groups": groups})
	if err != nil {
		return nil, translate("document chunks", err)
	}
	out := make([]string, 0, len(res.Records))
	for _, r := range res.Records {
		out = append(out, str(get(r, "id")))
	}
	return out, nil
}

const entityCypher = `
MATCH (e:Entity {key: $key})
RETURN e.key AS key, e.name AS name, e.type AS type, coalesce(e.doc_id, '') AS doc_id,
       coalesce(e.aliases, []) AS aliases, coalesce(e.degree, 0) AS degree`

// Entity returns one entity by key, or ErrNotFound.
func (s *Store) Entity(ctx context.Context, key string) (ariadne.Entity, error) {
	res, err := s.run(ctx, entityCypher, map[string]any{"key": key})
	if err != nil {
		return ariadne.Entity{}, translate("entity", err)
	}
	if len(res.Records) == 0 {
		return ariadne.Entity{}, fmt.Errorf("graph: entity %q: %w", key, ariadne.ErrNotFound)
	}
	r := res.Records[0]
	return ariadne.Entity{Key: str(get(r, "key")), Name: str(get(r, "name")), Type: str(get(r, "type")),
		DocID: str(get(r, "doc_id")), Aliases: strs(get(r, "aliases"))}, nil
}

// Edge is one entity–entity relationship with both endpoints, as read for graph algorithms.
type Edge struct {
	From, To ariadne.PathNode
	FromDeg  int // entity–entity degree of From
	ToDeg    int
	Type     string
	ChunkIDs []string // the supporting chunks the caller may read (never empty)
}

const edgesCypher = `
MATCH (a:Entity)-[r]-(b:Entity)
WHERE a.key IN $keys AND r.chunk_ids IS NOT NULL
  AND (size($types) = 0 OR type(r) IN $types)
  AND any(g IN r.acl WHERE g IN $groups)
WITH DISTINCT r, startNode(r) AS s, endNode(r) AS e
WITH r, s, e, [cid IN r.chunk_ids WHERE EXISTS {
       MATCH (c:Chunk {id: cid}) WHERE any(g IN c.acl WHERE g IN $groups) }] AS readable
WHERE size(readable) > 0
RETURN s.key AS s_key, s.name AS s_name, s.type AS s_type, coalesce(s.doc_id, '') AS s_doc, coalesce(s.degree, 0) AS s_deg,
       e.key AS e_key, e.name AS e_name, e.type AS e_type, coalesce(e.doc_id, '') AS e_doc, coalesce(e.degree, 0) AS e_deg,
       type(r) AS type, readable
LIMIT $limit`

// Edges returns the relationships incident to any of keys that the caller may read (at least one
// supporting chunk readable; only readable chunk ids are listed), at most limit.
func (s *Store) Edges(ctx context.Context, keys, groups, relTypes []string, limit int) ([]Edge, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	if relTypes == nil {
		relTypes = []string{}
	}
	if limit <= 0 {
		limit = 2000
	}
	res, err := s.run(ctx, edgesCypher, map[string]any{"keys": keys, "groups": groups, "types": relTypes, "limit": limit})
	if err != nil {
		return nil, translate("edges", err)
	}
	out := make([]Edge, 0, len(res.Records))
	for _, r := range res.Records {
		node := func(p string) ariadne.PathNode {
			return ariadne.PathNode{Key: str(get(r, p+"_key")), Name: str(get(r, p+"_name")), Type: str(get(r, p+"_type")), DocID: str(get(r, p+"_doc"))}
		}
		out = append(out, Edge{From: node("s"), To: node("e"), FromDeg: toInt(get(r, "s_deg")), ToDeg: toInt(get(r, "e_deg")),
			Type: str(get(r, "type")), ChunkIDs: strs(get(r, "readable"))})
	}
	return out, nil
}
