// Ready Cypher queries for architects exploring Ariadne's graph in Neo4j Browser
// (http://127.0.0.1:7474/browser/). Set parameters first with :param, then run a query.
// Every entity–entity relationship carries `chunk_ids` (its provenance) and `acl` (the groups that
// may read at least one of those chunks). Entities: (:Entity:<Type> {key, name, type, aliases}).
// Every label and property: docs/graph-model.md. For a graph in a namespace (--neo4j-namespace N),
// prefix the labels (NEntity, NPerson, …) and the index name (N_entity_names).

// 1. Who works on which project for which client, with the chunks that say so.
MATCH (person:Person)-[works]-(project:Project)-[client_rel:FOR_CLIENT|HAS_PROJECT]-(client:Client)
WHERE type(works) IN ['STAFFED_BY', 'WORKS_ON', 'HAS_MEMBER']
RETURN DISTINCT person.name AS person, type(works) AS role_relation, project.name AS project, client.name AS client,
       works.chunk_ids AS evidence
ORDER BY client, project, person;

// 2. All shortest paths (up to 4 hops) between two named entities, found by name in any
//    spelling or script through the fulltext index, e.g.
//    :param from => 'Lavrovo Port'
//    :param to => 'geolink'
//    Each end is the index's best match (highest score), and among equal scores the entity with
//    the most relations. Query 7 shows what else a name matches. A name is a Lucene query: its
//    words are OR-ed, and / : ( ) " * ? ~ ^ [ ] { } !, a leading - and the like are operators
//    (escape them with \, written \\ in a Cypher string: 'projects\\/berth-planner').
CALL db.index.fulltext.queryNodes('entity_names', $from) YIELD node AS a, score
WITH a ORDER BY score DESC, a.degree DESC, a.key LIMIT 1
CALL db.index.fulltext.queryNodes('entity_names', $to) YIELD node AS b, score
WITH a, b, score WHERE b <> a
WITH a, b ORDER BY score DESC, b.degree DESC, b.key LIMIT 1
MATCH p = allShortestPaths((a)-[*..4]-(b))
WHERE all(r IN relationships(p) WHERE r.chunk_ids IS NOT NULL)
RETURN p;

// 3. The chunks behind one relationship, e.g.
//    :param from => 'projects/berth-planner'
//    :param to => 'technologies/geolink'
MATCH (a:Entity {key: $from})-[r]-(b:Entity {key: $to})
WHERE r.chunk_ids IS NOT NULL
UNWIND r.chunk_ids AS cid
MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk {id: cid})
RETURN type(r) AS relation, d.id AS document, c.heading AS section, c.acl AS acl, c.text AS text;

// 4. One entity's neighbourhood with its documents, e.g. :param key => 'clients/lavrovo-port'
MATCH (e:Entity {key: $key})-[r]-(n:Entity)
WHERE r.chunk_ids IS NOT NULL
OPTIONAL MATCH (e)-[:DESCRIBED_IN]->(d:Document)
RETURN e, r, n, d;

// 5. Spelling variants merged into one entity (aliases), most variants first.
MATCH (e:Entity)
WHERE size(e.aliases) > 0
RETURN e.type AS type, e.name AS name, e.aliases AS aliases
ORDER BY size(e.aliases) DESC LIMIT 50;

// 6. The graph's shape: relationship types between entity types.
MATCH (a:Entity)-[r]->(b:Entity)
RETURN a.type AS from, type(r) AS relation, b.type AS to, count(*) AS n
ORDER BY n DESC;

// 7. Which entities a name finds, best first: the fulltext index over names, aliases and their
//    phonetic Latin keys (what query 2 picks from), e.g. :param name => 'Tundra Energo'
CALL db.index.fulltext.queryNodes('entity_names', $name) YIELD node, score
RETURN node.key AS key, node.name AS name, node.type AS type, node.aliases AS aliases,
       node.degree AS degree, score
ORDER BY score DESC, degree DESC LIMIT 10;
