package ariadne

import "fmt"

// The types on this page cross the line between the services (agent, ingest, httpapi) and the
// store adapters (graph for Neo4j, vector for Weaviate). They live here so that a service depends
// on the adapters only through small interfaces it declares itself, and cmd/* wires the concrete
// stores.

// SearchMode is a search strategy over the chunk index.
type SearchMode string

const (
	// SearchVector ranks by cosine similarity of the query vector. Score: 1 − cosine distance, in
	// [−1, 1].
	SearchVector SearchMode = "vector"
	// SearchBM25 ranks by BM25 over the chunks' analyzed terms. Score: BM25, unbounded.
	SearchBM25 SearchMode = "bm25"
	// SearchHybrid fuses the BM25 and vector rankings. Score: the fused score, in [0, 1] for
	// relative-score fusion.
	SearchHybrid SearchMode = "hybrid"
)

// Fusion is the hybrid fusion algorithm.
type Fusion string

const (
	// FusionRelativeScore min-max normalizes each side's scores and adds them weighted by alpha.
	FusionRelativeScore Fusion = "relative_score"
	// FusionRanked adds reciprocal ranks weighted by alpha.
	FusionRanked Fusion = "ranked"
)

// SearchQuery is one chunk search.
type SearchQuery struct {
	// Terms are the BM25 terms of the question, already analyzed by the caller
	// (textnorm.SearchTerms: stems, transliterations, joined codes); the index holds the same
	// analysis of every chunk (IndexedChunk.SearchText).
	Terms []string
	// Text is the question as asked; hybrid search falls back to it when Terms is empty.
	Text   string
	Vector []float32 // the question's embedding (vector and hybrid)
	// Alpha weighs hybrid fusion: 0 is pure BM25, 1 pure vector. It is always sent.
	Alpha    float64
	Fusion   Fusion
	Groups   []string // the caller's permission groups; required
	Limit    int      // default 10
	ChunkIDs []string // optional: search only among these chunks
	// ScoresOnly returns each hit's chunk id and score (and its vector with WithVectors), without
	// its document id, text and other properties: for scoring many chunks at once (the multi_hop
	// walk), where reading every chunk's text costs more than the search.
	ScoresOnly bool
	// WithVectors also returns each hit's stored embedding (ScoredChunk.Vector): for query
	// feedback from a few chunks, not for long lists (384–768 floats per hit).
	WithVectors bool
}

// IndexedChunk is a chunk as the chunk index stores it: with its embedding and its BM25 terms.
type IndexedChunk struct {
	Chunk
	Vector     []float32
	SearchText string // space-separated BM25 terms of title, heading path and text
	Analysis   string // the analysis SearchText was made with (textnorm.AnalysisVersion)
	ContentKey string // Chunk.ContentKey of the embedder that computed Vector
}

// Embedding identifies the vectors stored in an index: the embedder's name and the dimension. An
// index is only ever written and queried with one Embedding.
type Embedding struct {
	Name string // e.g. "lexical-ngram-v1/768", "openai:multilingual-e5-small"
	Dim  int
}

func (e Embedding) String() string { return fmt.Sprintf("embedder=%s; dim=%d", e.Name, e.Dim) }

// StoredVector is one chunk object of the index as planning sees it.
type StoredVector struct {
	ChunkID  string
	Source   string // DefaultSource for objects written before sources
	Analysis string // the analysis of its BM25 terms (textnorm.AnalysisVersion); "" before versions were stored
}

// UpsertResult counts a batch write to the chunk index.
type UpsertResult struct {
	Written int
	Failed  []ObjectError // per-object errors the index reported
}

// ObjectError is one chunk the index refused.
type ObjectError struct {
	ChunkID string
	Message string
}

// StoredEntity is an entity read back from the graph, with the aliases its defining document gave
// it and the context it was resolved in.
type StoredEntity struct {
	Entity
	DefinedAliases []string
	QuotedAliases  []string
	Context        string
	// NameACL is who may see the entity's own key, name and aliases: its describing document's
	// ACL (graph: name_acl; empty: everyone); for an entity no document describes, the ACLs of
	// the chunks that spell its name.
	NameACL []string
	// Sources are the sources whose documents support the entity: describe it or have chunks
	// that mention it (sorted; empty when only relations hold it).
	Sources []string
}

// EntityCandidate is an entity the graph's fulltext index proposes for a text, as the caller may
// see it, to be confirmed by the resolver's matcher (package resolution) before it counts as
// linked.
type EntityCandidate struct {
	StoredEntity
	Degree int     // entity–entity relationships the caller may read (see PathNode.Degree)
	Score  float64 // fulltext (Lucene) score
}

// Edge is one entity–entity relationship with both endpoints, as read for graph algorithms: ends
// as the caller sees them, only readable supporting chunks.
type Edge struct {
	From, To PathNode
	FromDeg  int // entity–entity degree of From
	ToDeg    int
	Type     string
	ChunkIDs []string // the supporting chunks the caller may read (never empty)
}

// DocumentInfo is a stored document's metadata as the API lists it.
type DocumentInfo struct {
	ID, Title, Type, Lang, Updated string
	Version                        int
	ACL                            []string
	Chunks                         int    // readable chunks
	Source                         string // the source the document is synced from
}

// SourceInfo is one source as a caller sees it: counts only over the documents and chunks the
// caller may read.
type SourceInfo struct {
	Name      string
	Documents int    // readable documents (with at least one readable chunk)
	Chunks    int    // readable chunks
	LastSync  string // RFC 3339 UTC time of the last completed write into the source; "" if unknown
}

// SourceConflict is a document id a run could not write because another source holds it.
type SourceConflict struct {
	DocID  string
	Source string // the source that holds the id
}

// Labeler gives the graph label of an entity type and says whether a relationship type may be
// written. *ontology.Ontology implements it.
type Labeler interface {
	Label(entityType string) (string, error)
	AllowedRelation(rel string) bool
}

// DocumentGraph is everything one document contributes to the graph.
type DocumentGraph struct {
	Doc      Document // stored whole: metadata, front matter aliases and body (graph.Store.StoredDocuments)
	Chunks   []Chunk
	Entities []Entity // every entity the mentions and relations refer to, with names and types
	Subject  string   // key of the entity the document describes ("" when none)
	// QuotedAliases are the subject's nicknames that only match quoted (resolution.Alias).
	QuotedAliases []string
	Mentions      []Mention
	Relations     []Relation
	Contexts      map[string]string // entity key → context (see resolution.Candidate.Context)
	GraphHash     string            // fingerprint of this contribution; unchanged means nothing to write
}

// DocState is what the graph remembers of a stored document.
type DocState struct {
	Source      string // the document's source (DefaultSource for documents stored before sources)
	ContentHash string
	GraphHash   string
	ChunkIDs    []string // sorted
	// Restorable reports whether the graph holds the document's text (body and front matter
	// aliases), so that it can be read back and extracted again; documents written before the
	// graph kept it are not, until a sync writes them again.
	Restorable bool
	// Path is the document's file inside its source's folder (Document.Path; "" when it came
	// from the API's JSON or was written before paths were kept).
	Path string
	// Version is the document's stored front matter version (0: none).
	Version int
	// Extractor names what extracted its facts ("" before it was recorded): the extractor, and
	// "+" and the recognizer when entity recognition ran (ingest's extractorName).
	Extractor string
}

// WriteStats counts what a graph write changed.
type WriteStats struct {
	Documents, Chunks, Entities, Relations, Mentions                   int
	DeletedDocuments, DeletedChunks, DeletedEntities, DeletedRelations int
}

// Total is the number of objects written or deleted.
func (a WriteStats) Total() int {
	return a.Documents + a.Chunks + a.Entities + a.Relations + a.Mentions + a.DeletedDocuments + a.DeletedChunks + a.DeletedEntities +
		a.DeletedRelations
}

// Add sums b into a.
func (a *WriteStats) Add(b WriteStats) {
	a.Documents += b.Documents
	a.Chunks += b.Chunks
	a.Entities += b.Entities
	a.Relations += b.Relations
	a.Mentions += b.Mentions
	a.DeletedDocuments += b.DeletedDocuments
	a.DeletedChunks += b.DeletedChunks
	a.DeletedEntities += b.DeletedEntities
	a.DeletedRelations += b.DeletedRelations
}

// HubDegree is the number of entity–entity relationships above which an entity is a hub (the
// company itself, a standard technology): graph walks reach hubs but do not pass through them,
// since "both mention the company" is not a useful hop. Only the relationships the caller may
// read count (graph's readableDegree).
const HubDegree = 30

// EntityMentions is an entity as a caller sees it with the readable chunks that mention it.
type EntityMentions struct {
	Node     PathNode
	Degree   int      // entity–entity relationships the caller may read (see PathNode.Degree)
	Mentions int      // readable chunks that mention it
	ChunkIDs []string // the first of them by chunk id (at most the reader's limit; none for a hub past its expand bound)
}
