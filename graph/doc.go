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
// Driver errors are translated into ariadne.ErrUnavailable / ErrInvalid at this boundary.
package graph
