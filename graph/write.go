package graph

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// EntityFulltextIndex is the fulltext index over entity names, aliases and their phonetic Latin
// keys; architects can query it in Neo4j Browser with db.index.fulltext.queryNodes.
const EntityFulltextIndex = "entity_names"

var schemaStatements = []string{
	`CREATE CONSTRAINT document_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE`,
	`CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (c:Chunk) REQUIRE c.id IS UNIQUE`,
	`CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE e.key IS UNIQUE`,
	`CREATE FULLTEXT INDEX ` + EntityFulltextIndex + ` IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.aliases, e.latin_keys]`,
	`CREATE INDEX chunk_doc_id IF NOT EXISTS FOR (c:Chunk) ON (c.doc_id)`,
	`CREATE INDEX entity_doc_id IF NOT EXISTS FOR (e:Entity) ON (e.doc_id)`,
	`CREATE INDEX entity_uid IF NOT EXISTS FOR (e:Entity) ON (e.uid)`,
	`CREATE CONSTRAINT source_name IF NOT EXISTS FOR (s:Source) REQUIRE s.name IS UNIQUE`,
	`CREATE INDEX document_source IF NOT EXISTS FOR (d:Document) ON (d.source)`,
}

// unrefreshedEntitiesCypher finds entities written before visibility was kept on the node (no
// acl or uid), or before a described entity's existence followed its document alone (acl wider
// than name_acl): EnsureSchema refreshes them once.
const unrefreshedEntitiesCypher = `
MATCH (e:Entity) WHERE e.acl IS NULL OR e.name_acl IS NULL OR e.uid IS NULL
   OR (e.acl <> e.name_acl AND EXISTS { (e)-[:DESCRIBED_IN]->(:Document) })
RETURN collect(e.key) AS keys`

// repairRelationACLsCypher sets the acl of every relation with more than one supporting chunk to
// the union of those chunks' groups where it is not. From 2026-12-01 (3e90c73) until the fix of
// upsertRelationsCypher, a relation that two documents of one write batch stated kept only the
// groups of the last one's chunks; a relation with one chunk never had a wrong acl. EnsureSchema
// runs it once per Store (each process, at its first write), since it reads every relation: 45 ms
// for 27 000 relations (1 907 chunks), 190–320 ms for 52 000 (a scalebench 10k graph, load 7–9),
// so about 2–3 s at 100k chunks (544 000 relations; extrapolated, not measured) — too much for
// every write, which EnsureSchema precedes. It can go once no graph written before the fix is left.
const repairRelationACLsCypher = `
MATCH (:Entity)-[r]->(:Entity) WHERE size(r.chunk_ids) > 1
CALL (r) {
  UNWIND r.chunk_ids AS cid
  MATCH (c:Chunk {id: cid})
  UNWIND c.acl AS g
  RETURN collect(DISTINCT g) AS acl
}
WITH r, acl, coalesce(r.acl, []) AS old
WHERE size(acl) <> size(old) OR any(g IN acl WHERE NOT g IN old)
SET r.acl = acl
RETURN count(r) AS repaired`

// EnsureSchema creates the uniqueness constraints (Document.id, Chunk.id, Entity.key), the
// entity fulltext index and lookup indexes, if they do not exist, and waits for them to be online.
// It refreshes entities written before their visibility was kept (unrefreshedEntitiesCypher) and,
// the first time it runs on this Store, relations whose acl is not their chunks' groups
// (repairRelationACLsCypher).
//
// Two processes may run it at the same time on a fresh graph (extract jobs of two sources): a
// schema statement or the wait that loses that race fails with a client error, and the whole step
// is tried again, at most three times, 500 ms apart.
func (s *Store) EnsureSchema(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return translate("ensure schema", ctx.Err())
			case <-time.After(500 * time.Millisecond):
			}
		}
		if err = s.createSchema(ctx); err == nil || !errors.Is(err, ariadne.ErrInvalid) {
			break
		}
	}
	if err != nil {
		return err
	}
	if err := s.migrateSources(ctx); err != nil {
		return err
	}
	res, err := s.run(ctx, unrefreshedEntitiesCypher, nil)
	if err != nil {
		return translate("find entities without visibility", err)
	}
	if keys := strs(get(res.Records[0], "keys")); len(keys) > 0 {
		if _, err := s.write(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
			_, err := s.refreshEntities(ctx, tx, keys)
			return nil, err
		}); err != nil {
			return translate("refresh entity visibility", err)
		}
	}
	if !s.relationACLsChecked.Load() {
		if _, err := s.run(ctx, repairRelationACLsCypher, nil); err != nil {
			return translate("repair relation acls", err)
		}
		s.relationACLsChecked.Store(true)
	}
	return nil
}

// createSchema runs the schema statements and waits for the indexes to be online.
func (s *Store) createSchema(ctx context.Context) error {
	for _, stmt := range schemaStatements {
		if _, err := s.run(ctx, stmt, nil); err != nil {
			return translate("ensure schema", err)
		}
	}
	// Wait for this namespace's own indexes only. db.awaitIndexes waits for every index of the
	// database, and fails (a ClientError, "Expected all indexes to come online within a
	// reasonable time") while another writer — another namespace, or a concurrent EnsureSchema —
	// is still populating one; the concurrent-writer test hit this with four replicas (see
	// docs/reliability.md, "Concurrent writers"). The names are the constants of schemaNames,
	// rewritten for the namespace by cy.
	for _, name := range schemaNames {
		if _, err := s.run(ctx, "CALL db.awaitIndex('"+name+"', 60)", nil); err != nil {
			return translate("await index "+name, err)
		}
	}
	return nil
}

// labelRE is the shape of a label or relationship type accepted for the dynamic $(…) syntax,
// checked in addition to the ontology's allow-list.
var labelRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

const documentStatesCypher = `
MATCH (d:Document)
OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
RETURN d.id AS id, coalesce(d.source, 'default') AS source, d.content_hash AS content_hash, d.graph_hash AS graph_hash,
       d.body IS NOT NULL AS restorable, d.path AS path, d.version AS version, d.extractor AS extractor,
       collect(c.id) AS chunk_ids`

// DocumentStates returns, per stored document id, its content hash, graph hash, chunk ids,
// whether the graph holds its text (StoredDocuments), its path, version and extractor.
func (s *Store) DocumentStates(ctx context.Context) (map[string]ariadne.DocState, error) {
	res, err := s.run(ctx, documentStatesCypher, nil)
	if err != nil {
		return nil, translate("document states", err)
	}
	out := make(map[string]ariadne.DocState, len(res.Records))
	for _, r := range res.Records {
		id, _ := r.Get("id")
		ch, _ := r.Get("content_hash")
		gh, _ := r.Get("graph_hash")
		ids, _ := r.Get("chunk_ids")
		src, _ := r.Get("source")
		restorable, _ := r.Get("restorable")
		st := ariadne.DocState{Source: str(src), ContentHash: str(ch), GraphHash: str(gh)}
		st.Restorable, _ = restorable.(bool)
		path, _ := r.Get("path")
		version, _ := r.Get("version")
		extractor, _ := r.Get("extractor")
		st.Path, st.Extractor = str(path), str(extractor)
		if v, ok := version.(int64); ok {
			st.Version = int(v)
		}
		st.ChunkIDs = strs(ids)
		slices.Sort(st.ChunkIDs)
		out[str(id)] = st
	}
	return out, nil
}

const storedDocumentsCypher = `
MATCH (d:Document)
WHERE coalesce(d.source, 'default') = $source AND d.body IS NOT NULL AND d.content_hash IS NOT NULL
RETURN d.id AS id, d.title AS title, d.type AS type, d.lang AS lang, d.updated AS updated, d.acl AS acl,
       d.version AS version, coalesce(d.aliases, []) AS aliases, d.body AS body, d.path AS path,
       d.content_hash AS content_hash
ORDER BY id`

// StoredDocuments returns the documents of source whose text the graph holds
// (DocState.Restorable), rebuilt from the Document nodes as they were written: id, title, type,
// lang, updated, acl, version, front matter aliases, body, path and source, sorted by id. A
// document whose rebuilt content hash differs from the stored one (a node edited by hand) is left
// out and returned in mismatched, so the caller can tell it from one that is not stored.
func (s *Store) StoredDocuments(ctx context.Context, source string) (docs []ariadne.Document, mismatched []string, err error) {
	res, err := s.run(ctx, storedDocumentsCypher, map[string]any{"source": source})
	if err != nil {
		return nil, nil, translate("stored documents", err)
	}
	for _, r := range res.Records {
		version, _ := get(r, "version").(int64)
		d := ariadne.Document{ID: str(get(r, "id")), Title: str(get(r, "title")), Type: str(get(r, "type")),
			Lang: str(get(r, "lang")), Updated: str(get(r, "updated")), ACL: strs(get(r, "acl")), Version: int(version),
			Aliases: strs(get(r, "aliases")), Body: str(get(r, "body")), Path: str(get(r, "path")), Source: source}
		if len(d.Aliases) == 0 {
			d.Aliases = nil
		}
		if d.ContentHash() != str(get(r, "content_hash")) {
			mismatched = append(mismatched, d.ID)
			continue
		}
		docs = append(docs, d)
	}
	return docs, mismatched, nil
}

const storedChunksCypher = `
MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk)
WHERE coalesce(d.source, 'default') = $source AND d.body IS NOT NULL
RETURN d.id AS doc_id, c.id AS id, c.position AS position, coalesce(c.heading, '') AS heading, c.text AS text,
       c.start AS start, c.end AS end, c.title AS title, c.acl AS acl, coalesce(c.lang, '') AS lang
ORDER BY doc_id, position`

// StoredChunks returns, by document id, the chunks of the documents of source whose text the
// graph holds, in position order, as the graph keeps them: id, position, heading path (one
// element), text, byte offsets, title, acl and lang. The fields a chunk copies from its document
// (DocVersion, DocHash, DocType, Updated, Source) and Tokens are left for the caller.
func (s *Store) StoredChunks(ctx context.Context, source string) (map[string][]ariadne.Chunk, error) {
	res, err := s.run(ctx, storedChunksCypher, map[string]any{"source": source})
	if err != nil {
		return nil, translate("stored chunks", err)
	}
	out := map[string][]ariadne.Chunk{}
	for _, r := range res.Records {
		n := func(k string) int { v, _ := get(r, k).(int64); return int(v) }
		c := ariadne.Chunk{ID: str(get(r, "id")), DocID: str(get(r, "doc_id")), Position: n("position"), Text: str(get(r, "text")),
			Start: n("start"), End: n("end"), Title: str(get(r, "title")), ACL: strs(get(r, "acl")), Lang: str(get(r, "lang"))}
		if h := str(get(r, "heading")); h != "" {
			c.Heading = []string{h}
		}
		out[c.DocID] = append(out[c.DocID], c)
	}
	return out, nil
}

const loadEntitiesCypher = `
MATCH (e:Entity)
RETURN e.key AS key, e.name AS name, e.type AS type, coalesce(e.doc_id, '') AS doc_id,
       coalesce(e.defined_aliases, []) AS defined, coalesce(e.aliases, []) AS aliases,
       coalesce(e.quoted_aliases, []) AS quoted, coalesce(e.context, '') AS context,
       coalesce(e.name_acl, []) AS name_acl,
       COLLECT { MATCH (e)<-[:MENTIONS]-(:Chunk)<-[:HAS_CHUNK]-(d:Document) RETURN DISTINCT coalesce(d.source, 'default') AS s
                 UNION MATCH (e)-[:DESCRIBED_IN]->(d:Document) RETURN coalesce(d.source, 'default') AS s } AS sources`

const dependentSourcesCypher = `
UNWIND $ids AS id
MATCH (:Document {id: id})<-[:DESCRIBED_IN]-(e:Entity)
CALL (e) {
  MATCH (e)<-[:MENTIONS]-(:Chunk)<-[:HAS_CHUNK]-(d:Document) RETURN DISTINCT coalesce(d.source, 'default') AS s
  UNION MATCH (e)-[:DESCRIBED_IN]->(d:Document) RETURN coalesce(d.source, 'default') AS s
}
RETURN collect(DISTINCT s) AS sources`

// DependentSources returns the sources (sorted) whose documents describe or mention an entity
// one of the documents ids describes — StoredEntity.Sources of those entities, read for them
// alone instead of for every entity (LoadEntities). A delete reads it first (ingest).
func (s *Store) DependentSources(ctx context.Context, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	res, err := s.run(ctx, dependentSourcesCypher, map[string]any{"ids": ids})
	if err != nil {
		return nil, translate("dependent sources", err)
	}
	return sortedStrs(get(res.Records[0], "sources")), nil
}

// LoadEntities returns every entity in the graph, with the sources that support it.
func (s *Store) LoadEntities(ctx context.Context) ([]ariadne.StoredEntity, error) {
	res, err := s.run(ctx, loadEntitiesCypher, nil)
	if err != nil {
		return nil, translate("load entities", err)
	}
	out := make([]ariadne.StoredEntity, 0, len(res.Records))
	for _, r := range res.Records {
		get := func(k string) any { v, _ := r.Get(k); return v }
		out = append(out, ariadne.StoredEntity{
			Entity: ariadne.Entity{Key: str(get("key")), Name: str(get("name")), Type: str(get("type")),
				DocID: str(get("doc_id")), Aliases: strs(get("aliases"))},
			DefinedAliases: strs(get("defined")),
			QuotedAliases:  strs(get("quoted")),
			Context:        str(get("context")),
			NameACL:        strs(get("name_acl")),
			Sources:        sortedStrs(get("sources")),
		})
	}
	return out, nil
}

// Statements of a document write, run in one transaction per batch of documents.
const (
	// collect the entities whose relations the old chunks may support: everything they mention
	// and the entities their documents describe.
	oldTouchedCypher = `
UNWIND $old AS cid
MATCH (c:Chunk {id: cid})
OPTIONAL MATCH (c)-[:MENTIONS]->(m:Entity)
OPTIONAL MATCH (d:Document {id: c.doc_id})<-[:DESCRIBED_IN]-(s:Entity)
WITH collect(DISTINCT m.key) + collect(DISTINCT s.key) AS keys
RETURN [k IN keys WHERE k IS NOT NULL] AS keys`

	// remove the old chunks from relation provenance; drop relations left without support.
	pruneRelationsCypher = `
UNWIND $keys AS key
MATCH (e:Entity {key: key})-[r]-()
WHERE r.chunk_ids IS NOT NULL AND any(x IN r.chunk_ids WHERE x IN $old)
WITH DISTINCT r
SET r.chunk_ids = [x IN r.chunk_ids WHERE NOT x IN $old]
WITH r, size(r.chunk_ids) = 0 AS empty, [startNode(r).key, endNode(r).key] AS ends
CALL (r, empty) {
  WITH r, empty WHERE empty
  DELETE r
  RETURN 1 AS gone
UNION
  WITH r, empty WHERE NOT empty
  ` + relationACL + `
  RETURN 0 AS gone
}
WITH gone, ends
UNWIND ends AS end
RETURN sum(gone) / 2 AS deleted, collect(DISTINCT end) AS ends`

	deleteChunksCypher = `
UNWIND $old AS cid
MATCH (c:Chunk {id: cid})
DETACH DELETE c
RETURN count(*) AS deleted`

	upsertDocumentsCypher = `
UNWIND $docs AS d
MERGE (n:Document {id: d.id})
ON CREATE SET n.source = d.source
SET n.written_at = CASE WHEN n.content_hash IS NULL OR n.content_hash <> d.content_hash OR coalesce(n.acl, []) <> d.acl
                        THEN d.written_at ELSE n.written_at END
SET n.title = d.title, n.type = d.type, n.lang = d.lang, n.acl = d.acl, n.version = d.version,
    n.updated = d.updated, n.content_hash = d.content_hash, n.path = d.path, n.aliases = d.aliases, n.body = d.body`

	upsertChunksCypher = `
UNWIND $chunks AS c
MATCH (d:Document {id: c.doc_id})
MERGE (n:Chunk {id: c.id})
SET n.doc_id = c.doc_id, n.position = c.position, n.heading = c.heading, n.text = c.text,
    n.text_hash = c.text_hash, n.acl = c.acl, n.lang = c.lang, n.title = c.title,
    n.start = c.start, n.end = c.end
MERGE (d)-[:HAS_CHUNK]->(n)`

	linkChunksCypher = `
UNWIND $pairs AS p
MATCH (a:Chunk {id: p[0]}), (b:Chunk {id: p[1]})
MERGE (a)-[:NEXT_CHUNK]->(b)`

	// An entity no document describes takes the name the writer's registry gives it (entity
	// recognition names it by its most frequent normal form or surface across the corpus, so the name of a
	// stored entity can change); those renamed are returned, since their name_acl (the chunks
	// whose surfaces include the name) must be recomputed in full.
	upsertEntitiesCypher = `
UNWIND $entities AS e
MERGE (n:Entity {key: e.key})
ON CREATE SET n.name = e.name, n.type = e.type, n.defined_aliases = [], n.context = e.context, n.uid = randomUUID(),
              n.degree_groups = [], n.degree_counts = []
WITH n, e, NOT e.defines AND n.doc_id IS NULL AND n.name <> e.name AS renamed
FOREACH (l IN [x IN labels(n) WHERE x <> 'Entity' AND x <> e.label] | REMOVE n:$(l))
SET n:$(e.label)
FOREACH (_ IN CASE WHEN e.defines THEN [1] ELSE [] END |
  SET n.name = e.name, n.type = e.type, n.doc_id = e.doc_id, n.defined_aliases = e.aliases,
      n.quoted_aliases = e.quoted, n.context = e.context)
FOREACH (_ IN CASE WHEN renamed THEN [1] ELSE [] END | SET n.name = e.name)
RETURN collect(CASE WHEN renamed THEN n.key END) AS renamed`

	describedInCypher = `
UNWIND $subjects AS s
MATCH (e:Entity {key: s.key}), (d:Document {id: s.doc_id})
MERGE (e)-[:DESCRIBED_IN]->(d)`

	upsertMentionsCypher = `
UNWIND $mentions AS m
MATCH (c:Chunk {id: m.chunk_id}), (e:Entity {key: m.key})
MERGE (c)-[r:MENTIONS]->(e)
SET r.surfaces = m.surfaces, r.names = m.names`

	// A relation's acl grows by the groups of the chunks this batch adds to its provenance
	// (rel.acl, from the batch's own chunks), so the statement reads none of its older chunks:
	// r.acl stays the union of its supporting chunks' groups because every statement that removes
	// provenance (pruneRelationsCypher) recomputes it in full. A new relation adds one to each
	// endpoint's degree, which refreshEntitiesCypher recomputes in full when provenance goes.
	//
	// r.acl is read inside the SET, as r.chunk_ids is, never in a WITH before it: Neo4j computes
	// a WITH for every row before the SET writes any (an Eager between them), so with two rows of
	// one relation — two documents of a batch stating it — both rows read the acl from before
	// the batch and the last one's groups replaced the first one's, while chunk_ids kept both.
	// writeParams also gives each relation one row per batch (relationRow).
	//
	// The WITH keeps, for the endpoints' degree per ACL (degreeDeltas), whether the relation is
	// new and the acl it had: with one row per relation, no row's SET changes what another row's
	// WITH read.
	upsertRelationsCypher = `
UNWIND $relations AS rel
MATCH (a:Entity {key: rel.source}), (b:Entity {key: rel.target})
MERGE (a)-[r:$(rel.type)]->(b)
ON CREATE SET r.chunk_ids = [], r.acl = [], a.degree = coalesce(a.degree, 0) + 1,
              b.degree = coalesce(b.degree, 0) + CASE WHEN a = b THEN 0 ELSE 1 END
WITH a, b, r, rel, size(r.chunk_ids) = 0 AS created, coalesce(r.acl, []) AS before
SET r.chunk_ids = r.chunk_ids + [x IN rel.chunk_ids WHERE NOT x IN r.chunk_ids],
    r.acl = coalesce(r.acl, []) + [g IN rel.acl WHERE NOT g IN coalesce(r.acl, [])]`

	// relationChangesReturn ends a relation step with what degreeDeltas reads of each row.
	relationChangesReturn = `
RETURN a.key AS source, b.key AS target, created, before, r.acl AS after`

	// relationACL sets r.acl to the union of the groups of its supporting chunks, so that "the
	// caller may read at least one supporting chunk" is any(g IN r.acl WHERE g IN $groups).
	relationACL = `CALL (r) {
  UNWIND r.chunk_ids AS cid
  MATCH (c:Chunk {id: cid})
  UNWIND c.acl AS g
  RETURN collect(DISTINCT g) AS acl
}
SET r.acl = acl`

	// renameEntityCypher gives an undocumented entity a document adopted (resolution.Registry.Renames)
	// the document's key, when no entity has that key yet: it becomes the page's entity with its
	// mentions and relations. One adoption per statement: with an UNWIND of several, Neo4j
	// evaluates every row's guard before any row's SET (an Eager between them), so two entities
	// adopted by one page (its title names two codes a note gave) both passed it and the second
	// SET broke the uniqueness of the key.
	renameEntityCypher = `
MATCH (e:Entity {key: $old})
WHERE NOT EXISTS { MATCH (:Entity {key: $new}) }
SET e.key = $new`

	// mergeEntityCypher merges an adopted entity into the entity that already has the adopting
	// document's key — another entity the same page adopted (renamed by renameEntityCypher), or
	// the entity of a page written before and now written again with a name the adopted entity
	// has (left apart, the adopted entity kept the mentions until their documents were written
	// again): each mention joins the chunk's mention of it (surfaces and names united), each
	// relation the same relation of it (chunk_ids and acl united), a relation between the two is
	// dropped (it would relate the entity to itself, which extraction never states), and the
	// adopted node goes. It returns the other ends of the moved relations, whose degree may have
	// changed; no row when there is nothing to merge.
	mergeEntityCypher = `
MATCH (o:Entity {key: $old}), (n:Entity {key: $new})
WHERE o <> n
CALL (o, n) {
  MATCH (c:Chunk)-[m:MENTIONS]->(o)
  MERGE (c)-[k:MENTIONS]->(n)
  SET k.surfaces = coalesce(k.surfaces, []) + [x IN coalesce(m.surfaces, []) WHERE NOT x IN coalesce(k.surfaces, [])],
      k.names = CASE WHEN k.names IS NULL AND m.names IS NULL THEN null
                     ELSE coalesce(k.names, []) + [x IN coalesce(m.names, []) WHERE NOT x IN coalesce(k.names, [])] END
}
CALL (o, n) {
  MATCH (o)-[r]->(b:Entity) WHERE r.chunk_ids IS NOT NULL AND b <> o AND b <> n
  MERGE (n)-[k:$(type(r))]->(b)
  ON CREATE SET k.chunk_ids = [], k.acl = []
  SET k.chunk_ids = k.chunk_ids + [x IN r.chunk_ids WHERE NOT x IN k.chunk_ids],
      k.acl = coalesce(k.acl, []) + [g IN coalesce(r.acl, []) WHERE NOT g IN coalesce(k.acl, [])]
  RETURN collect(DISTINCT b.key) AS outs
}
CALL (o, n) {
  MATCH (a:Entity)-[r]->(o) WHERE r.chunk_ids IS NOT NULL AND a <> o AND a <> n
  MERGE (a)-[k:$(type(r))]->(n)
  ON CREATE SET k.chunk_ids = [], k.acl = []
  SET k.chunk_ids = k.chunk_ids + [x IN r.chunk_ids WHERE NOT x IN k.chunk_ids],
      k.acl = coalesce(k.acl, []) + [g IN coalesce(r.acl, []) WHERE NOT g IN coalesce(k.acl, [])]
  RETURN collect(DISTINCT a.key) AS ins
}
DETACH DELETE o
RETURN outs + ins AS ends`

	// renameUnspelledCypher gives an undocumented entity that no remaining mention spells or names
	// (the document that gave its name, or described it, was deleted or rewritten) the name its
	// remaining mentions give most often — a mention's names when recognition gave any, else its
	// surfaces; ties: the shorter, then the first in code-point order. Mentions in public chunks
	// count alone when there are any (as extraction.NER names an entity), so restricted chunks do
	// not choose between public spellings. Without it nobody could see
	// the entity's name any more and every caller would get an opaque uid: key (README trial).
	// The key stays: it is the entity's identity (links, bookmarks, relations by key).
	renameUnspelledCypher = `
UNWIND $keys AS key
MATCH (e:Entity {key: key})
WHERE NOT EXISTS { (e)-[:DESCRIBED_IN]->(:Document) }
  AND NOT EXISTS { MATCH (:Chunk)-[m:MENTIONS]->(e) WHERE e.name IN coalesce(m.surfaces, []) OR e.name IN coalesce(m.names, []) }
CALL (e) {
  MATCH (ch:Chunk)-[m:MENTIONS]->(e)
  UNWIND CASE WHEN size(coalesce(m.names, [])) > 0 THEN m.names ELSE coalesce(m.surfaces, []) END AS n
  WITH n, count(*) AS c, sum(CASE WHEN $public IN ch.acl THEN 1 ELSE 0 END) AS p
  ORDER BY p DESC, CASE WHEN p > 0 THEN 0 ELSE c END DESC, size(n), n
  RETURN collect(n)[0] AS name
}
WITH e, name WHERE name IS NOT NULL
SET e.name = name`

	// refresh aliases (defined + every surface that mentions it), visibility and the fulltext keys
	// of the touched entities; delete those left with no mention, no relation and no document.
	//
	// Visibility (see EntityView): e.acl is who may know the entity exists — for an entity a
	// document describes, that document's groups (a chunk that names it links to it only for
	// callers who may also read what the document says: its type, aliases and relations); for
	// any other, the union of the groups of the chunks that mention it. e.name_acl is who may see
	// its key, name, document and defined aliases — the describing document's groups, or for an
	// undocumented entity the groups of the chunks whose mention surfaces include its name, or
	// whose mentions' names do (m.names: the nominative recognition gave an inflected surface,
	// «Мурманск» for «Мурманске», is what the chunk says as much as the surface is).
	//
	// e.degree_groups and e.degree_counts are the entity's relationships to entities grouped by
	// their acl (graph/degree.go): each distinct acl's sorted groups followed by '' in the first
	// list (group names are never blank: corpus.CheckACL refuses them), the relationships with that
	// acl at the same position in the second, in order of the joined groups. A caller's degree
	// (readableDegree) is the sum over the acls that share a group with the caller's.
	refreshEntitiesCypher = `
UNWIND $keys AS key
MATCH (e:Entity {key: key})
CALL (e) {
  OPTIONAL MATCH (c:Chunk)-[m:MENTIONS]->(e)
  RETURN collect(m.surfaces) AS surfaceLists,
         reduce(acc = [], l IN collect(c.acl) | acc + [g IN l WHERE NOT g IN acc]) AS mentionACL,
         reduce(acc = [], l IN collect(CASE WHEN e.name IN m.surfaces OR e.name IN coalesce(m.names, []) THEN c.acl ELSE [] END) |
                acc + [g IN l WHERE NOT g IN acc]) AS nameACL
}
CALL (e) {
  OPTIONAL MATCH (e)-[:DESCRIBED_IN]->(d:Document)
  RETURN count(d) > 0 AS described, reduce(acc = [], l IN collect(d.acl) | acc + [g IN l WHERE NOT g IN acc]) AS docACL
}
CALL (e) {
  OPTIONAL MATCH (c:Chunk)-[m:MENTIONS]->(e)
  WHERE size(coalesce(m.surfaces, [])) > 0
  WITH c, m, reduce(k = '', g IN COLLECT { UNWIND c.acl AS g RETURN DISTINCT g ORDER BY g } | k + g + '|') AS aclKey
  WHERE c IS NOT NULL
  WITH aclKey, min(c.id) AS first, reduce(acc = [], l IN collect(m.surfaces) | acc + [x IN l WHERE NOT x IN acc]) AS surfaces
  ORDER BY aclKey
  WITH collect(aclKey) AS keys, collect(first) AS firsts, collect(surfaces) AS lists
  RETURN keys AS firstACLs, firsts AS firstChunks,
         COLLECT { UNWIND range(0, size(keys) - 1) AS i UNWIND lists[i] AS x
                   WITH keys[i] AS k, x ORDER BY k, x RETURN [k, x] } AS aliasPairs
}
CALL (e) {
  OPTIONAL MATCH (e)-[x]-(:Entity) WHERE x.chunk_ids IS NOT NULL
  WITH x WHERE x IS NOT NULL
  WITH coalesce(x.acl, []) AS raw, count(*) AS n
  WITH COLLECT { UNWIND raw AS g RETURN DISTINCT g ORDER BY g } AS sig, sum(n) AS n
  WITH sig, n ORDER BY reduce(k = '', g IN sig | k + g + '|')
  RETURN reduce(acc = [], s IN collect(sig) | acc + s + ['']) AS degreeGroups, collect(n) AS degreeCounts
}
WITH e, described, docACL, mentionACL, nameACL, firstACLs, firstChunks, aliasPairs, degreeGroups, degreeCounts,
     reduce(acc = coalesce(e.defined_aliases, []), l IN surfaceLists | acc + [x IN l WHERE NOT x IN acc]) AS aliases
SET e.first_acls = firstACLs, e.first_chunks = firstChunks,
    e.alias_acls = [p IN aliasPairs | p[0]], e.alias_surfaces = [p IN aliasPairs | p[1]],
    e.aliases = [a IN aliases WHERE a <> e.name],
    e.acl = CASE WHEN described THEN docACL ELSE mentionACL END,
    e.name_acl = CASE WHEN described THEN docACL ELSE nameACL END,
    e.uid = coalesce(e.uid, randomUUID()),
    e.degree = COUNT { (e)-[x]-(:Entity) WHERE x.chunk_ids IS NOT NULL },
    e.degree_groups = degreeGroups, e.degree_counts = degreeCounts
WITH e
WHERE NOT EXISTS { (e)--() }
DELETE e
RETURN count(*) AS deleted`

	// growEntitiesCypher is refreshEntitiesCypher for an entity whose support only grew in this
	// batch (new chunks mention it, new relations name it; nothing of it was removed, renamed or
	// redefined): aliases, acl and name_acl gain what the batch's mentions bring (row.mentions:
	// each new mention's surfaces and its chunk's groups) without reading the entity's older
	// mentions — the full refresh costs every mention of a hub entity in every batch that names
	// it, which made ingestion quadratic in the hub's degree. The result is the same sets as a
	// full refresh (TestIntegrationIncrementalRefresh compares them); the degree was counted by
	// upsertRelationsCypher, and the relationships per acl (degree_groups, degree_counts) gain
	// what the batch's relation steps changed (row.degree: degreeDeltas.rows), for an entity
	// that has the lists (a new one gets empty ones; an older graph's wait for RefreshStale). The first mentions per chunk ACL (first_acls, first_chunks: the node
	// views' first surface) take the batch's smaller chunk ids, and the alias lists (alias_acls,
	// alias_surfaces: the views' surfaces per chunk ACL) the batch's new pairs — for an entity
	// that has the lists, or whose every mention is the batch's; an entity of a graph written
	// before the lists keeps none (its views read its mentions) until a full refresh gives it them.
	// It needs one row per entity, which WriteDocuments gives (its rows come from the batch's
	// entities, one per key, each with all its mentions of the batch): it reads the entity's
	// lists in a WITH before its SET, and Neo4j computes that WITH for every row before the SET
	// writes any, so a second row of one entity would undo the first's additions (as two rows of
	// one relation did in upsertRelationsCypher).
	growEntitiesCypher = `
UNWIND $rows AS row
MATCH (e:Entity {key: row.key})
WITH e, row.mentions AS ms, coalesce(row.degree, []) AS dg, coalesce(e.aliases, []) AS al, coalesce(e.acl, []) AS ea, coalesce(e.name_acl, []) AS na
WITH e, al, ea, na, ms, dg,
     reduce(acc = [], m IN ms | acc + [x IN m.surfaces WHERE NOT x IN acc]) AS surfaces,
     reduce(acc = [], m IN ms | acc + [g IN m.acl WHERE NOT g IN acc]) AS mentionACL,
     reduce(acc = [], m IN ms | acc + CASE WHEN e.name IN m.surfaces OR e.name IN m.names THEN [g IN m.acl WHERE NOT g IN acc] ELSE [] END) AS nameACL
WITH e, al, ea, na, surfaces, mentionACL, nameACL, dg,
     CASE WHEN e.first_acls IS NOT NULL OR COUNT { ()-[:MENTIONS]->(e) } = size(ms) THEN
     reduce(st = {acls: coalesce(e.first_acls, []), chunks: coalesce(e.first_chunks, [])},
            m IN [m IN ms WHERE size(m.surfaces) > 0] |
       CASE WHEN NOT m.acl_key IN st.acls THEN {acls: st.acls + m.acl_key, chunks: st.chunks + m.chunk_id}
            ELSE {acls: st.acls, chunks: [i IN range(0, size(st.acls) - 1) |
                    CASE WHEN st.acls[i] = m.acl_key AND m.chunk_id < st.chunks[i] THEN m.chunk_id ELSE st.chunks[i] END]} END)
     END AS first,
     CASE WHEN e.alias_acls IS NOT NULL OR COUNT { ()-[:MENTIONS]->(e) } = size(ms) THEN COLLECT {
       UNWIND [i IN range(0, size(coalesce(e.alias_acls, [])) - 1) | [e.alias_acls[i], e.alias_surfaces[i]]] +
              reduce(acc = [], m IN ms | acc + [x IN m.surfaces | [m.acl_key, x]]) AS p
       WITH DISTINCT p[0] AS k, p[1] AS x ORDER BY k, x
       RETURN [k, x] }
     END AS aliasPairs,
     CASE WHEN e.degree_groups IS NULL OR size(dg) = 0 THEN null ELSE COLLECT {
       WITH reduce(st = {out: [], cur: [], i: 0}, g IN e.degree_groups |
              CASE WHEN g = '' THEN {out: st.out + [{g: st.cur, n: e.degree_counts[st.i]}], cur: [], i: st.i + 1}
                   ELSE {out: st.out, cur: st.cur + g, i: st.i} END).out AS old
       UNWIND old + [d IN dg WHERE NOT any(o IN old WHERE o.g = d.g) | {g: d.g, n: 0}] AS o
       WITH o.g AS g, o.n + reduce(t = 0, d IN dg | t + CASE WHEN d.g = o.g THEN d.n ELSE 0 END) AS n
       WHERE n > 0
       RETURN {g: g, n: n} ORDER BY reduce(k = '', x IN g | k + x + '|') }
     END AS degrees
SET e.first_acls = first.acls, e.first_chunks = first.chunks,
    e.alias_acls = [p IN aliasPairs | p[0]], e.alias_surfaces = [p IN aliasPairs | p[1]],
    e.aliases = al + [x IN surfaces WHERE x <> e.name AND NOT x IN al],
    e.acl = CASE WHEN EXISTS { (e)-[:DESCRIBED_IN]->(:Document) } THEN ea ELSE ea + [g IN mentionACL WHERE NOT g IN ea] END,
    e.name_acl = CASE WHEN EXISTS { (e)-[:DESCRIBED_IN]->(:Document) } THEN na ELSE na + [g IN nameACL WHERE NOT g IN na] END,
    e.uid = coalesce(e.uid, randomUUID()),
    e.degree = coalesce(e.degree, 0)
FOREACH (_ IN CASE WHEN degrees IS NULL THEN [] ELSE [1] END |
  SET e.degree_groups = reduce(acc = [], d IN degrees | acc + d.g + ['']), e.degree_counts = [d IN degrees | d.n])`

	setLatinKeysCypher = `
UNWIND $rows AS row
MATCH (e:Entity {key: row.key})
SET e.latin_keys = row.latin`

	entityNamesCypher = `
UNWIND $keys AS key
MATCH (e:Entity {key: key})
RETURN e.key AS key, e.name AS name, e.aliases AS aliases, e.latin_keys AS latin`

	markDocumentsCypher = `
UNWIND $docs AS d
MATCH (n:Document {id: d.id})
SET n.graph_hash = d.graph_hash, n.extractor = d.extractor`
)

// WriteDocuments replaces the graph contribution of each document in one transaction: the old
// chunks' provenance is removed from relations (relations left without support are deleted), the
// old chunks are deleted, then the document, its chunks (with NEXT_CHUNK), entities (labels from
// the ontology), mentions and relations (chunk_ids merged) are written, entities adopted by a
// document are renamed first (renames: old key → new key; the first of several adopted into one
// key takes it, the others, and one adopted into a key that already exists, merge into that
// entity), and entities left with nothing are deleted. Labels and relationship types not allowed
// by lab fail the whole batch with ErrInvalid.
func (s *Store) WriteDocuments(ctx context.Context, docs []ariadne.DocumentGraph, old map[string][]string,
	renames map[string]string, lab ariadne.Labeler, extractor string) (ariadne.WriteStats, error) {
	var st ariadne.WriteStats
	params, err := writeParams(docs, old, renames, lab, extractor, s.ns)
	if err != nil {
		return st, err
	}
	_, err = s.write(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		st = ariadne.WriteStats{}
		touched := map[string]bool{}
		deltas := degreeDeltas{}
		if len(params.old) > 0 {
			rec, err := single(ctx, tx, s.cy(oldTouchedCypher), map[string]any{"old": params.old})
			if err != nil {
				return nil, err
			}
			keys := strs(get(rec, "keys"))
			for _, k := range keys {
				touched[k] = true
			}
			rec, err = single(ctx, tx, s.cy(pruneRelationsCypher), map[string]any{"keys": keys, "old": params.old})
			if err != nil {
				return nil, err
			}
			n, err := count(rec, "deleted")
			if err != nil {
				return nil, err
			}
			st.DeletedRelations = n
			for _, k := range strs(get(rec, "ends")) { // their degree and support changed
				touched[k] = true
			}
			rec, err = single(ctx, tx, s.cy(deleteChunksCypher), map[string]any{"old": params.old})
			if err != nil {
				return nil, err
			}
			n, err = count(rec, "deleted")
			if err != nil {
				return nil, err
			}
			st.DeletedChunks = n
		}
		// Adoptions one at a time, in key order: the first entity a page adopts takes its key,
		// the next ones merge into it (renameEntityCypher, mergeEntityCypher).
		for _, rn := range params.renames {
			if err := exec(ctx, tx, s.cy(renameEntityCypher), rn); err != nil {
				return nil, err
			}
			recs, err := records(ctx, tx, s.cy(mergeEntityCypher), rn)
			if err != nil {
				return nil, err
			}
			for _, rec := range recs {
				for _, k := range strs(get(rec, "ends")) {
					touched[k] = true
				}
			}
			touched[rn["new"].(string)] = true
		}
		for _, step := range []struct {
			cypher string
			key    string
			rows   []map[string]any
		}{
			{upsertDocumentsCypher, "docs", params.docs},
			{upsertChunksCypher, "chunks", params.chunks},
			{upsertEntitiesCypher, "entities", params.entities},
			{describedInCypher, "subjects", params.subjects},
			{upsertMentionsCypher, "mentions", params.mentions},
			{upsertRelationsCypher + relationChangesReturn, "relations", params.relations},
			{upsertRelationsCypher + "\nWITH a, b, r, created, before\n" + relationACL + relationChangesReturn, "relations", params.fullRelations},
		} {
			if len(step.rows) == 0 {
				continue
			}
			if step.key == "relations" {
				recs, err := records(ctx, tx, s.cy(step.cypher), map[string]any{step.key: step.rows})
				if err != nil {
					return nil, err
				}
				deltas.add(recs)
				continue
			}
			if step.cypher == upsertEntitiesCypher {
				rec, err := single(ctx, tx, s.cy(step.cypher), map[string]any{step.key: step.rows})
				if err != nil {
					return nil, err
				}
				for _, k := range strs(get(rec, "renamed")) {
					touched[k] = true
				}
				continue
			}
			if err := exec(ctx, tx, s.cy(step.cypher), map[string]any{step.key: step.rows}); err != nil {
				return nil, err
			}
		}
		if len(params.pairs) > 0 {
			if err := exec(ctx, tx, s.cy(linkChunksCypher), map[string]any{"pairs": params.pairs}); err != nil {
				return nil, err
			}
		}
		// Entities whose support shrank, that were renamed or that a document of the batch
		// defines are refreshed in full; the others only grew: growEntitiesCypher.
		for _, e := range params.entities {
			if e["defines"].(bool) {
				touched[e["key"].(string)] = true
			}
		}
		for _, k := range params.refreshFull {
			touched[k] = true
		}
		var grown []map[string]any
		for _, e := range params.entities {
			if k := e["key"].(string); !touched[k] {
				grown = append(grown, map[string]any{"key": k, "mentions": params.mentionsOf[k], "degree": deltas.rows(k)})
				delete(deltas, k)
			}
		}
		keys := make([]string, 0, len(touched))
		for k := range touched {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		n, err := s.refreshEntities(ctx, tx, keys)
		if err != nil {
			return nil, err
		}
		st.DeletedEntities = n
		if len(grown) > 0 {
			if err := exec(ctx, tx, s.cy(growEntitiesCypher), map[string]any{"rows": grown}); err != nil {
				return nil, err
			}
			for _, g := range grown {
				keys = append(keys, g["key"].(string))
			}
		}
		for k := range touched { // recounted in full by the refresh
			delete(deltas, k)
		}
		// What is left: ends of the batch's relations that are none of its entities.
		if err := s.applyDegreeDeltas(ctx, tx, deltas); err != nil {
			return nil, err
		}
		if err := s.refreshLatinKeys(ctx, tx, keys); err != nil {
			return nil, err
		}
		if err := exec(ctx, tx, s.cy(markDocumentsCypher), map[string]any{"docs": params.marks}); err != nil {
			return nil, err
		}
		st.Documents, st.Chunks = len(params.docs), len(params.chunks)
		st.Entities, st.Mentions, st.Relations = len(params.entities), len(params.mentions), len(params.relations)
		return nil, nil
	})
	if err != nil {
		return ariadne.WriteStats{}, translate("write documents", err)
	}
	return st, nil
}

// RefreshAll recomputes from scratch what writes keep up to date batch by batch: every entity's
// aliases, visibility (acl, name_acl), degree and Latin keys, and every relation's acl (the union
// of its supporting chunks' groups). Entities left with no support are deleted, as a write would.
// It reads every mention of every entity (1 000 entities per transaction), so it costs what one
// full ingestion's refreshes used to; the tests use it to check that incremental writes leave
// the same graph, and an operator can run it after editing the graph by hand.
func (s *Store) RefreshAll(ctx context.Context) error {
	res, err := s.run(ctx, `MATCH (e:Entity) RETURN collect(e.key) AS keys`, nil)
	if err != nil {
		return translate("refresh all: list entities", err)
	}
	if err := s.refreshKeys(ctx, "refresh all", strs(get(res.Records[0], "keys"))); err != nil {
		return err
	}
	if _, err := s.write(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		return nil, exec(ctx, tx, s.cy(`MATCH (:Entity)-[r]->(:Entity) WHERE r.chunk_ids IS NOT NULL WITH r `+relationACL), nil)
	}); err != nil {
		return translate("refresh all: relations", err)
	}
	return nil
}

// RefreshStale gives the entities of a graph written before the node views' first-mention
// lists (first_acls, first_chunks; see nodeViewsCypher), the views' alias lists (alias_acls,
// alias_surfaces; see viewsCypher) or the relationships counted per acl (degree_groups,
// degree_counts; see readableDegree) their lists, by the full recompute of
// RefreshAll for those entities only, and returns how many it refreshed. Every write since
// keeps the lists (an entity with no mention gets empty ones), so a graph written by this
// version has none stale and the call costs one label scan (~20 ms at 30 000 entities); the
// first call on an older graph costs about what RefreshAll does (2 min 21 s at 100k chunks,
// docs/performance.md). Until then such entities are still shown correctly, by a sort of their
// mentions per read, and their degree is the stored one (every relationship counted).
// cmd/extract calls it after every sync.
func (s *Store) RefreshStale(ctx context.Context) (int, error) {
	res, err := s.run(ctx, `MATCH (e:Entity) WHERE e.first_acls IS NULL OR e.alias_acls IS NULL OR e.degree_groups IS NULL RETURN collect(e.key) AS keys`, nil)
	if err != nil {
		return 0, translate("refresh stale: list entities", err)
	}
	keys := strs(get(res.Records[0], "keys"))
	return len(keys), s.refreshKeys(ctx, "refresh stale", keys)
}

// refreshEntities renames the undocumented entities among keys that no mention spells any more
// (renameUnspelledCypher), then refreshes them in full (refreshEntitiesCypher); it returns how
// many were deleted for having nothing left.
func (s *Store) refreshEntities(ctx context.Context, tx neo4j.ManagedTransaction, keys []string) (int, error) {
	if err := exec(ctx, tx, s.cy(renameUnspelledCypher), map[string]any{"keys": keys, "public": ariadne.PublicGroup}); err != nil {
		return 0, err
	}
	rec, err := single(ctx, tx, s.cy(refreshEntitiesCypher), map[string]any{"keys": keys})
	if err != nil {
		return 0, err
	}
	return count(rec, "deleted")
}

// refreshKeys runs the full entity refresh over keys in sorted parts of 1 000 per transaction.
func (s *Store) refreshKeys(ctx context.Context, op string, keys []string) error {
	slices.Sort(keys)
	for i := 0; i < len(keys); i += 1000 {
		part := keys[i:min(i+1000, len(keys))]
		if _, err := s.write(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
			if _, err := s.refreshEntities(ctx, tx, part); err != nil {
				return nil, err
			}
			return nil, s.refreshLatinKeys(ctx, tx, part)
		}); err != nil {
			return translate(op+": entities", err)
		}
	}
	return nil
}

// refreshLatinKeys stores, for each entity, the phonetic Latin keys of its name and aliases, so
// that the fulltext index finds «Тер Пласт» when asked for "ter plast".
func (s *Store) refreshLatinKeys(ctx context.Context, tx neo4j.ManagedTransaction, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	recs, err := records(ctx, tx, s.cy(entityNamesCypher), map[string]any{"keys": keys})
	if err != nil {
		return err
	}
	rows := make([]map[string]any, 0, len(recs))
	for _, r := range recs {
		names := append([]string{str(get(r, "name"))}, strs(get(r, "aliases"))...)
		latin := textnorm.LatinKeys(names)
		if l, ok := get(r, "latin").(string); ok && l == latin {
			continue // most entities a batch touches gain mentions, not spellings: nothing to write
		}
		rows = append(rows, map[string]any{"key": str(get(r, "key")), "latin": latin})
	}
	if len(rows) == 0 {
		return nil
	}
	return exec(ctx, tx, s.cy(setLatinKeysCypher), map[string]any{"rows": rows})
}

// aclKey is a chunk ACL's key in an entity's first-mention lists (first_acls): its groups,
// distinct and sorted, each followed by '|' — as refreshEntitiesCypher computes it.
func aclKey(acl []string) string {
	gs := slices.Clone(acl)
	slices.Sort(gs)
	var b strings.Builder
	for _, g := range slices.Compact(gs) {
		b.WriteString(g)
		b.WriteByte('|')
	}
	return b.String()
}

// writeBatch holds the parameter rows of one WriteDocuments transaction.
type writeBatch struct {
	old                                                          []string
	docs, chunks, entities, subjects, mentions, relations, marks []map[string]any
	// fullRelations are relations citing a chunk outside the batch: their acl is recomputed
	// from every supporting chunk instead of grown by the batch's.
	fullRelations []map[string]any
	mentionsOf    map[string][]map[string]any // entity key → its new mentions' surfaces and chunk groups
	refreshFull   []string                    // entities mentioned in a chunk outside the batch
	renames       []map[string]any
	pairs         [][]string
}

// relationRow is what the documents of a batch state of one relation: their chunk ids and those
// chunks' groups; known is false when a chunk id is not one of the batch's chunks (its groups
// are not here, so the statement recomputes the acl from the stored chunks).
type relationRow struct {
	chunkIDs, acl []string
	known         bool
}

func writeParams(docs []ariadne.DocumentGraph, old map[string][]string, renames map[string]string, lab ariadne.Labeler, extractor, ns string) (writeBatch, error) {
	var b writeBatch
	for _, ids := range old {
		b.old = append(b.old, ids...)
	}
	slices.Sort(b.old)
	for _, o := range slices.Sorted(maps.Keys(renames)) {
		b.renames = append(b.renames, map[string]any{"old": o, "new": renames[o]})
	}
	entityRows := map[string]map[string]any{}
	rels := map[[3]string]*relationRow{} // source, type, target → the batch's one row for it
	var relOrder [][3]string
	b.mentionsOf = map[string][]map[string]any{}
	written := time.Now().UTC().Format(time.RFC3339Nano) // Document.written_at when its text or acl changes
	for _, dg := range docs {
		d := dg.Doc
		b.docs = append(b.docs, map[string]any{"id": d.ID, "title": d.Title, "type": d.Type, "lang": d.Lang,
			"acl": d.ACL, "version": d.Version, "updated": d.Updated, "content_hash": d.ContentHash(), "path": d.Path,
			"source": d.SourceName(), "aliases": nonNil(d.Aliases), "body": d.Body, "written_at": written})
		b.marks = append(b.marks, map[string]any{"id": d.ID, "graph_hash": dg.GraphHash, "extractor": extractor})
		for i, c := range dg.Chunks {
			b.chunks = append(b.chunks, map[string]any{"id": c.ID, "doc_id": c.DocID, "position": c.Position,
				"heading": c.HeadingPath(), "text": c.Text, "text_hash": ariadne.TextHash(c.Text),
				"acl": c.ACL, "lang": c.Lang, "title": c.Title, "start": c.Start, "end": c.End})
			if i > 0 {
				b.pairs = append(b.pairs, []string{dg.Chunks[i-1].ID, c.ID})
			}
		}
		for _, e := range dg.Entities {
			label, err := lab.Label(e.Type)
			if err != nil || !labelRE.MatchString(label) {
				return b, fmt.Errorf("graph: entity %q has type %q with no allowed label: %w", e.Key, e.Type, ariadne.ErrInvalid)
			}
			defines := e.Key == dg.Subject
			row := map[string]any{"key": e.Key, "name": e.Name, "type": e.Type, "label": ns + label,
				"doc_id": e.DocID, "aliases": nonNil(e.Aliases), "defines": defines, "context": dg.Contexts[e.Key],
				"quoted": []string{}}
			if defines {
				row["quoted"] = nonNil(dg.QuotedAliases)
			}
			if prev, ok := entityRows[e.Key]; !ok || defines && !prev["defines"].(bool) {
				entityRows[e.Key] = row
			}
		}
		if dg.Subject != "" {
			b.subjects = append(b.subjects, map[string]any{"key": dg.Subject, "doc_id": d.ID})
		}
		surfaces := map[[2]string][]string{}
		names := map[[2]string][]string{} // the mentions' names that differ from their surfaces
		var order [][2]string
		for _, m := range dg.Mentions {
			k := [2]string{m.ChunkID, m.EntityKey}
			if _, ok := surfaces[k]; !ok {
				order = append(order, k)
				names[k] = []string{}
			}
			if !slices.Contains(surfaces[k], m.Surface) {
				surfaces[k] = append(surfaces[k], m.Surface)
			}
			if m.Name != "" && m.Name != m.Surface && !slices.Contains(names[k], m.Name) {
				names[k] = append(names[k], m.Name)
			}
		}
		chunkACL := make(map[string][]string, len(dg.Chunks))
		for _, c := range dg.Chunks {
			chunkACL[c.ID] = nonNil(c.ACL)
		}
		for _, k := range order {
			slices.Sort(names[k])
			b.mentions = append(b.mentions, map[string]any{"chunk_id": k[0], "key": k[1], "surfaces": surfaces[k], "names": names[k]})
			acl, ok := chunkACL[k[0]]
			if !ok {
				b.refreshFull = append(b.refreshFull, k[1]) // a chunk outside the batch: its groups are not here
			}
			b.mentionsOf[k[1]] = append(b.mentionsOf[k[1]], map[string]any{"surfaces": surfaces[k], "names": names[k], "acl": acl,
				"chunk_id": k[0], "acl_key": aclKey(acl)})
		}
		for _, r := range dg.Relations {
			if !lab.AllowedRelation(r.Type) || !labelRE.MatchString(r.Type) {
				return b, fmt.Errorf("graph: relationship type %q is not allowed: %w", r.Type, ariadne.ErrInvalid)
			}
			if len(r.ChunkIDs) == 0 {
				return b, fmt.Errorf("graph: relation %s-%s->%s has no provenance: %w", r.Source, r.Type, r.Target, ariadne.ErrInvalid)
			}
			k := [3]string{r.Source, r.Type, r.Target}
			row, ok := rels[k]
			if !ok {
				row = &relationRow{known: true}
				rels[k] = row
				relOrder = append(relOrder, k)
			}
			for _, id := range r.ChunkIDs {
				if !slices.Contains(row.chunkIDs, id) {
					row.chunkIDs = append(row.chunkIDs, id)
				}
				l, ok := chunkACL[id]
				row.known = row.known && ok
				for _, g := range l {
					if !slices.Contains(row.acl, g) {
						row.acl = append(row.acl, g)
					}
				}
			}
		}
	}
	// One row per relation for the whole batch (two documents may state the same relation): the
	// union of their chunk ids and groups, recomputed in full when any chunk is outside the batch.
	for _, k := range relOrder {
		r := rels[k]
		row := map[string]any{"source": k[0], "type": k[1], "target": k[2], "chunk_ids": r.chunkIDs, "acl": nonNil(r.acl)}
		if r.known {
			b.relations = append(b.relations, row)
		} else {
			b.fullRelations = append(b.fullRelations, row)
		}
	}
	keys := make([]string, 0, len(entityRows))
	for k := range entityRows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.entities = append(b.entities, entityRows[k])
	}
	return b, nil
}

const deleteDocumentsCypher = `
UNWIND $ids AS id
MATCH (d:Document {id: id})
OPTIONAL MATCH (e:Entity)-[:DESCRIBED_IN]->(d)
SET e.doc_id = null, e.defined_aliases = [], e.quoted_aliases = []
DETACH DELETE d
RETURN count(DISTINCT d) AS deleted`

// DeleteDocuments removes documents with their chunks, mentions and the provenance their chunks
// gave relations; relations and entities left without support are deleted. An entity a deleted
// document described but other chunks still mention stays, without a document.
func (s *Store) DeleteDocuments(ctx context.Context, old map[string][]string) (ariadne.WriteStats, error) {
	ids := make([]string, 0, len(old))
	for id := range old {
		ids = append(ids, id)
	}
	var st ariadne.WriteStats
	if len(ids) == 0 {
		return st, nil
	}
	// First detach the documents' chunks (same path as a rewrite with no new content)…
	st, err := s.WriteDocuments(ctx, nil, old, nil, nil, "")
	if err != nil {
		return st, err
	}
	// …then the document nodes themselves, and entities they alone described.
	_, err = s.write(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, s.cy(`MATCH (e:Entity)-[:DESCRIBED_IN]->(d:Document) WHERE d.id IN $ids RETURN collect(e.key) AS keys`), map[string]any{"ids": ids})
		if err != nil {
			return nil, err
		}
		rec, err := res.Single(ctx)
		if err != nil {
			return nil, err
		}
		keys := strs(get(rec, "keys"))
		if err := exec(ctx, tx, s.cy(deleteDocumentsCypher), map[string]any{"ids": ids}); err != nil {
			return nil, err
		}
		n, err := s.refreshEntities(ctx, tx, keys)
		if err != nil {
			return nil, err
		}
		st.DeletedEntities += n
		return nil, s.refreshLatinKeys(ctx, tx, keys)
	})
	if err != nil {
		return st, translate("delete documents", err)
	}
	st.DeletedDocuments = len(ids)
	return st, nil
}

// Counts are the numbers of Ariadne's nodes and relationships in the graph.
type Counts struct {
	Documents, Chunks, Entities, Relations, Mentions int
}

const countsCypher = `
CALL () { MATCH (d:Document) WHERE d.content_hash IS NOT NULL RETURN count(d) AS documents }
CALL () { MATCH (c:Chunk) RETURN count(c) AS chunks }
CALL () { MATCH (e:Entity) RETURN count(e) AS entities }
CALL () { MATCH (:Entity)-[r]->(:Entity) RETURN count(r) AS relations }
CALL () { MATCH (:Chunk)-[m:MENTIONS]->(:Entity) RETURN count(m) AS mentions }
RETURN documents, chunks, entities, relations, mentions`

// Count returns the current counts. Documents counts written documents only: an id a running sync
// has claimed (ClaimDocuments: no content hash yet) is not a document until its batch is written.
func (s *Store) Count(ctx context.Context) (Counts, error) {
	res, err := s.run(ctx, countsCypher, nil)
	if err != nil {
		return Counts{}, translate("count", err)
	}
	r := res.Records[0]
	var c Counts
	for _, f := range []struct {
		k string
		v *int
	}{{"documents", &c.Documents}, {"chunks", &c.Chunks}, {"entities", &c.Entities}, {"relations", &c.Relations}, {"mentions", &c.Mentions}} {
		if *f.v, err = count(r, f.k); err != nil {
			return Counts{}, err
		}
	}
	return c, nil
}

// Reset deletes every Document, Chunk, Entity and Source node (Ariadne's whole graph), in batches.
func (s *Store) Reset(ctx context.Context) error {
	// Relationships first, then the nodes, 10 000 per transaction: DETACH DELETE of 5 000 nodes
	// at a time ran out of Neo4j's transaction memory (512 MiB) resetting a 100 000-chunk
	// benchmark namespace, since one batch takes every relationship of the nodes it holds.
	for _, stmt := range []string{
		`MATCH (n)-[r]-() WHERE n:Document OR n:Chunk OR n:Entity OR n:Source WITH DISTINCT r LIMIT 10000 DELETE r RETURN count(*) AS n`,
		`MATCH (n) WHERE n:Document OR n:Chunk OR n:Entity OR n:Source WITH n LIMIT 10000 DETACH DELETE n RETURN count(*) AS n`,
	} {
		for {
			res, err := s.run(ctx, stmt, nil)
			if err != nil {
				return translate("reset", err)
			}
			n, err := count(res.Records[0], "n")
			if err != nil {
				return err
			}
			if n == 0 {
				break
			}
		}
	}
	return nil
}

// write runs work in a managed write transaction (the driver retries transient failures).
func (s *Store) write(ctx context.Context, work neo4j.ManagedTransactionWork) (any, error) {
	sess := s.driver.NewSession(ctx, s.sessionConfig(neo4j.AccessModeWrite))
	defer sess.Close(context.WithoutCancel(ctx))
	return sess.ExecuteWrite(ctx, work)
}

func exec(ctx context.Context, tx neo4j.ManagedTransaction, cypher string, params map[string]any) error {
	res, err := tx.Run(ctx, cypher, params)
	if err != nil {
		return err
	}
	_, err = res.Consume(ctx)
	return err
}

// records runs one statement in tx and returns all its records.
func records(ctx context.Context, tx neo4j.ManagedTransaction, cypher string, params map[string]any) ([]*neo4j.Record, error) {
	res, err := tx.Run(ctx, cypher, params)
	if err != nil {
		return nil, err
	}
	return res.Collect(ctx)
}

func single(ctx context.Context, tx neo4j.ManagedTransaction, cypher string, params map[string]any) (*neo4j.Record, error) {
	res, err := tx.Run(ctx, cypher, params)
	if err != nil {
		return nil, err
	}
	return res.Single(ctx)
}

func get(r *neo4j.Record, k string) any {
	v, _ := r.Get(k)
	return v
}

// count reads an integer column of a record Ariadne's own statement returns; a missing or
// mistyped column is an error, never a silent zero.
func count(r *neo4j.Record, k string) (int, error) {
	n, isNil, err := neo4j.GetRecordValue[int64](r, k)
	if err != nil || isNil {
		return 0, fmt.Errorf("graph: column %q: want an integer (%v)", k, err)
	}
	return int(n), nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func strs(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// DropNamespace deletes the store's whole namespace — its nodes, constraints and indexes — for
// integration tests that cleaned up after themselves. It refuses the default namespace (a user's
// graph) with ErrInvalid.
func (s *Store) DropNamespace(ctx context.Context) error {
	if s.ns == "" {
		return fmt.Errorf("graph: refusing to drop the default namespace: %w", ariadne.ErrInvalid)
	}
	if err := s.Reset(ctx); err != nil {
		return err
	}
	if err := s.dropWriteLocks(ctx); err != nil {
		return err
	}
	for _, stmt := range []string{
		`DROP CONSTRAINT document_id IF EXISTS`, `DROP CONSTRAINT chunk_id IF EXISTS`, `DROP CONSTRAINT entity_key IF EXISTS`,
		`DROP INDEX ` + EntityFulltextIndex + ` IF EXISTS`, `DROP INDEX chunk_doc_id IF EXISTS`,
		`DROP INDEX entity_doc_id IF EXISTS`, `DROP INDEX entity_uid IF EXISTS`,
		`DROP CONSTRAINT source_name IF EXISTS`, `DROP INDEX document_source IF EXISTS`,
	} {
		if _, err := s.run(ctx, stmt, nil); err != nil {
			return translate("drop namespace schema", err)
		}
	}
	return nil
}
