// Package deploy holds Ariadne's deployment assets — deploy/local.sh (real Neo4j, Weaviate and
// the e5 embedder on loopback without Docker), the Neo4j Maven assembly, Dockerfiles, Helm values
// and the Neo4j Browser queries and style — and the tests that keep them consistent with
// docker-compose.yml. It has no code that Ariadne's binaries import.
package deploy
