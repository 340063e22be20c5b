package graph

import (
	"context"

	"github.com/ariadne-graphrag/ariadne"
)

// nodeViewsCypher is viewsCypher for callers that need an entity only as a path node (key, name,
// type, describing document, degree), never its aliases or context: Edges, EntitiesOfChunks and
// paths. An entity whose name the caller may see costs one index seek, whatever its degree; only
// an entity shown by an opaque key reads its mentions, for the first surface of its first
// readable chunk (as in viewsCypher). Before this, every endpoint of every edge collected the
// surfaces of all its mentions: at 100k chunks a hub has tens of thousands (docs/performance.md).
//
// That first readable chunk is looked up among the entity's first_chunks — for each distinct
// chunk ACL among its mentions, the smallest chunk id (refreshEntitiesCypher, growEntitiesCypher)
// — so the smallest readable one among them is the smallest readable mention overall: a few
// index seeks instead of sorting every mention (158 → 23 ms for 250 entities at 100k chunks).
// Each candidate is checked as it is now (it still mentions the entity; the caller may read it);
// an entity without the lists (a graph written before them) falls back to the sort.
var nodeViewsCypher = `
UNWIND $raw AS k
MATCH (e:Entity {key: k})
WHERE any(g IN coalesce(e.acl, []) WHERE g IN $groups)
WITH e, any(g IN coalesce(e.name_acl, []) WHERE g IN $groups) AS full
WITH e, full, CASE WHEN full THEN e.name ELSE ` + opaqueName + ` END AS name
WHERE name IS NOT NULL
RETURN e.key AS raw, CASE WHEN full THEN e.key ELSE $uidPrefix + e.uid END AS key, name, e.type AS type,
       CASE WHEN full THEN coalesce(e.doc_id, '') ELSE '' END AS doc_id, ` + readableDegree("e") + ` AS degree`

// opaqueName is the name an entity e shows a caller ($groups) who may not see its own: the first
// surface of its smallest readable mention, looked up among e.first_chunks (see nodeViewsCypher).
const opaqueName = `coalesce(head(COLLECT {
       UNWIND coalesce(e.first_chunks, []) AS cid
       MATCH (c:Chunk {id: cid})-[m:MENTIONS]->(e)
       WHERE any(g IN c.acl WHERE g IN $groups) AND size(coalesce(m.surfaces, [])) > 0
       WITH c, m ORDER BY c.id LIMIT 1
       RETURN m.surfaces[0] }), head(COLLECT {
       MATCH (c:Chunk)-[m:MENTIONS]->(e)
       WHERE any(g IN c.acl WHERE g IN $groups) AND size(coalesce(m.surfaces, [])) > 0
       WITH c, m ORDER BY c.id LIMIT 1
       RETURN m.surfaces[0] }))`

// nodeViews is views without aliases, quoted aliases and context (see nodeViewsCypher).
func (s *Store) nodeViews(ctx context.Context, raw, groups []string) (map[string]entityView, error) {
	out := map[string]entityView{}
	if len(raw) == 0 {
		return out, nil
	}
	res, err := s.readRows(ctx, nodeViewsCypher, []string{"raw", "key", "name", "type", "doc_id", "degree"}, map[string]any{"raw": dedupe(raw), "groups": groups, "uidPrefix": UIDPrefix})
	if err != nil {
		return nil, translate("entity node views", err)
	}
	for _, r := range res.Records {
		v := entityView{raw: str(get(r, "raw")), degree: toInt(get(r, "degree")), entity: ariadne.StoredEntity{
			Entity: ariadne.Entity{Key: str(get(r, "key")), Name: str(get(r, "name")), Type: str(get(r, "type")),
				DocID: str(get(r, "doc_id"))}}}
		out[v.raw] = v
	}
	return out, nil
}
