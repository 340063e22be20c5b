// Package ariadne holds Ariadne's domain types — Document, Chunk, Entity, Relation, Path,
// Citation, Answer — and the sentinel errors every layer matches on.
//
// It imports only the standard library. Packages that talk to an external system (graph for
// Neo4j, vector for Weaviate, httpapi for Gin) translate that system's types and errors into
// these at their boundary, so the agent and the ingestion pipeline never see a driver type.
package ariadne
