package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sort"
)

// Digest is a content fingerprint of the graph in the store's namespace, independent of the
// namespace's name and of Neo4j's internal ids and of the order things were written in, so two
// stores indexed from the same corpus by different runs compare equal exactly when they hold the
// same documents, chunks, entities, relations and provenance. Reliability tests compare the
// digest of a clean run with the digest after faults (see internal/testrig.StateDigest).
//
// Each part is the hex SHA-256 of the part's rows, one canonical JSON row per object, sorted:
//
//	Documents  id, title, version, content_hash, graph_hash, acl, lang, type, updated
//	Chunks     id, doc_id, position, heading, text_hash, acl, start, end, and its document
//	Entities   key, type, name, sorted aliases, doc_id, degree, sorted labels (namespace stripped),
//	           sorted acl and name_acl (who may know it exists, who may see its name), sorted
//	           first mentions (ACL key = smallest chunk id, per distinct chunk ACL), sorted
//	           relationships per acl (ACL key = count; see refreshEntitiesCypher)
//	Relations  type, source key, target key, sorted chunk_ids (provenance), sorted acl
//	Mentions   chunk id, entity key, sorted surfaces, sorted names (Mention.Name)
//	Links      NEXT_CHUNK and DESCRIBED_IN pairs
//
// ChunkIDs lists every stored chunk id (for the cross-store check), DuplicateEntityKeys counts
// keys held by more than one entity node (the uniqueness constraint makes it 0 unless the schema
// is missing), and Orphans counts chunks without a document, entities without any support and
// relations whose provenance names no stored chunk.
type Digest struct {
	Documents, Chunks, Entities, Relations, Mentions, Links string
	Counts                                                  Counts
	ChunkIDs                                                []string
	DuplicateEntityKeys                                     int
	Orphans                                                 Audit
}

const (
	digestDocumentsCypher = `
MATCH (d:Document)
RETURN [d.id, d.title, toString(d.version), d.content_hash, d.graph_hash, d.lang, d.type, d.updated] AS row, d.acl AS acl`
	digestChunksCypher = `
MATCH (c:Chunk)
OPTIONAL MATCH (d:Document)-[:HAS_CHUNK]->(c)
RETURN [c.id, c.doc_id, toString(c.position), c.heading, c.text_hash, toString(c.start), toString(c.end), d.id] AS row, c.acl AS acl`
	digestEntitiesCypher = `
MATCH (e:Entity)
RETURN [e.key, e.type, e.name, e.doc_id, toString(e.degree)] AS row, e.aliases AS aliases, labels(e) AS labels,
       e.acl AS acl, e.name_acl AS name_acl,
       [i IN range(0, size(coalesce(e.first_acls, [])) - 1) | e.first_acls[i] + '=' + e.first_chunks[i]] AS first_mentions,
       [i IN range(0, size(coalesce(e.alias_acls, [])) - 1) | e.alias_acls[i] + '=' + e.alias_surfaces[i]] AS alias_pairs,
       reduce(st = {out: [], acl: '', i: 0}, g IN coalesce(e.degree_groups, []) |
         CASE WHEN g = '' THEN {out: st.out + [st.acl + '=' + toString(e.degree_counts[st.i])], acl: '', i: st.i + 1}
              ELSE {out: st.out, acl: st.acl + g + '|', i: st.i} END).out AS degree_by_acl`
	digestRelationsCypher = `
MATCH (a:Entity)-[r]->(b:Entity) WHERE r.chunk_ids IS NOT NULL
RETURN [type(r), a.key, b.key] AS row, r.chunk_ids AS chunk_ids, r.acl AS acl`
	digestMentionsCypher = `
MATCH (c:Chunk)-[m:MENTIONS]->(e:Entity)
RETURN [c.id, e.key] AS row, m.surfaces AS surfaces, coalesce(m.names, []) AS names`
	digestLinksCypher = `
CALL () { MATCH (a:Chunk)-[:NEXT_CHUNK]->(b:Chunk) RETURN ['next', a.id, b.id] AS row
UNION ALL MATCH (e:Entity)-[:DESCRIBED_IN]->(d:Document) RETURN ['described_in', e.key, d.id] AS row }
RETURN row`
	digestDuplicateKeysCypher = `
MATCH (e:Entity) WITH e.key AS k, count(*) AS n WHERE n > 1 RETURN count(k) AS dups`
)

// Digest reads the whole graph of the namespace and fingerprints it (see Digest).
func (s *Store) Digest(ctx context.Context) (Digest, error) {
	var d Digest
	var err error
	part := func(cypher string, listCols []string, stripNS string) (string, []string, error) {
		res, err := s.run(ctx, cypher, nil)
		if err != nil {
			return "", nil, translate("digest", err)
		}
		rows := make([]string, 0, len(res.Records))
		var firsts []string
		for _, r := range res.Records {
			row := append([]any{}, get(r, "row").([]any)...)
			if len(row) > 0 {
				firsts = append(firsts, str(row[0]))
			}
			for _, c := range listCols {
				l := strs(get(r, c))
				if c == "labels" {
					var kept []string
					for _, x := range l {
						if len(x) >= len(stripNS) && x[:len(stripNS)] == stripNS {
							x = x[len(stripNS):]
						}
						kept = append(kept, x)
					}
					l = kept
				}
				sort.Strings(l)
				row = append(row, l)
			}
			raw, _ := json.Marshal(row)
			rows = append(rows, string(raw))
		}
		sort.Strings(rows)
		h := sha256.New()
		for _, r := range rows {
			h.Write([]byte(r))
			h.Write([]byte{'\n'})
		}
		return hex.EncodeToString(h.Sum(nil)), firsts, nil
	}
	if d.Documents, _, err = part(digestDocumentsCypher, []string{"acl"}, ""); err != nil {
		return d, err
	}
	if d.Chunks, d.ChunkIDs, err = part(digestChunksCypher, []string{"acl"}, ""); err != nil {
		return d, err
	}
	slices.Sort(d.ChunkIDs)
	if d.Entities, _, err = part(digestEntitiesCypher, []string{"aliases", "labels", "acl", "name_acl", "first_mentions", "alias_pairs", "degree_by_acl"}, s.ns); err != nil {
		return d, err
	}
	if d.Relations, _, err = part(digestRelationsCypher, []string{"chunk_ids", "acl"}, ""); err != nil {
		return d, err
	}
	if d.Mentions, _, err = part(digestMentionsCypher, []string{"surfaces", "names"}, ""); err != nil {
		return d, err
	}
	if d.Links, _, err = part(digestLinksCypher, nil, ""); err != nil {
		return d, err
	}
	res, err := s.run(ctx, digestDuplicateKeysCypher, nil)
	if err != nil {
		return d, translate("digest", err)
	}
	if d.DuplicateEntityKeys, err = count(res.Records[0], "dups"); err != nil {
		return d, err
	}
	if d.Counts, err = s.Count(ctx); err != nil {
		return d, err
	}
	if d.Orphans, err = s.Audit(ctx); err != nil {
		return d, err
	}
	return d, nil
}
