package graph

import (
	"context"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
)

// An entity is visible to a caller only through chunks the caller may read:
//
//   - it exists for the caller when one of its groups (e.acl) is among the caller's: for an entity
//     a document describes, that document's groups — a caller who may read a chunk that names it
//     but not its document sees no link at all, since the link would show the document's type,
//     aliases and relations (a public note naming a management-only project); for an undocumented
//     entity, the groups of the chunks that mention it;
//   - its key, canonical name, describing document, defined and quoted aliases and resolution
//     context come from its describing document (or, for an undocumented entity, from the chunks
//     whose mentions spell its name, or name it: ariadne.Mention.Name, the nominative recognition
//     gave an inflected surface) and are shown only to a caller in e.name_acl;
//   - otherwise (an undocumented entity whose readable mentions all spell it otherwise) the caller
//     sees an opaque key (UIDPrefix + a random id kept on the node), the first surface a readable
//     chunk uses as its name, and the other readable surfaces as aliases.
//
// An entity the caller may not see is answered exactly like one that does not exist.

// UIDPrefix starts the opaque key of an entity whose own key the caller may not see.
const UIDPrefix = "uid:"

// splitKeys separates opaque keys (UIDPrefix…) from entity keys.
func splitKeys(keys []string) (plain, uids []string) {
	plain, uids = []string{}, []string{}
	for _, k := range keys {
		if u, ok := strings.CutPrefix(k, UIDPrefix); ok {
			uids = append(uids, u)
		} else {
			plain = append(plain, k)
		}
	}
	return plain, uids
}

// matchVisible is the condition on an entity variable v that it is one of $keys (whose key the
// caller may see) or $uids, and that the caller may see it at all.
func matchVisible(v string) string {
	return `((` + v + `.key IN $keys AND any(g IN coalesce(` + v + `.name_acl, []) WHERE g IN $groups)) OR ` + v + `.uid IN $uids)
  AND any(g IN coalesce(` + v + `.acl, []) WHERE g IN $groups)`
}

// viewsCypher maps raw entity keys (never shown to callers) to the caller's views.
//
// The surfaces a caller may see come from the entity's alias lists (alias_acls, alias_surfaces:
// one pair per distinct chunk ACL key and surface among its mentions, written with first_acls and
// first_chunks by refreshEntitiesCypher and growEntitiesCypher): an ACL key is readable when the
// first chunk kept for it (first_chunks) still mentions the entity, still has exactly that ACL
// (lists left stale by a hand edit hide spellings, never show them) and the caller may read it, so
// an entity costs one index seek per distinct chunk ACL, whatever its degree, and every readable
// spelling is shown. Before the lists, views read up to 256 mentions of every candidate entity
// (at 100k chunks, 60 candidates per question: docs/performance.md); an entity of a graph written
// before them (RefreshStale gives it them) still takes that path: surfaces from at most 256
// readable mentions, for a hub the first 256 the store yields.
var viewsCypher = `
UNWIND $raw AS k
MATCH (e:Entity {key: k})
WHERE any(g IN coalesce(e.acl, []) WHERE g IN $groups)
WITH e, any(g IN coalesce(e.name_acl, []) WHERE g IN $groups) AS full,
     CASE WHEN e.alias_acls IS NOT NULL AND e.first_acls IS NOT NULL THEN
       [i IN range(0, size(e.first_acls) - 1) WHERE EXISTS {
          MATCH (c:Chunk {id: e.first_chunks[i]})-[:MENTIONS]->(e)
          WHERE any(g IN c.acl WHERE g IN $groups)
            AND reduce(ak = '', g IN COLLECT { UNWIND c.acl AS g RETURN DISTINCT g ORDER BY g } | ak + g + '|') = e.first_acls[i] }
        | e.first_acls[i]]
     END AS readableKeys
WITH e, full, CASE WHEN readableKeys IS NOT NULL THEN COLLECT {
       UNWIND range(0, size(e.alias_acls) - 1) AS j
       WITH j WHERE e.alias_acls[j] IN readableKeys
       RETURN DISTINCT e.alias_surfaces[j] AS s ORDER BY s }
     ELSE reduce(acc = [], s IN COLLECT {
       MATCH (c:Chunk)-[m:MENTIONS]->(e)
       WHERE any(g IN c.acl WHERE g IN $groups)
       WITH c, m LIMIT 256
       WITH c, m ORDER BY c.id
       UNWIND m.surfaces AS s
       RETURN s } | CASE WHEN s IN acc THEN acc ELSE acc + s END) END AS surfaces
WITH e, surfaces, full, CASE WHEN full THEN e.name ELSE ` + opaqueName + ` END AS name
WHERE name IS NOT NULL
RETURN e.key AS raw, CASE WHEN full THEN e.key ELSE $uidPrefix + e.uid END AS key, name, e.type AS type,
       CASE WHEN full THEN coalesce(e.doc_id, '') ELSE '' END AS doc_id,
       [a IN CASE WHEN full THEN coalesce(e.defined_aliases, []) + [s IN surfaces WHERE NOT s IN coalesce(e.defined_aliases, [])]
             ELSE surfaces END WHERE a <> name] AS aliases,
       CASE WHEN full THEN coalesce(e.quoted_aliases, []) ELSE [] END AS quoted,
       CASE WHEN full THEN coalesce(e.context, '') ELSE '' END AS context,
       ` + readableDegree("e") + ` AS degree`

// entityView is one entity as a caller may see it, with the raw key it came from.
type entityView struct {
	raw    string
	entity ariadne.StoredEntity
	degree int
}

// views returns the caller's view of each raw key the caller may see, by raw key. Keys of
// entities the caller may not see are absent.
func (s *Store) views(ctx context.Context, raw, groups []string) (map[string]entityView, error) {
	out := map[string]entityView{}
	if len(raw) == 0 {
		return out, nil
	}
	res, err := s.readRows(ctx, viewsCypher, []string{"raw", "key", "name", "type", "doc_id", "aliases", "quoted", "context", "degree"}, map[string]any{"raw": dedupe(raw), "groups": groups, "uidPrefix": UIDPrefix})
	if err != nil {
		return nil, translate("entity views", err)
	}
	for _, r := range res.Records {
		v := entityView{raw: str(get(r, "raw")), degree: toInt(get(r, "degree")), entity: ariadne.StoredEntity{
			Entity: ariadne.Entity{Key: str(get(r, "key")), Name: str(get(r, "name")), Type: str(get(r, "type")),
				DocID: str(get(r, "doc_id")), Aliases: strs(get(r, "aliases"))},
			QuotedAliases: strs(get(r, "quoted")), Context: str(get(r, "context"))}}
		out[v.raw] = v
	}
	return out, nil
}

func (v entityView) node() ariadne.PathNode {
	return ariadne.PathNode{Key: v.entity.Key, Name: v.entity.Name, Type: v.entity.Type, DocID: v.entity.DocID}
}
