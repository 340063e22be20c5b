package graph

import (
	"context"

	"github.com/ariadne-graphrag/ariadne"
)

var entityMentionsCypher = `
MATCH (e:Entity) WHERE ` + matchVisible("e") + `
CALL (e) {
  MATCH (c:Chunk)-[:MENTIONS]->(e)
  WHERE any(g IN c.acl WHERE g IN $groups)
  WITH c LIMIT $cap
  RETURN count(c) AS mentions
}
RETURN e.key AS raw, mentions,
       CASE WHEN $expand <= 0 OR mentions <= $expand THEN COLLECT {
         MATCH (c:Chunk)-[:MENTIONS]->(e)
         WHERE any(g IN c.acl WHERE g IN $groups)
         RETURN c.id ORDER BY c.id LIMIT $per
       } ELSE [] END AS chunks`

// MentionCountCap bounds the readable mentions EntityMentions counts per entity.
const MentionCountCap = 2000

// countCap is how far EntityMentions counts an entity's readable mentions: one past expand (the
// walk's hub bound) when there is one — past it every entity is a hub alike — else
// MentionCountCap (never below per, so that every listed chunk is counted).
func countCap(per, expand int) int {
	if expand > 0 {
		return expand + 1
	}
	return max(MentionCountCap, per)
}

// EntityMentions returns, for each of keys (as the caller sees them: entity keys or opaque keys)
// that the caller may see, its view (key, name, type, describing document) and the readable
// chunks that mention it: Mentions counts them up to expand+1 (up to MentionCountCap when
// expand ≤ 0), ChunkIDs lists the first per of them by chunk id (default 50) — only for an entity
// with at most expand mentions (a hub past it gets none; expand ≤ 0 lists them for every entity).
// Chunks the caller may not read are neither counted nor listed. It runs in a read transaction.
//
// The query walk uses it to step from an entity to the passages that name it (HippoRAG's passage
// nodes); it does not expand entities past its hub threshold (agent.RetrievalConfig.WalkHub,
// passed as expand) and weighs seeds by the logarithm of the count, so a count past the threshold
// tells it nothing more. Counting a hub's 20 000 mentions one by one (each chunk's groups read)
// took 1.9 s of a 2.3 s multi_hop question about a popular person on a 100 000-chunk graph, and
// counting each of a question's ~250 entities up to 2 000 still took 575 ms at 100k chunks;
// sorting a hub's mentions to list chunk ids the walk then ignores was a third of this query's
// time at 10 000 chunks (docs/performance.md).
func (s *Store) EntityMentions(ctx context.Context, keys, groups []string, per, expand int) (map[string]ariadne.EntityMentions, error) {
	out := map[string]ariadne.EntityMentions{}
	if len(keys) == 0 || len(groups) == 0 {
		return out, nil
	}
	if per <= 0 {
		per = 50
	}
	plain, uids := splitKeys(keys)
	res, err := s.readRows(ctx, entityMentionsCypher, []string{"raw", "mentions", "chunks"}, map[string]any{"keys": plain, "uids": uids, "groups": groups, "per": per,
		"cap": countCap(per, expand), "expand": expand})
	if err != nil {
		return nil, translate("entity mentions", err)
	}
	raw := make([]string, 0, len(res.Records))
	for _, r := range res.Records {
		raw = append(raw, str(get(r, "raw")))
	}
	views, err := s.nodeViews(ctx, raw, groups) // the walk needs path nodes, not aliases
	if err != nil {
		return nil, err
	}
	for _, r := range res.Records {
		v, ok := views[str(get(r, "raw"))]
		if !ok {
			continue
		}
		out[v.entity.Key] = ariadne.EntityMentions{Node: v.node(), Degree: v.degree, Mentions: toInt(get(r, "mentions")),
			ChunkIDs: strs(get(r, "chunks"))}
	}
	return out, nil
}
