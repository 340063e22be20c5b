package ariadne

// Entity is a resolved real-world thing the corpus talks about: a client, project, person, team,
// technology, incident, service, error code, ... Entities are merged across spelling variants by
// package resolution; Key is the merged identity.
type Entity struct {
	Key     string   // stable identity: "<type>:<resolution key>", e.g. "client:ter plast"
	Name    string   // canonical display name, in the source language of its defining document
	Type    string   // entity type from the ontology, lower case, e.g. "client"
	Aliases []string // every other surface form seen for it (spelling variants, translits, initials)
	DocID   string   // the document that describes this entity, when one exists
	// ChunkIDs are the chunks that mention the entity (provenance of its existence).
	ChunkIDs []string
}

// Relation is a typed, directed fact between two entities with the chunks that state it.
type Relation struct {
	Source   string   // Entity.Key of the subject
	Target   string   // Entity.Key of the object
	Type     string   // relationship type from the ontology's allowed list, e.g. "FOR_CLIENT"
	ChunkIDs []string // provenance: chunks whose text supports the relation; never empty when stored
}

// Mention records that a chunk names an entity (a (:Chunk)-[:MENTIONS]->(:Entity) edge).
type Mention struct {
	ChunkID   string
	EntityKey string
	Surface   string // the exact text found in the chunk
	// Name is the name Surface stands for when entity recognition gave one that differs from it:
	// its nominative («Мурманск» for «Мурманске», «Зорислав Кнутов» for «Кнутов Зорислав
	// Игоревич»); "" otherwise. An undocumented entity so named shows its name to the chunk's
	// readers as if the chunk had written it (the graph's name_acl).
	Name string
}

// PathNode is one entity on a graph path.
type PathNode struct {
	Key   string `json:"key"`
	Name  string `json:"name"`
	Type  string `json:"type"`
	DocID string `json:"doc_id,omitempty"`
	// Degree is the entity's count of entity–entity relationships the caller may read (0: not
	// read), as graph reads give it (graph.Store.EntityDegrees, Edges). It ranks paths (a hub is
	// a weak hop) and is never shown.
	Degree int `json:"-"`
}

// PathEdge is one hop of a graph path with its provenance, already filtered by the caller's groups.
type PathEdge struct {
	From     string   `json:"from"` // PathNode.Key
	To       string   `json:"to"`   // PathNode.Key
	Type     string   `json:"type"`
	ChunkIDs []string `json:"chunk_ids"`
}

// Path is a walk through the entity graph: len(Edges) == len(Nodes)-1 hops.
type Path struct {
	Nodes []PathNode `json:"nodes"`
	Edges []PathEdge `json:"edges"`
}

// Hops returns the number of edges on the path.
func (p Path) Hops() int { return len(p.Edges) }
