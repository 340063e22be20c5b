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
  WITH c ORDER BY c.id
  RETURN count(c) AS mentions, collect(c.id)[..$per] AS chunks
}
RETURN e.key AS raw, mentions, chunks`

// MentionCountCap bounds the readable mentions EntityMentions counts per entity.
const MentionCountCap = 2000

// EntityMentions returns, for each of keys (as the caller sees them: entity keys or opaque keys)
// that the caller may see, its view (key, name, type, describing document) and the readable
// chunks that mention it: Mentions counts them up to MentionCountCap, ChunkIDs lists at most per
// of them (by chunk id; default 50; for an entity past the cap, of the first MentionCountCap
// read). Chunks the caller may not read are neither counted nor listed. The query walk uses it to
// step from an entity to the passages that name it (HippoRAG's passage nodes); it does not
// expand entities past its hub threshold (agent.RetrievalConfig.WalkHub, far below the cap) and
// only weighs them by the logarithm of the count, so counting a hub's 20 000 mentions one by one
// (each chunk's groups read), which took 1.9 s of a 2.3 s multi_hop question about a popular
// person on a 100 000-chunk graph, bought nothing.
func (s *Store) EntityMentions(ctx context.Context, keys, groups []string, per int) (map[string]ariadne.EntityMentions, error) {
	out := map[string]ariadne.EntityMentions{}
	if len(keys) == 0 || len(groups) == 0 {
		return out, nil
	}
	if per <= 0 {
		per = 50
	}
	plain, uids := splitKeys(keys)
	res, err := s.run(ctx, entityMentionsCypher, map[string]any{"keys": plain, "uids": uids, "groups": groups, "per": per,
		"cap": max(MentionCountCap, per)})
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
