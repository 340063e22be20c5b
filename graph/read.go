package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/ariadne-graphrag/ariadne"
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

const pathsCypher = `
MATCH (a:Entity) WHERE a.key IN $from
MATCH (b:Entity) WHERE b.key IN $to AND b <> a
MATCH p = allShortestPaths((a)-[*..4]-(b))
WHERE length(p) <= $maxHops
  AND all(r IN relationships(p) WHERE r.chunk_ids IS NOT NULL
          AND (size($types) = 0 OR type(r) IN $types)
          AND any(g IN r.acl WHERE g IN $groups))
  AND all(n IN nodes(p)[1..-1] WHERE coalesce(n.degree, 0) <= $hub)
RETURN p
ORDER BY length(p)
LIMIT $limit`

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
WHERE length(p) <= $maxHops AND b <> a
  AND all(r IN relationships(p) WHERE r.chunk_ids IS NOT NULL
          AND (size($types) = 0 OR type(r) IN $types)
          AND any(g IN r.acl WHERE g IN $groups))
  AND all(n IN nodes(p)[1..-1] WHERE coalesce(n.degree, 0) <= $hub)
RETURN p
ORDER BY length(p)
LIMIT $limit`

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
