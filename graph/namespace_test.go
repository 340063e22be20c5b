package graph

import "testing"

// TestNamespaceRewrite: labels, the 'Entity' literal and schema names get the prefix;
// relationship types, properties, parameters and map keys do not; no namespace changes nothing.
func TestNamespaceRewrite(t *testing.T) {
	s := &Store{ns: "T42", names: namespaceNames("T42")}
	tests := []struct{ in, want string }{
		{`MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk {id: $id}) RETURN c`, `MATCH (d:T42Document)-[:HAS_CHUNK]->(c:T42Chunk {id: $id}) RETURN c`},
		{`MATCH (n) WHERE n:Document OR n:Entity RETURN n`, `MATCH (n) WHERE n:T42Document OR n:T42Entity RETURN n`},
		{`MATCH p = (c:Client)-[:HAS_PROJECT|FOR_CLIENT]-(:Project) RETURN p`, `MATCH p = (c:T42Client)-[:HAS_PROJECT|FOR_CLIENT]-(:T42Project) RETURN p`},
		{`FOREACH (l IN [x IN labels(n) WHERE x <> 'Entity' AND x <> e.label] | REMOVE n:$(l))`, `FOREACH (l IN [x IN labels(n) WHERE x <> 'T42Entity' AND x <> e.label] | REMOVE n:$(l))`},
		{`CREATE CONSTRAINT document_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE`, `CREATE CONSTRAINT T42_document_id IF NOT EXISTS FOR (d:T42Document) REQUIRE d.id IS UNIQUE`},
		{`CALL db.index.fulltext.queryNodes('entity_names', $query) YIELD node`, `CALL db.index.fulltext.queryNodes('T42_entity_names', $query) YIELD node`},
		{`RETURN cid AS chunk_id, {id: d.id, title: d.title} AS doc, $uidPrefix + e.uid`, `RETURN cid AS chunk_id, {id: d.id, title: d.title} AS doc, $uidPrefix + e.uid`},
	}
	for _, tc := range tests {
		if got := s.cy(tc.in); got != tc.want {
			t.Errorf("cy(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
	plain := &Store{names: namespaceNames("")}
	if got := plain.cy(tests[0].in); got != tests[0].in {
		t.Errorf("no namespace: %q", got)
	}
}
