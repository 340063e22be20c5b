// Package graph is Ariadne's Neo4j adapter, the only package that imports the Neo4j driver.
//
// It stores documents, chunks, entities, typed relations and their provenance
// ((:Document)-[:HAS_CHUNK]->(:Chunk)-[:MENTIONS]->(:Entity), entity–entity relationships with
// `chunk_ids`), and reads them back for retrieval: entity linking through a fulltext index,
// neighbourhood expansion and paths between entities, filtered by the caller's permission groups.
//
// Every Cypher statement is a constant next to the method that runs it and takes parameters;
// labels and relationship types, which Cypher cannot parameterize, come only from the
// ontology's allowed list and are checked again here before they are written into a statement.
// Driver errors are translated into ariadne.ErrUnavailable / ErrUnauthorized / ErrInvalid at
// this boundary (store.go), and records are mapped to the root package's types inside it.
//
// Visibility (views.go): every read takes the caller's groups. Entities keep `acl` and `name_acl`
// on the node, refreshed on every write and delete; a caller sees an entity only through chunks
// it may read, and an opaque key (uid:…) where the entity's own key and name come from a
// document it may not read. A Config.Namespace prefixes every label, index and constraint, so
// that several graphs (a user's, each integration test's, the evaluations') share one database.
package graph
