package graph

import (
	"context"
)

// Shape is the size of a namespace's graph: what the scale benchmark reports next to latency.
type Shape struct {
	Documents int // :Document nodes
	Chunks    int // :Chunk nodes
	Entities  int // :Entity nodes
	Relations int // typed entity–entity relationships
	Mentions  int // (:Chunk)-[:MENTIONS]->(:Entity)
	MaxDegree int // the largest number of entity–entity relationships of one entity (the top hub)
}

const shapeCypher = `
CALL { MATCH (d:Document) RETURN count(d) AS documents }
CALL { MATCH (c:Chunk) RETURN count(c) AS chunks }
CALL { MATCH (e:Entity) RETURN count(e) AS entities }
CALL { MATCH (:Chunk)-[m:MENTIONS]->(:Entity) RETURN count(m) AS mentions }
CALL { MATCH (a:Entity)-[r]->(b:Entity) RETURN count(r) AS relations }
CALL { MATCH (e:Entity) RETURN coalesce(max(COUNT { (e)-[]-(:Entity) }), 0) AS max_degree }
RETURN documents, chunks, entities, mentions, relations, max_degree`

// Shape counts the namespace's nodes and relationships (a full scan: for benchmarks and
// operators, not for the query path).
func (s *Store) Shape(ctx context.Context) (Shape, error) {
	res, err := s.read(ctx, shapeCypher, nil)
	if err != nil {
		return Shape{}, translate("shape", err)
	}
	if len(res.Records) == 0 {
		return Shape{}, nil
	}
	r := res.Records[0]
	n := func(k string) int { v, _ := get(r, k).(int64); return int(v) }
	return Shape{Documents: n("documents"), Chunks: n("chunks"), Entities: n("entities"), Mentions: n("mentions"),
		Relations: n("relations"), MaxDegree: n("max_degree")}, nil
}
