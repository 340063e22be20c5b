// Package ingest is the indexing pipeline shared by cmd/extract and the API's document endpoints:
// chunk → embed → Weaviate, and extract → resolve → Neo4j, with versions decided by content
// hashes. It reaches the stores only through the GraphStore and VectorStore interfaces it
// declares. A run is planned first by a pure function (PlanRun, plan.go: changed, lost vectors,
// unchanged, deleted, orphaned vectors, conflicts), then applied in batches.
//
// Every document belongs to a named source (Options.Source; ariadne.DefaultSource when empty). Sync
// brings both stores in line with one source's whole corpus and leaves every other source's
// documents alone: new and changed documents are (re)written, unchanged ones are left alone (a
// second run on the same corpus writes nothing), documents that disappeared are deleted with every
// chunk, vector, mention and relation their chunks supported, and entities left without support are
// removed. Upsert and Delete do the same for single documents; with a cheap extractor they also
// extract the source's stored documents again (the graph keeps each document's text), so that a
// series of writes, in any order, ends where a Sync of the corpus does. Work is done in batches of
// documents; a batch is the unit of consistency: its vectors are written first, then its graph in
// one transaction that also records the documents' hashes, then its stale vectors are deleted.
// Stopping between batches leaves both stores consistent, and a batch interrupted halfway is redone
// by the next run because its hashes were not recorded. Document ids are unique across sources:
// before a batch writes anything it claims its document ids for its source in the graph (one
// transaction), and an id another source holds is reported as a conflict and skipped, so two runs
// over different sources may run at the same time against the same stores.
//
// Vectors are reused by content: a chunk whose content key (ariadne.Chunk.ContentKey: embedder,
// title, heading path, text) matches a stored chunk's gets that vector copied instead of being
// embedded again — after a graph reset, for a document another source shares, after a rename —
// when every reader of the new chunk may read the stored one (no timing tells a writer what a
// chunk it may not read says).
package ingest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/ontology"
	"github.com/ariadne-graphrag/ariadne/resolution"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Embedder computes passage embeddings.
type Embedder interface {
	Name() string
	EmbedPassages(ctx context.Context, texts []string) ([][]float32, error)
}

// Extractor states facts about one document (see package extraction).
type Extractor interface {
	Name() string
	Extract(ctx context.Context, in extraction.Input, reg *resolution.Registry) (extraction.Facts, error)
}

// EntityRecognizer finds named entities in the chunks of a run's documents and resolves them
// into the registry before extraction (extraction.NER); the extractor receives them as
// extraction.Input.Recognized, by chunk id.
type EntityRecognizer interface {
	Name() string
	Recognize(ctx context.Context, docs []extraction.Input, reg *resolution.Registry) (map[string][]extraction.Recognized, error)
}

// Costly is implemented by extractors that call a model: their results for unchanged documents
// are kept instead of recomputed.
type Costly interface{ Costly() bool }

// GraphStore is the part of graph.Store the pipeline uses.
type GraphStore interface {
	EnsureSchema(ctx context.Context) error
	DocumentStates(ctx context.Context) (map[string]ariadne.DocState, error)
	LoadEntities(ctx context.Context) ([]ariadne.StoredEntity, error)
	// DependentSources returns the sources whose documents describe or mention an entity one of
	// the documents ids describes (StoredEntity.Sources of those entities), sorted.
	DependentSources(ctx context.Context, ids []string) ([]string, error)
	// StoredDocuments returns the documents of source whose text the graph holds
	// (DocState.Restorable), as they were written, sorted by id; mismatched are those whose
	// rebuilt content hash differs from the stored one (left out of docs).
	StoredDocuments(ctx context.Context, source string) (docs []ariadne.Document, mismatched []string, err error)
	// StoredChunks returns the chunks of those documents as the graph holds them, by document id
	// in position order (the fields copied from the document left empty).
	StoredChunks(ctx context.Context, source string) (map[string][]ariadne.Chunk, error)
	WriteDocuments(ctx context.Context, docs []ariadne.DocumentGraph, old map[string][]string, renames map[string]string, lab ariadne.Labeler, extractor string) (ariadne.WriteStats, error)
	DeleteDocuments(ctx context.Context, old map[string][]string) (ariadne.WriteStats, error)
	// ClaimDocuments records ids as documents of source (creating empty documents for new ids)
	// and returns the ids another source already holds, which it leaves alone.
	ClaimDocuments(ctx context.Context, source string, ids []string) ([]ariadne.SourceConflict, error)
	// MarkSourceSynced records that a run over source completed now.
	MarkSourceSynced(ctx context.Context, source string) error
	// SourceRegistry returns the fingerprint SetSourceRegistry last recorded for source ("" when
	// none); SetSourceRegistry records one, "" clears it.
	SourceRegistry(ctx context.Context, source string) (string, error)
	SetSourceRegistry(ctx context.Context, source, fingerprint string) error
}

// WriteLocker is implemented by graph stores that serialize writers across processes
// (graph.Store.LockWrites: a lease in Neo4j). The pipeline holds the lease for the whole of each
// Sync, Upsert and Delete, so two cmd/extract runs, or an extract run and the API, never plan
// against a graph the other is changing. Stores without it are only serialized per Pipeline.
type WriteLocker interface {
	LockWrites(ctx context.Context) (release func(), err error)
}

// lock takes this pipeline's writer slot, then the cross-process writer lease when the graph
// store has one, waiting at most LockWait (when set) and as long as ctx lives: a caller that
// gives up (ctx done) stops waiting, and a wait past LockWait is ErrWriteBusy. The returned
// function releases both.
func (p *Pipeline) lock(ctx context.Context) (func(), error) {
	wctx := ctx
	if p.lockWait > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, p.lockWait)
		defer cancel()
	}
	busy := func(err error) error {
		if ctx.Err() == nil && wctx.Err() != nil {
			return &BusyError{Wait: p.lockWait}
		}
		return err
	}
	select {
	case p.sem <- struct{}{}:
	case <-wctx.Done():
		return nil, busy(fmt.Errorf("ingest: wait for the writer lock: %w", ctx.Err()))
	}
	l, ok := p.graph.(WriteLocker)
	if !ok {
		return func() { <-p.sem }, nil
	}
	release, err := l.LockWrites(wctx)
	if err != nil {
		<-p.sem
		return nil, busy(neo4jErr(err))
	}
	return func() { release(); <-p.sem }, nil
}

// VectorStore is the part of vector.Store the pipeline uses.
type VectorStore interface {
	EnsureClass(ctx context.Context, e ariadne.Embedding) error
	Upsert(ctx context.Context, chunks []ariadne.IndexedChunk) (ariadne.UpsertResult, error)
	DeleteChunks(ctx context.Context, chunkIDs []string) (int, error)
	StoredVectors(ctx context.Context) ([]ariadne.StoredVector, error)
	// VectorsByContentKey returns stored vectors by content key (ariadne.Chunk.ContentKey) for
	// the keys it holds in chunks every reader of readers (an acl) may read; other keys are
	// absent from the map.
	VectorsByContentKey(ctx context.Context, keys, readers []string) (map[string][]float32, error)
	// Reanalyze rewrites the BM25 terms of stored chunks with analyze, marks them with version,
	// and keeps their vectors; it returns how many it rewrote.
	Reanalyze(ctx context.Context, chunkIDs []string, version string, analyze func(ariadne.Chunk) string) (int, error)
}

// Pipeline indexes documents. Build it with New.
type Pipeline struct {
	chunker   *chunking.Chunker
	embedder  Embedder
	extractor Extractor
	ner       EntityRecognizer // nil: recognition off
	onto      *ontology.Ontology
	graph     GraphStore
	vectors   VectorStore
	log       *slog.Logger
	batchDocs int
	workers   int
	sem       chan struct{} // one write operation at a time (Sync, Upsert, Delete): lock
	lockWait  time.Duration
	dim       int
	names     *lru.Cache[string, docNames] // by content hash (namesOf)
	ontoHash  string                       // hex SHA-256 of the ontology (registryFingerprint)
	// recognitionDown is Config.RecognitionDown ("" when a recognizer is set).
	recognitionDown string
	places          *lexicon.Gazetteer // Config.Places
}

// Config assembles a Pipeline.
type Config struct {
	Chunker   *chunking.Chunker
	Embedder  Embedder
	Extractor Extractor
	// Recognizer, when set, finds entities in every chunk before extraction (NER); nil: off.
	Recognizer EntityRecognizer
	Ontology   *ontology.Ontology
	Graph      GraphStore
	Vectors    VectorStore
	Logger     *slog.Logger
	BatchDocs  int // documents per batch; default 32
	Workers    int // concurrent embedding/extraction calls; default 2
	// RecognitionDown, when set, says that recognition was asked for but is unavailable, and why
	// ("the NER sidecar at … does not answer"); Recognizer is then nil. A run over a source whose
	// stored documents were extracted with recognition then fails with a *RecognitionError and
	// writes nothing, since it would extract them again without it; a source none of whose
	// documents were is indexed without recognition.
	RecognitionDown string
	// Places is the gazetteer the documents' subjects are named with (extraction.Subject: a
	// one-word slug naming a place it knows is no alias of a subject that is not one); nil: none.
	// Commands set it with recognition, whose lexicon holds it, so that every writer of a graph
	// names subjects the same way.
	Places *lexicon.Gazetteer
	// LockWait bounds how long Sync, Upsert and Delete wait for the writer lock (this pipeline's,
	// then the graph store's lease) before giving up with ErrWriteBusy; 0 waits as long as ctx
	// allows. The API sets it so that a write queued behind a long one is answered "busy"
	// instead of hanging (outside tester: a small write waited 471 s behind a 1 MB one).
	LockWait time.Duration
}

// ErrWriteBusy is what a *BusyError is (errors.Is); it wraps ariadne.ErrUnavailable.
var ErrWriteBusy = fmt.Errorf("another write is in progress: %w", ariadne.ErrUnavailable)

// BusyError is returned when another write held the writer lock for all of Wait
// (Config.LockWait); nothing was written. The API words its 503 busy and Retry-After from Wait.
type BusyError struct{ Wait time.Duration }

func (e *BusyError) Error() string {
	return fmt.Sprintf("ingest: the writer lock was held for %s: %v", e.Wait, ErrWriteBusy)
}

// Unwrap makes errors.Is(err, ErrWriteBusy) and errors.Is(err, ariadne.ErrUnavailable) hold.
func (e *BusyError) Unwrap() error { return ErrWriteBusy }

// New returns a pipeline.
func New(cfg Config) (*Pipeline, error) {
	if cfg.Chunker == nil || cfg.Embedder == nil || cfg.Extractor == nil || cfg.Ontology == nil || cfg.Graph == nil || cfg.Vectors == nil {
		return nil, fmt.Errorf("ingest: chunker, embedder, extractor, ontology and both stores are required: %w", ariadne.ErrInvalid)
	}
	p := &Pipeline{chunker: cfg.Chunker, embedder: cfg.Embedder, extractor: cfg.Extractor, onto: cfg.Ontology,
		graph: cfg.Graph, vectors: cfg.Vectors, log: cfg.Logger, batchDocs: cfg.BatchDocs, workers: cfg.Workers, ner: cfg.Recognizer,
		recognitionDown: cfg.RecognitionDown, places: cfg.Places, lockWait: cfg.LockWait, sem: make(chan struct{}, 1)}
	if p.ner != nil {
		p.recognitionDown = ""
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	p.names, _ = lru.New[string, docNames](namesCacheSize) // fails only for a size ≤ 0
	raw, err := json.Marshal(cfg.Ontology)
	if err != nil {
		return nil, fmt.Errorf("ingest: ontology: %w", err)
	}
	h := sha256.Sum256(raw)
	p.ontoHash = hex.EncodeToString(h[:])
	if p.batchDocs <= 0 {
		p.batchDocs = 32
	}
	if p.workers <= 0 {
		p.workers = 2
	}
	return p, nil
}

// Options tune one run.
type Options struct {
	// DryRun computes everything and reports what would change, writing nothing.
	DryRun bool
	// Stop, when closed, ends the run after the batches in progress (SIGINT): the one whose graph
	// is being written and the next, whose vectors are written meanwhile. Nil never stops.
	Stop <-chan struct{}
	// Progress is called after each batch with documents done and total to write.
	Progress func(done, total int)
	// Source is the source the run writes (Sync: the source whose corpus docs are); "" means
	// ariadne.DefaultSource.
	Source string
	// Precheck, when set, is called once per Sync, Upsert or Delete, while the run holds the
	// writer lock (this pipeline's, and the graph store's lease across processes), with what the
	// graph remembers of every stored document, before anything is written. An error ends the run
	// with nothing written and is returned as it is. The API checks there what must not change
	// between its check and the write: who may replace a document, and its stored version.
	Precheck func(ctx context.Context, stored map[string]ariadne.DocState) error
	// A Sync refuses the given documents whose version is lower than their stored document's
	// (Summary.Refused): those stored documents are kept as they are, as for Unread files.
	//
	// Unread are the files of the synced folder that could not be read as documents (Sync only).
	// The stored documents of the source they may hold — stored from one of their paths, or with
	// the id one gives — are kept as they are (Summary.Kept), not deleted: a sync then ends where
	// a sync with their last good files would.
	Unread []UnreadFile
	// RefuseDeleteAll makes a Sync that would delete every stored document of its source fail
	// with a *DeleteAllError, writing nothing (a dry run too): an empty or unmounted folder looks
	// like that. A source with no stored document is synced as usual.
	RefuseDeleteAll bool

	// forget are the keys of the entities that the documents a Delete or a sync deleted
	// described: the runs that extract the remaining documents again do not load them into
	// their registry. Left in the graph until those runs rewrite their mentions, such an entity
	// keeps the deleted page's name; loaded, it stood beside the entity recognition gives the
	// same name, and a note naming it linked to neither (security audit, stop 61).
	forget map[string]bool
}

// Summary reports a run. Writes are zero when nothing changed.
type Summary struct {
	DocsRead       int // documents given to the run
	DocsUnchanged  int
	DocsWritten    int // new or changed documents written (or that would be, in a dry run)
	DocsRelinked   int // unchanged documents whose graph facts changed (new names elsewhere)
	DocsDeleted    int
	DocsFailed     int // documents whose vectors Weaviate refused; retried by the next run
	Chunks         int // chunks of the written documents
	Vectors        int // vectors written
	VectorsReused  int // of those, copied from a stored chunk with the same content key (not embedded)
	Embedded       int // chunk texts sent to the embedder
	VectorErrors   []ariadne.ObjectError
	VectorsDeleted int
	// Reanalyzed counts chunks of unchanged documents whose BM25 terms a sync rewrote because an
	// older analysis made them (Plan.Reanalyze; in a dry run, those it would rewrite).
	Reanalyzed  int
	Entities    int // entities in the registry after resolution (the whole graph: for operators)
	DocEntities int // distinct entities the written documents reference (what a writer may be told)
	Relations   int // relations stated by the written documents
	Merges      int // candidates merged into an existing entity
	Graph       ariadne.WriteStats
	Stopped     bool // the run was stopped between batches
	// Conflicts are given documents not written because another source holds their id.
	Conflicts []ariadne.SourceConflict
	// Kept are the stored documents a sync kept as they were because their files could not be
	// read (Options.Unread), by id.
	Kept []Kept
	// Refused are the given documents a sync did not write because their version is lower than
	// the stored one, which it kept as it was (in the order given).
	Refused []Refusal
	// Deleted are the documents a Delete removed (or would, in a dry run), with their sources,
	// in the order asked, or those a Sync removed as absent from its run (by id); NotFound the
	// ids a Delete was asked for that no stored document has.
	Deleted  []DeletedDoc
	NotFound []string
	// Restored counts what an Upsert or Delete wrote to stored documents it was not given (see
	// Upsert). The other counts, Writes included, describe the given documents only: the API
	// tells a writer those, never anything about documents it may not read.
	Restored RestoredWrites
	// Docs holds, by id, what each given document of the run holds afterwards, whether the run
	// wrote it or found it unchanged (documents another source holds are absent).
	Docs    map[string]DocCounts
	Elapsed time.Duration
	// Phases is where Elapsed went, summed over batches (wall time; the extract phase runs
	// Config.Workers documents at a time). A batch's claim and vectors run while the previous
	// batch's graph is written, so Embed, Vectors and Graph can add up to more than their share
	// of Elapsed.
	Phases Phases
}

// DeletedDoc is a document a Delete removed, and the source it belonged to.
type DeletedDoc struct{ ID, Source string }

// DocCounts is what one document holds: its chunks, the distinct entities its facts refer to
// (its subject included) and the relations it states. Extracted is false for an unchanged
// document a costly extractor (an LLM) did not extract again: its Entities and Relations are
// then not known here and are 0.
type DocCounts struct {
	Chunks, Entities, Relations int
	Extracted                   bool
}

// RestoredWrites counts the rewrites of stored documents a run was not given: an Upsert or Delete
// extracts the source's stored documents again and rewrites those whose facts changed (and those
// whose vectors are missing).
type RestoredWrites struct {
	Extracted      int // stored documents extracted again (none when the registry is the one they were extracted with)
	Docs           int // documents rewritten
	Vectors        int // vectors written (documents whose vectors were missing)
	VectorsDeleted int
	VectorErrors   []ariadne.ObjectError
	Graph          ariadne.WriteStats
}

// Phases splits a run's wall time by step.
type Phases struct {
	Plan    time.Duration // reading stored states, chunking, planning, entity resolution
	Extract time.Duration // NER and relation extraction
	Embed   time.Duration // content-key lookups and the embedder
	Vectors time.Duration // Weaviate upserts and deletes
	Graph   time.Duration // Neo4j claims, writes and deletes
}

// Writes is the number of objects the run wrote or deleted in either store.
func (s Summary) Writes() int {
	return s.Vectors + s.VectorsDeleted + s.Reanalyzed + s.Graph.Total()
}

// visibleCounts returns how many of the entities a document's facts refer to, and how many of its
// relations, every reader of the document may see: an entity whose definition reaches all of them
// (resolution.Registry.Reaches), a relation both of whose ends do. What a writer is told about its
// write (POST /v1/documents) comes from these: the management-only contract a public note names
// is linked for management (hidden mention), and counting it would tell the writer that a page it
// may not read defines the name.
func visibleCounts(w *docWork, reg *resolution.Registry) (entities, relations int) {
	for _, e := range w.entities {
		if reg.Reaches(e.Key, w.doc.ACL) {
			entities++
		}
	}
	for _, r := range w.facts.Relations {
		if reg.Reaches(r.Source, w.doc.ACL) && reg.Reaches(r.Target, w.doc.ACL) {
			relations++
		}
	}
	return entities, relations
}

// docWork is one document being indexed.
type docWork struct {
	doc         ariadne.Document
	chunks      []ariadne.Chunk
	subject     string
	facts       extraction.Facts
	contentNew  bool // content changed: re-embed
	graphHash   string
	oldChunkIDs []string
	recognized  map[string][]extraction.Recognized // NER results of the run by chunk id; nil: off
	entities    []ariadne.Entity                   // the entities the facts refer to, as resolved
	contexts    map[string]string                  // their resolution contexts
	quoted      []string                           // the subject's aliases that only match quoted
	given       bool                               // given to the run (not read back from the graph)
	settled     bool                               // stored, and extracted with this run's registry: left as it is
}

// Sync indexes a whole corpus: docs are every document that should exist; stored documents not
// among them are deleted.
func (p *Pipeline) Sync(ctx context.Context, docs []ariadne.Document, opts Options) (Summary, error) {
	release, err := p.lock(ctx)
	if err != nil {
		return Summary{DocsRead: len(docs)}, err
	}
	defer release()
	return p.index(ctx, docs, true, opts)
}

// Upsert indexes some documents of one source (Options.Source) and deletes nothing else.
//
// With a cheap extractor (the dictionary; not Costly), the source's stored documents are read
// back from the graph (which keeps each document's text) and extracted again with the given
// ones, with the entity registry derived from the whole corpus as Sync derives it; stored
// documents whose facts change — a name the new documents define now links them, an alias they
// announce makes a surface ambiguous — are rewritten after the given ones (Summary.Restored). So
// posting a corpus one document at a time, in any order and from several processes, ends with
// the entities, relations and mentions a Sync of the corpus gives. When a stored document of the
// source cannot be read back (written before the graph kept document text), the given documents
// are linked against the stored entities only, and a Sync of the source restores the rest. With
// a Costly extractor stored documents are not extracted again, as in Sync.
func (p *Pipeline) Upsert(ctx context.Context, docs []ariadne.Document, opts Options) (Summary, error) {
	release, err := p.lock(ctx)
	if err != nil {
		return Summary{DocsRead: len(docs)}, err
	}
	defer release()
	return p.index(ctx, docs, false, opts)
}

// Delete removes documents by id, whatever their source (ids are unique across sources), with
// everything derived from them; Summary.Deleted names each with its source. Unknown ids are left
// out and listed in Summary.NotFound. The remaining documents of their sources are then
// extracted again as Upsert extracts stored documents, so names only the deleted documents
// defined no longer link them.
func (p *Pipeline) Delete(ctx context.Context, ids []string, opts Options) (Summary, error) {
	start := time.Now()
	var sum Summary
	release, err := p.lock(ctx)
	if err != nil {
		return sum, err
	}
	defer release()
	states, err := p.graph.DocumentStates(ctx)
	if err != nil {
		return sum, neo4jErr(err)
	}
	if opts.Precheck != nil {
		if err := opts.Precheck(ctx, states); err != nil {
			return sum, err
		}
	}
	old := map[string][]string{}
	var chunkIDs []string
	gone := map[string]bool{}
	var touched []string // the sources of the deleted documents
	for _, id := range ids {
		st, ok := states[id]
		switch {
		case gone[id] || slices.Contains(sum.NotFound, id): // asked twice
			continue
		case !ok:
			sum.NotFound = append(sum.NotFound, id)
			continue
		}
		sum.Deleted = append(sum.Deleted, DeletedDoc{ID: id, Source: sourceOf(st.Source)})
		old[id] = st.ChunkIDs
		chunkIDs = append(chunkIDs, st.ChunkIDs...)
		gone[id] = true
		touched = append(touched, sourceOf(st.Source))
	}
	if len(touched) > 0 {
		// The rest of those sources is extracted again below.
		if err := recognitionRefusal(p.recognitionDown, states, gone, touched...); err != nil {
			return sum, err
		}
	}
	sum.DocsDeleted = len(old)
	if opts.DryRun || len(old) == 0 {
		sum.Elapsed = time.Since(start)
		return sum, nil
	}
	sources := map[string]bool{}
	for id := range old {
		sources[sourceOf(states[id].Source)] = true
	}
	names := slices.Sorted(maps.Keys(sources))
	for _, src := range names {
		if err := p.graph.SetSourceRegistry(ctx, src, ""); err != nil { // see index
			return sum, neo4jErr(err)
		}
	}
	dependents, err := p.dependentSources(ctx, old, sources)
	if err != nil {
		return sum, err
	}
	forget, err := p.describedBy(ctx, old)
	if err != nil {
		return sum, err
	}
	st, err := p.graph.DeleteDocuments(ctx, old)
	if err != nil {
		return sum, neo4jErr(err)
	}
	sum.Graph.Add(st)
	n, err := p.vectors.DeleteChunks(ctx, chunkIDs)
	if err != nil {
		return sum, weaviateErr(err)
	}
	sum.VectorsDeleted = n
	for _, src := range names {
		// The remaining documents of the source are extracted again: names the deleted documents
		// defined no longer link them (as a sync of the folder without those documents).
		if err := p.extractAgain(ctx, src, forget, opts.Stop, &sum); err != nil {
			return sum, err
		}
		if err := p.graph.MarkSourceSynced(ctx, src); err != nil {
			return sum, err
		}
	}
	if err := p.relinkDependents(ctx, dependents, forget, opts.Stop, &sum); err != nil {
		return sum, err
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// dependentSources returns the sources, other than skip, whose documents mention an entity that
// one of the deleted documents (ids of deleted) describes, sorted. Their extraction linked those
// mentions through the names the deleted page gave: left alone, the entity would outlive its
// page with the key, name and type the page gave it, readable by whoever reads the mentions — a
// restricted contract's id and type shown to anonymous callers after the contract was deleted
// (security audit). Read before the deletion, while the pages still describe their entities.
func (p *Pipeline) dependentSources(ctx context.Context, deleted map[string][]string, skip map[string]bool) ([]string, error) {
	if len(deleted) == 0 {
		return nil, nil
	}
	srcs, err := p.graph.DependentSources(ctx, slices.Sorted(maps.Keys(deleted)))
	if err != nil {
		return nil, neo4jErr(err)
	}
	return slices.DeleteFunc(srcs, func(src string) bool { return skip[src] }), nil
}

// describedBy returns the keys of the stored entities that the documents (ids of deleted)
// describe, read before they are deleted (Options.forget).
func (p *Pipeline) describedBy(ctx context.Context, deleted map[string][]string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(deleted) == 0 {
		return out, nil
	}
	ents, err := p.graph.LoadEntities(ctx)
	if err != nil {
		return nil, neo4jErr(err)
	}
	for _, e := range ents {
		if _, ok := deleted[e.DocID]; ok && e.DocID != "" {
			out[e.Key] = true
		}
	}
	return out, nil
}

// relinkDependents extracts the stored documents of each dependent source again (as Delete
// extracts the rest of a deleted document's source), so that the graph is what indexing the
// remaining documents from scratch gives; their writes count as restored writes.
func (p *Pipeline) relinkDependents(ctx context.Context, dependents []string, forget map[string]bool, stop <-chan struct{}, sum *Summary) error {
	for _, src := range dependents {
		if stopped(stop) {
			sum.Stopped = true
			return nil
		}
		p.log.Info("extracting another source again: its documents mention an entity a deleted document described", "source", src)
		if err := p.extractAgain(ctx, src, forget, stop, sum); err != nil {
			return err
		}
	}
	return nil
}

// extractAgain extracts the stored documents of source again, without the entities of forget in
// its registry (Options.forget), and adds what that wrote to sum's restored writes and phases;
// sum.Entities becomes the whole graph's count after it.
func (p *Pipeline) extractAgain(ctx context.Context, source string, forget map[string]bool, stop <-chan struct{}, sum *Summary) error {
	rs, err := p.index(ctx, nil, false, Options{Source: source, Stop: stop, forget: forget})
	sum.Restored.add(rs.Restored)
	sum.Entities = rs.Entities
	sum.Phases.add(rs.Phases)
	return err
}

// add adds another run's phase times.
func (p *Phases) add(o Phases) {
	p.Plan += o.Plan
	p.Extract += o.Extract
	p.Embed += o.Embed
	p.Vectors += o.Vectors
	p.Graph += o.Graph
}

// Writes is the number of objects the rewrites of other documents wrote or deleted in either store.
func (r RestoredWrites) Writes() int {
	return r.Vectors + r.VectorsDeleted + r.Graph.Total()
}

// add adds what another run restored.
func (r *RestoredWrites) add(o RestoredWrites) {
	r.Extracted += o.Extracted
	r.Docs += o.Docs
	r.Vectors += o.Vectors
	r.VectorsDeleted += o.VectorsDeleted
	r.VectorErrors = append(r.VectorErrors, o.VectorErrors...)
	r.Graph.Add(o.Graph)
}

func (p *Pipeline) index(ctx context.Context, docs []ariadne.Document, full bool, opts Options) (Summary, error) {
	start := time.Now()
	sum := Summary{DocsRead: len(docs)}
	source := sourceOf(opts.Source)
	docs = slices.Clone(docs)
	for i := range docs {
		docs[i].Source = source
	}
	if err := p.prepare(ctx); err != nil {
		return sum, err
	}
	states, err := p.graph.DocumentStates(ctx)
	if err != nil {
		return sum, neo4jErr(err)
	}
	if err := recognitionRefusal(p.recognitionDown, states, nil, source); err != nil {
		return sum, err
	}
	if opts.Precheck != nil {
		if err := opts.Precheck(ctx, states); err != nil {
			return sum, err
		}
	}
	stored, err := p.vectors.StoredVectors(ctx)
	if err != nil {
		return sum, weaviateErr(err)
	}
	costly := false
	if c, ok := p.extractor.(Costly); ok {
		costly = c.Costly()
	}
	// given: the documents the caller gave the run (Summary's counts describe these).
	given := make(map[string]bool, len(docs))
	for _, d := range docs {
		given[d.ID] = true
	}
	// keep: stored documents of the source that a sync was not given because their files could
	// not be read. They stay as they are: they join the run as stored, as an Upsert's stored
	// documents do, and are not deleted.
	// So do those whose given version is older than the stored one.
	var keep map[string]string
	if full {
		keep = keptByUnread(source, states, given, opts.Unread)
		sum.Kept = sortedKept(keep)
		sum.Refused = olderVersions(source, docs, states)
		for _, r := range sum.Refused {
			keep[r.DocID] = r.File
			delete(given, r.DocID)
			docs = slices.DeleteFunc(docs, func(d ariadne.Document) bool { return d.ID == r.DocID })
		}
		kept, err := p.storedDocs(ctx, source, keep)
		if err != nil {
			return sum, err
		}
		docs = append(docs, kept...)
	}
	// rederive: the registry is derived from the source's whole corpus, as a sync derives it —
	// always for a sync, and for an Upsert or Delete whose source's stored documents could all be
	// read back: those join the run, are extracted again, and are rewritten where their facts
	// changed.
	rederive := full
	if !full && !costly {
		restored, ok, err := p.restore(ctx, source, given, states)
		if err != nil {
			return sum, err
		}
		if ok {
			docs = append(docs, restored...)
			rederive = true
		}
	}

	// Chunk the given documents (stored ones get their stored chunks when they are extracted:
	// loadStoredChunks); plan what changed. Documents whose id another source holds leave the run.
	chunks := p.chunkAll(docs, given, source)
	plan := PlanRun(source, docs, chunks, states, stored, full)
	for id := range keep {
		delete(plan.Deleted, id) // those storedDocs could not read back stay untouched
	}
	if full && opts.RefuseDeleteAll {
		if n := deletesAll(source, states, plan); n > 0 {
			return sum, &DeleteAllError{Source: source, Documents: n}
		}
	}
	if len(plan.Conflicts) > 0 {
		sum.Conflicts = append(sum.Conflicts, plan.Conflicts...)
		for _, c := range plan.Conflicts {
			p.log.Error("document id is held by another source; skipped (ids are unique across sources)", "doc_id", c.DocID, "source", source, "held_by", c.Source)
		}
		docs = slices.DeleteFunc(docs, func(d ariadne.Document) bool { return plan.Conflicted(d.ID) })
	}
	// Entities that deleted documents described define no names: a sync's deleted pages (their
	// entities are deleted after this run's writes) and those of the Delete before this run.
	forget := func(e ariadne.StoredEntity) bool {
		_, deleted := plan.Deleted[e.DocID]
		return opts.forget[e.Key] || e.DocID != "" && deleted
	}
	reg, subjects, err := p.buildRegistry(ctx, docs, source, rederive, costly, forget)
	if err != nil {
		return sum, err
	}
	var work []*docWork
	for _, d := range docs {
		st, known := states[d.ID]
		work = append(work, &docWork{doc: d, chunks: chunks[d.ID], subject: subjects[d.ID], oldChunkIDs: st.ChunkIDs,
			contentNew: plan.NeedsEmbedding(d.ID) || given[d.ID] && known && !sameChunks(chunks[d.ID], st.ChunkIDs),
			given:      given[d.ID]})
	}
	if len(plan.Lost) > 0 {
		p.log.Warn("stored documents have chunks missing from this Weaviate class; re-embedding them", "documents", len(plan.Lost))
	}

	// Extract: every document with a cheap extractor (new names may appear elsewhere), only
	// changed ones with a costly one.
	var toExtract []*docWork
	for _, w := range work {
		if w.contentNew || !costly {
			toExtract = append(toExtract, w)
		}
	}
	if p.ner != nil {
		// Recognition resolves names across the whole run: every document's chunks are needed.
		if err := p.loadStoredChunks(ctx, source, work, states); err != nil {
			return sum, err
		}
	}
	sum.Phases.Plan = time.Since(start)
	t := time.Now()
	recognized, err := p.recognize(ctx, toExtract, reg)
	if err != nil {
		return sum, err
	}
	// The registry's fingerprint (registryFingerprint): when the stored documents were last
	// extracted with this very registry, none of them the run was not given can change, and
	// they are not extracted again — a post that brings no new name costs one document's
	// extraction.
	fingerprint, prevFingerprint := "", ""
	if rederive && !costly {
		fingerprint = p.registryFingerprint(reg, subjects, recognized)
		if prevFingerprint, err = p.graph.SourceRegistry(ctx, source); err != nil {
			return sum, neo4jErr(err)
		}
		if !full && prevFingerprint == fingerprint {
			for _, w := range work {
				w.settled = !w.given && !w.contentNew
			}
			toExtract = slices.DeleteFunc(toExtract, func(w *docWork) bool { return w.settled })
		}
	}
	if err := p.loadStoredChunks(ctx, source, toExtract, states); err != nil {
		return sum, err
	}
	if err := p.extract(ctx, toExtract, reg); err != nil {
		return sum, err
	}
	for _, w := range toExtract {
		if !w.given {
			sum.Restored.Extracted++
		}
	}
	sum.Phases.Extract = time.Since(t)
	// write: given documents to write; restored: stored documents the run was not given whose
	// facts changed (or whose vectors are missing), written after them.
	var write, restored []*docWork
	sum.Docs = map[string]DocCounts{}
	for _, w := range work {
		if !w.contentNew && costly {
			if w.given {
				sum.DocsUnchanged++
				sum.Docs[w.doc.ID] = DocCounts{Chunks: len(w.chunks)}
			}
			continue
		}
		if w.settled {
			continue
		}
		w.entities, w.contexts = nil, map[string]string{}
		for _, k := range referencedKeys(w) {
			if e, ok := reg.Get(k); ok {
				w.entities = append(w.entities, e)
				w.contexts[k] = reg.Context(k)
			}
		}
		w.quoted = reg.QuotedAliases(w.subject)
		w.graphHash = p.graphHash(w)
		if w.given {
			ents, rels := visibleCounts(w, reg)
			sum.Docs[w.doc.ID] = DocCounts{Chunks: len(w.chunks), Entities: ents, Relations: rels, Extracted: true}
		}
		st := states[w.doc.ID]
		switch {
		case !w.given:
			if w.contentNew || st.GraphHash != w.graphHash {
				restored = append(restored, w)
			}
		case w.contentNew:
			write = append(write, w)
		case st.GraphHash != w.graphHash || !st.Restorable:
			// Facts changed with names elsewhere, or the graph does not hold the document's
			// text yet (written before it kept it): rewriting it stores the text.
			sum.DocsRelinked++
			write = append(write, w)
		default:
			sum.DocsUnchanged++
		}
	}
	sum.Entities = len(reg.Entities())
	sum.Merges = reg.Merges()
	referenced := map[string]bool{}
	for _, w := range write {
		for _, e := range w.entities {
			if reg.Reaches(e.Key, w.doc.ACL) {
				referenced[e.Key] = true
			}
		}
	}
	sum.DocEntities = len(referenced)

	deleted, orphans := plan.Deleted, plan.Orphans

	for _, w := range write {
		if w.contentNew {
			sum.DocsWritten++
			sum.Chunks += len(w.chunks)
		}
		sum.Relations += len(w.facts.Relations)
	}
	sum.DocsDeleted = len(deleted)
	// A sync names what it deletes, as Delete does: a document posted through the API into the
	// synced source is deleted by the next sync of its folder, and "deleted 2" did not say
	// which (outside tester).
	for _, id := range slices.Sorted(maps.Keys(deleted)) {
		sum.Deleted = append(sum.Deleted, DeletedDoc{ID: id, Source: sourceOf(states[id].Source)})
	}
	sum.Restored.Docs = len(restored)
	if full {
		// Only a sync rewrites terms an older analysis made: it may touch every chunk of the
		// source once after an upgrade, which a single document's write should not wait for.
		sum.Reanalyzed = len(plan.Reanalyze)
	}
	if opts.DryRun {
		sum.Elapsed = time.Since(start)
		return sum, nil
	}

	renames := reg.Renames()
	if len(write)+len(restored)+len(deleted) > 0 && (prevFingerprint != "" || fingerprint == "") {
		// The source's facts are about to change: until this run completes, no registry
		// describes them (a run that fails halfway leaves none, and the next extracts everything).
		if err := p.graph.SetSourceRegistry(ctx, source, ""); err != nil {
			return sum, neo4jErr(err)
		}
		prevFingerprint = ""
	}
	faultPoint("before-first-batch", 0)
	// Pages that define an entity go first: a batch refreshes the entities its documents define
	// from all their mentions (graph.Store.WriteDocuments), so a hub's page written after the
	// notes that mention it reads every one of those mentions, and one written before them reads
	// none (the notes then only grow it). The order within each group is kept.
	definingFirst(write)
	if err := p.writeBatches(ctx, source, write, renames, opts, &sum); err != nil {
		return sum, err
	}
	if len(restored) > 0 && !sum.Stopped {
		if len(write) > 0 {
			renames = nil // applied with the first batch
		}
		var rs Summary
		err := p.writeBatches(ctx, source, restored, renames, Options{Stop: opts.Stop}, &rs)
		sum.Restored = RestoredWrites{Extracted: sum.Restored.Extracted, Docs: len(restored) - rs.DocsFailed, Vectors: rs.Vectors,
			VectorsDeleted: rs.VectorsDeleted, VectorErrors: rs.VectorErrors, Graph: rs.Graph}
		sum.Stopped = rs.Stopped
		sum.Phases.Embed += rs.Phases.Embed
		sum.Phases.Vectors += rs.Phases.Vectors
		sum.Phases.Graph += rs.Phases.Graph
		if err != nil {
			return sum, err
		}
	}
	if !sum.Stopped && len(deleted) > 0 {
		dependents, err := p.dependentSources(ctx, deleted, map[string]bool{source: true})
		if err != nil {
			return sum, err
		}
		described, err := p.describedBy(ctx, deleted)
		if err != nil {
			return sum, err
		}
		st, err := p.graph.DeleteDocuments(ctx, deleted)
		if err != nil {
			return sum, neo4jErr(err)
		}
		sum.Graph.Add(st)
		var ids []string
		for _, chunkIDs := range deleted {
			ids = append(ids, chunkIDs...)
		}
		n, err := p.vectors.DeleteChunks(ctx, ids)
		if err != nil {
			return sum, weaviateErr(err)
		}
		sum.VectorsDeleted += n
		if err := p.relinkDependents(ctx, dependents, described, opts.Stop, &sum); err != nil {
			return sum, err
		}
	}
	if !sum.Stopped && len(orphans) > 0 {
		n, err := p.vectors.DeleteChunks(ctx, orphans)
		if err != nil {
			return sum, weaviateErr(err)
		}
		p.log.Info("deleted vectors no stored document owns", "source", source, "count", n)
		sum.VectorsDeleted += n
	}
	if !sum.Stopped && sum.Reanalyzed > 0 {
		t := time.Now()
		n, err := p.vectors.Reanalyze(ctx, plan.Reanalyze, textnorm.AnalysisVersion, SearchText)
		sum.Phases.Vectors += time.Since(t)
		sum.Reanalyzed = n
		if err != nil {
			return sum, weaviateErr(err)
		}
		p.log.Info("rewrote the BM25 terms of unchanged chunks an older analysis made (vectors kept)", "source", source,
			"chunks", n, "analysis", textnorm.AnalysisVersion, "took", time.Since(t).Round(time.Millisecond))
	}
	if !sum.Stopped {
		if err := p.graph.MarkSourceSynced(ctx, source); err != nil {
			return sum, err
		}
		if fingerprint != prevFingerprint && fingerprint != "" {
			if err := p.graph.SetSourceRegistry(ctx, source, fingerprint); err != nil {
				return sum, neo4jErr(err)
			}
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// registryFingerprint is the hex SHA-256 of everything besides a document's own content and
// chunks that its extracted facts and graph hash depend on: the extractor (and recognizer), the
// ontology, every entity of the registry (key, name, type, describing document, aliases in
// order, quoted aliases, context), each document's subject, and the recognized entities by
// chunk. Equal fingerprints mean a stored document extracted again gives the facts it has.
func (p *Pipeline) registryFingerprint(reg *resolution.Registry, subjects map[string]string, recognized map[string][]extraction.Recognized) string {
	type entity struct {
		ariadne.Entity
		Quoted  []string
		Context string
		Reach   []string `json:",omitempty"` // absent for public definitions: fingerprints of public corpora did not change
	}
	ents := reg.Entities()
	rows := make([]entity, len(ents))
	for i, e := range ents {
		rows[i] = entity{e, reg.QuotedAliases(e.Key), reg.Context(e.Key), reg.Reach(e.Key)}
	}
	raw, _ := json.Marshal(struct {
		Extractor, Ontology string
		Entities            []entity
		Subjects            map[string]string
		Recognized          map[string][]extraction.Recognized
	}{p.extractorName(), p.ontoHash, rows, subjects, recognized})
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// neo4jErr and weaviateErr name the store a failed call went to, so that a failed run says
// which server to look at ("ingest: Neo4j (graph store) failed: graph: write documents: …").
// Batches reported through Options.Progress before the error are committed in both stores;
// nothing of the failed batch is reported, and the next run redoes it (its hashes were not
// recorded).
func neo4jErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("ingest: Neo4j (graph store) failed: %w", err)
}

func weaviateErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("ingest: Weaviate (vector store) failed: %w", err)
}

func stopped(stop <-chan struct{}) bool {
	if stop == nil {
		return false
	}
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// prepare makes sure both stores have their schema; it learns the embedding dimension with one
// probe call the first time.
func (p *Pipeline) prepare(ctx context.Context) error {
	if err := p.graph.EnsureSchema(ctx); err != nil {
		return neo4jErr(err)
	}
	if p.dim == 0 {
		v, err := p.embedder.EmbedPassages(ctx, []string{"dimension probe"})
		if err != nil {
			return fmt.Errorf("ingest: embedder %s: %w", p.embedder.Name(), err)
		}
		p.dim = len(v[0])
	}
	return weaviateErr(p.vectors.EnsureClass(ctx, ariadne.Embedding{Name: p.embedder.Name(), Dim: p.dim}))
}

// Resolve returns the entity registry Sync would build for docs (their subjects and discovered
// names, resolved, and the entities recognition finds when it is on), without writing anything.
// Evaluations use it to score entity resolution.
func (p *Pipeline) Resolve(ctx context.Context, docs []ariadne.Document) (*resolution.Registry, error) {
	reg, subjects, err := p.buildRegistry(ctx, docs, "", true, false, nil)
	if err != nil {
		return nil, err
	}
	return reg, p.recognizeAll(ctx, docs, subjects, reg)
}

// restore reads back the stored documents of source that the run was not given (given holds the
// given ids), so that an Upsert or Delete extracts them again with the given ones: then the
// entities, relations and mentions of the source are what a sync of its whole corpus derives,
// whatever order documents were posted in (docs/reliability.md, "Concurrent writers"). ok is
// false when a stored document of the source cannot be read back — written before the graph kept
// document text, or its node edited by hand — and then the run links the given documents
// against the stored entities only, as single-document writes did before; a sync of the source
// writes the missing text. Ids claimed by a run that never wrote them (no content hash) are not
// documents and are skipped.
func (p *Pipeline) restore(ctx context.Context, source string, given map[string]bool, states map[string]ariadne.DocState) ([]ariadne.Document, bool, error) {
	want := map[string]bool{}
	var missing []string
	for id, st := range states {
		if sourceOf(st.Source) != source || given[id] || st.ContentHash == "" {
			continue
		}
		want[id] = true
		if !st.Restorable {
			missing = append(missing, id)
		}
	}
	if len(want) == 0 {
		return nil, true, nil
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		p.log.Warn("stored documents of this source were written before the graph kept their text; this write links against stored entities only and does not relink them (a sync of the source stores their text)",
			"source", source, "documents", len(missing), "first", missing[0])
		return nil, false, nil
	}
	docs, mismatched, err := p.graph.StoredDocuments(ctx, source)
	if err != nil {
		return nil, false, neo4jErr(err)
	}
	if len(mismatched) > 0 {
		p.log.Warn("stored documents of this source do not match their content hash; this write links against stored entities only (a sync of the source rewrites them)",
			"source", source, "documents", len(mismatched), "first", mismatched[0])
		return nil, false, nil
	}
	docs = slices.DeleteFunc(docs, func(d ariadne.Document) bool { return !want[d.ID] })
	if len(docs) != len(want) {
		p.log.Warn("could not read back every stored document of this source; this write links against stored entities only",
			"source", source, "stored", len(want), "read", len(docs))
		return nil, false, nil
	}
	return docs, true, nil
}

// storedDocs reads back the stored documents of source with the ids of keep, as restore does;
// one that cannot be read back (written before the graph kept its text, or edited by hand) is
// left out with a warning, and the caller leaves it as it is.
func (p *Pipeline) storedDocs(ctx context.Context, source string, keep map[string]string) ([]ariadne.Document, error) {
	if len(keep) == 0 {
		return nil, nil
	}
	docs, _, err := p.graph.StoredDocuments(ctx, source)
	if err != nil {
		return nil, neo4jErr(err)
	}
	docs = slices.DeleteFunc(docs, func(d ariadne.Document) bool { _, ok := keep[d.ID]; return !ok })
	if len(docs) < len(keep) {
		p.log.Warn("stored documents kept for files that could not be read cannot be read back from the graph; they stay as they are, not extracted again (a sync with their files fixed rewrites them)",
			"source", source, "kept", len(keep), "read", len(docs))
	}
	return docs, nil
}

// loadStoredChunks gives the stored documents among work that have no chunks yet their chunks as
// the graph holds them (chunking again costs more than the rest of extraction); a document whose
// stored chunks do not match its text and chunk ids is chunked again, and then re-embedded.
func (p *Pipeline) loadStoredChunks(ctx context.Context, source string, work []*docWork, states map[string]ariadne.DocState) error {
	var need []*docWork
	for _, w := range work {
		if !w.given && w.chunks == nil {
			need = append(need, w)
		}
	}
	if len(need) == 0 {
		return nil
	}
	stored, err := p.graph.StoredChunks(ctx, source)
	if err != nil {
		return neo4jErr(err)
	}
	for _, w := range need {
		st := states[w.doc.ID]
		if cs, ok := storedChunks(w.doc, stored[w.doc.ID], st.ChunkIDs); ok {
			w.chunks = cs
			continue
		}
		p.log.Warn("a stored document's chunks do not match its text; chunking it again", "doc_id", w.doc.ID)
		w.chunks = p.chunker.Split(w.doc)
		for i := range w.chunks {
			w.chunks[i].Source = source
		}
		w.contentNew = w.contentNew || !sameChunks(w.chunks, st.ChunkIDs)
	}
	return nil
}

// storedChunks completes a stored document's chunks as the graph returned them (graph.Store.
// StoredChunks) with the fields chunks copy from their document; ok is false unless every chunk's
// id is the one its position and text make and the ids are the stored ones (ids, sorted).
func storedChunks(d ariadne.Document, cs []ariadne.Chunk, ids []string) ([]ariadne.Chunk, bool) {
	if len(cs) == 0 || !sameChunks(cs, ids) {
		return nil, false
	}
	out := slices.Clone(cs)
	hash := d.ContentHash()
	for i := range out {
		c := &out[i]
		if c.Position != i || c.ID != ariadne.ChunkID(d.ID, c.Position, c.Text) {
			return nil, false
		}
		c.DocID, c.DocVersion, c.DocHash, c.DocType, c.Updated, c.Source = d.ID, d.Version, hash, d.Type, d.Updated, d.SourceName()
	}
	return out, true
}

// sameChunks reports whether chunks have exactly the stored chunk ids (sorted).
func sameChunks(chunks []ariadne.Chunk, stored []string) bool {
	if len(chunks) != len(stored) {
		return false
	}
	ids := make([]string, len(chunks))
	for i, c := range chunks {
		ids[i] = c.ID
	}
	slices.Sort(ids)
	return slices.Equal(ids, stored)
}

// buildRegistry resolves the subjects and discovered names of docs. For a full sync of a source
// the registry is rebuilt from the corpus and the entities other sources support (so with one
// source it is the same on every run); otherwise, and for costly extractors, every entity already
// in the graph is loaded first, but those forget reports (nil: none). source "" loads nothing
// for a full sync (Resolve).
func (p *Pipeline) buildRegistry(ctx context.Context, docs []ariadne.Document, source string, full, costly bool, forget func(ariadne.StoredEntity) bool) (*resolution.Registry, map[string]string, error) {
	reg := resolution.NewRegistry(p.onto.Nicknames)
	taken := map[string]string{}
	if !full || costly || source != "" {
		storedEntities, err := p.graph.LoadEntities(ctx)
		if err != nil {
			return nil, nil, neo4jErr(err)
		}
		inRun := map[string]bool{}
		for _, d := range docs {
			inRun[d.ID] = true
		}
		for _, e := range storedEntities {
			if e.DocID != "" && inRun[e.DocID] {
				continue // redefined by this run
			}
			if forget != nil && forget(e) {
				continue // described by a deleted document
			}
			if full && !costly && !slices.ContainsFunc(e.Sources, func(s string) bool { return s != source }) {
				continue // only this source supports it: the corpus decides again
			}
			ent := e.Entity
			if e.DocID != "" {
				ent.Aliases = e.DefinedAliases
			}
			reg.Load(ent, e.Context, e.QuotedAliases)
			// A described entity reaches its document's readers; any other, the readers of the
			// chunks that spell its name (a name only a management note gave reaches management).
			reg.SetReach(ent.Key, e.NameACL)
			for _, n := range append([]string{ent.Name}, ent.Aliases...) {
				taken[textnorm.Key(n)] = ent.Type
			}
		}
	}
	// Resolve in document id order, so that the registry depends on the set of documents and not
	// on the order they were given in (a sync of a folder, a series of posts).
	docs = slices.Clone(docs)
	slices.SortStableFunc(docs, func(a, b ariadne.Document) int { return strings.Compare(a.ID, b.ID) })
	var infos []extraction.SubjectInfo
	discovered := make([][]resolution.Candidate, len(docs))
	for i, d := range docs {
		n := p.namesOf(d)
		if n.described {
			n.subject.ACL = slices.Clone(d.ACL) // the entity's reach (Registry.Reaches)
			infos = append(infos, n.subject)
		}
		for j := range n.discovered {
			n.discovered[j].ACL = slices.Clone(d.ACL)
		}
		discovered[i] = n.discovered
	}
	extraction.Deconflict(infos, taken)
	subjects := map[string]string{}
	for _, info := range infos {
		key, _ := reg.Resolve(info.Candidate)
		for _, q := range info.QuotedOnly {
			reg.AddAlias(key, resolution.Alias{Text: q, QuotedOnly: true})
		}
		subjects[info.DocID] = key
	}
	for _, cs := range discovered {
		for _, c := range cs {
			reg.Resolve(c)
		}
	}
	return reg, subjects, nil
}

// docNames is what a document brings to the registry before resolution: the entity it describes
// (extraction.Subject; described is false when its type describes none) and the names
// extraction.Discover finds in it.
type docNames struct {
	subject    extraction.SubjectInfo
	described  bool
	discovered []resolution.Candidate
}

// namesCacheSize bounds Pipeline.names (documents; a few hundred bytes each).
const namesCacheSize = 100_000

// namesOf returns a document's names, computed once per content (Pipeline.names: an Upsert reads
// the source's stored documents back and resolves all of them again). The result is the
// caller's to change.
func (p *Pipeline) namesOf(d ariadne.Document) docNames {
	key := d.ContentHash()
	n, ok := p.names.Get(key)
	if !ok {
		n.subject, n.described = extraction.Subject(d, p.onto, p.places)
		n.discovered = extraction.Discover(d)
		p.names.Add(key, n)
	}
	n.subject.Aliases = slices.Clone(n.subject.Aliases)
	n.subject.QuotedOnly = slices.Clone(n.subject.QuotedOnly)
	n.subject.Alternates = slices.Clone(n.subject.Alternates)
	n.discovered = slices.Clone(n.discovered)
	return n
}

// extract runs the extractor over docs with bounded concurrency.
func (p *Pipeline) extract(ctx context.Context, docs []*docWork, reg *resolution.Registry) error {
	reg.Matcher() // compile once before the workers read it
	sem := make(chan struct{}, p.workers)
	errs := make([]error, len(docs))
	var wg sync.WaitGroup
	for i, w := range docs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			facts, err := p.extractor.Extract(ctx, extraction.Input{Doc: w.doc, Chunks: w.chunks, SubjectKey: w.subject,
				Recognized: w.recognized}, reg)
			if err != nil {
				errs[i] = fmt.Errorf("ingest: extract %s: %w", w.doc.ID, err)
				return
			}
			w.facts = facts
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// graphHash fingerprints what a document contributes to the graph (w.entities must be set).
func (p *Pipeline) graphHash(w *docWork) string {
	type ent struct {
		Key, Name, Type, DocID, Context string
		Aliases                         []string
	}
	var ents []ent
	for _, e := range w.entities {
		x := ent{Key: e.Key, Name: e.Name, Type: e.Type, DocID: e.DocID, Context: w.contexts[e.Key]}
		if e.Key == w.subject {
			x.Aliases = slices.Clone(e.Aliases)
			sort.Strings(x.Aliases)
		}
		ents = append(ents, x)
	}
	var ids []string
	for _, c := range w.chunks {
		ids = append(ids, c.ID)
	}
	raw, _ := json.Marshal(struct {
		Extractor string
		Content   string
		Chunks    []string
		Subject   string
		Quoted    []string
		Entities  []ent
		Mentions  []ariadne.Mention
		Relations []ariadne.Relation
	}{p.extractorName(), w.doc.ContentHash(), ids, w.subject, w.quoted, ents, w.facts.Mentions, w.facts.Relations})
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// referencedKeys returns the sorted keys of the entities a document's facts refer to, with its
// subject.
func referencedKeys(w *docWork) []string {
	set := map[string]bool{}
	if w.subject != "" {
		set[w.subject] = true
	}
	for _, m := range w.facts.Mentions {
		set[m.EntityKey] = true
	}
	for _, r := range w.facts.Relations {
		set[r.Source], set[r.Target] = true, true
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// vectorStage is the first half of a batch's write: its ids claimed for the source, its chunks
// vectorized and upserted to Weaviate. delta holds what it adds to the run's Summary (merged
// when the stage is joined: it may run while the previous batch's graph write does).
type vectorStage struct {
	batch      []*docWork
	failedDocs map[string]bool // documents whose vectors Weaviate refused
	delta      Summary
	err        error
}

// writeBatches writes the batches in order, each in two stages: its claim and vectors (Weaviate)
// first, then its graph (Neo4j) and the deletion of its stale vectors. The vector stage of batch
// n+1 runs while batch n's graph is written, so the two stores' writes overlap; within a batch
// the order stays vectors before graph, so a chunk in the graph always has its vector, and a
// failure leaves at most vectors ahead of the graph — the state a failure between a batch's two
// writes always left: the next run writes those documents again and its orphan sweep deletes
// vectors no document owns. A batch is reported (Options.Progress) once its graph is committed; after a failure
// the job waits for the stage in flight and returns the earlier batch's error first. Stop is
// checked before a batch's vector stage starts; a started batch runs to completion even if ctx's
// parent is cancelled by SIGINT (the job passes Stop for that, and ctx only for hard deadlines).
func (p *Pipeline) writeBatches(ctx context.Context, source string, write []*docWork, renames map[string]string, opts Options, sum *Summary) error {
	var batches [][]*docWork
	for i := 0; i < len(write); i += p.batchDocs {
		batches = append(batches, write[i:min(i+p.batchDocs, len(write))])
	}
	start := func(n int) chan *vectorStage {
		done := make(chan *vectorStage, 1)
		go func() {
			st := &vectorStage{}
			st.batch, st.failedDocs, st.err = p.writeVectors(ctx, source, batches[n], n+1, &st.delta)
			done <- st
		}()
		return done
	}
	if len(batches) == 0 {
		return nil
	}
	if stopped(opts.Stop) {
		sum.Stopped = true
		return nil
	}
	next := start(0)
	written := 0
	for n := range batches {
		st := <-next
		sum.addVectorStage(st.delta)
		if st.err != nil {
			return st.err
		}
		next = nil
		if n+1 < len(batches) {
			if stopped(opts.Stop) {
				sum.Stopped = true
			} else {
				next = start(n + 1)
			}
		}
		err := p.writeGraph(ctx, st.batch, st.failedDocs, n+1, renames, sum)
		renames = nil
		if err != nil {
			if next != nil {
				// Its vectors, if written, belong to documents the graph does not have yet (or has
				// in their old version): the next run writes those documents again.
				sum.addVectorStage((<-next).delta)
			}
			return err
		}
		written += len(batches[n])
		if opts.Progress != nil {
			opts.Progress(written, len(write))
		}
		if next == nil {
			return nil
		}
	}
	return nil
}

// addVectorStage adds what a vector stage counted.
func (s *Summary) addVectorStage(d Summary) {
	s.DocsWritten += d.DocsWritten
	s.Chunks += d.Chunks
	s.Vectors += d.Vectors
	s.VectorsReused += d.VectorsReused
	s.Embedded += d.Embedded
	s.VectorErrors = append(s.VectorErrors, d.VectorErrors...)
	s.Conflicts = append(s.Conflicts, d.Conflicts...)
	s.Phases.Embed += d.Phases.Embed
	s.Phases.Vectors += d.Phases.Vectors
	s.Phases.Graph += d.Phases.Graph
}

// writeVectors claims the batch's document ids for the source and writes its chunks' vectors;
// it returns the batch without the documents another source holds, and the documents whose
// vectors Weaviate refused. sum receives its counts.
func (p *Pipeline) writeVectors(ctx context.Context, source string, batch []*docWork, n int, sum *Summary) ([]*docWork, map[string]bool, error) {
	// Claim the batch's ids for the source before writing anything: an id another source took
	// since planning (a concurrent run) is a conflict, and that document's vectors are not touched.
	ids := make([]string, 0, len(batch))
	for _, w := range batch {
		ids = append(ids, w.doc.ID)
	}
	t := time.Now()
	conflicts, err := p.graph.ClaimDocuments(ctx, source, ids)
	sum.Phases.Graph += time.Since(t)
	if err != nil {
		return nil, nil, neo4jErr(err)
	}
	if len(conflicts) > 0 {
		sum.Conflicts = append(sum.Conflicts, conflicts...)
		taken := map[string]bool{}
		for _, c := range conflicts {
			taken[c.DocID] = true
			p.log.Error("document id is held by another source; skipped (ids are unique across sources)", "doc_id", c.DocID, "source", source, "held_by", c.Source)
		}
		batch = slices.DeleteFunc(slices.Clone(batch), func(w *docWork) bool {
			if taken[w.doc.ID] && w.contentNew {
				sum.DocsWritten--
				sum.Chunks -= len(w.chunks)
			}
			return taken[w.doc.ID]
		})
	}
	var chunks []ariadne.Chunk
	for _, w := range batch {
		if w.contentNew {
			chunks = append(chunks, w.chunks...)
		}
	}
	failedDocs := map[string]bool{}
	if len(chunks) > 0 {
		t = time.Now()
		indexed, err := p.vectorize(ctx, chunks, sum)
		sum.Phases.Embed += time.Since(t)
		if err != nil {
			return nil, nil, err
		}
		faultPoint("after-embed", n)
		t = time.Now()
		res, err := p.vectors.Upsert(ctx, indexed)
		sum.Phases.Vectors += time.Since(t)
		if err != nil {
			return nil, nil, weaviateErr(err)
		}
		faultPoint("after-vectors", n)
		sum.Vectors += res.Written
		sum.VectorErrors = append(sum.VectorErrors, res.Failed...)
		for _, f := range res.Failed {
			failedDocs[ariadne.DocIDOfChunk(f.ChunkID)] = true
			p.log.Error("Weaviate refused a chunk; its document will be retried next run", "chunk", f.ChunkID, "error", f.Message)
		}
	}
	return batch, failedDocs, nil
}

// writeGraph writes the batch's documents to the graph (except failedDocs, retried by the next
// run) and then deletes the vectors of chunks the new versions no longer have.
func (p *Pipeline) writeGraph(ctx context.Context, batch []*docWork, failedDocs map[string]bool, n int, renames map[string]string, sum *Summary) error {
	var graphs []ariadne.DocumentGraph
	old := map[string][]string{}
	var stale []string
	for _, w := range batch {
		if failedDocs[w.doc.ID] {
			sum.DocsFailed++
			continue
		}
		graphs = append(graphs, ariadne.DocumentGraph{Doc: w.doc, Chunks: w.chunks, Entities: w.entities,
			Subject: w.subject, QuotedAliases: w.quoted, Mentions: w.facts.Mentions, Relations: w.facts.Relations,
			Contexts: w.contexts, GraphHash: w.graphHash})
		old[w.doc.ID] = w.oldChunkIDs
		if w.contentNew {
			keep := map[string]bool{}
			for _, c := range w.chunks {
				keep[c.ID] = true
			}
			for _, id := range w.oldChunkIDs {
				if !keep[id] {
					stale = append(stale, id)
				}
			}
		}
	}
	if len(graphs) > 0 {
		t := time.Now()
		st, err := p.graph.WriteDocuments(ctx, graphs, old, renames, p.onto, p.extractorName())
		sum.Phases.Graph += time.Since(t)
		if err != nil {
			return neo4jErr(err)
		}
		sum.Graph.Add(st)
	}
	faultPoint("after-graph", n)
	if len(stale) > 0 {
		t := time.Now()
		n, err := p.vectors.DeleteChunks(ctx, stale)
		sum.Phases.Vectors += time.Since(t)
		if err != nil {
			return weaviateErr(err)
		}
		sum.VectorsDeleted += n
	}
	return nil
}

// vectorize gives chunks their vectors: copied from stored chunks with the same content key where
// the index has them, embedded otherwise (one embedder call for the rest).
func (p *Pipeline) vectorize(ctx context.Context, chunks []ariadne.Chunk, sum *Summary) ([]ariadne.IndexedChunk, error) {
	name := p.embedder.Name()
	keys := make([]string, len(chunks))
	for i, c := range chunks {
		keys[i] = c.ContentKey(name)
	}
	// A stored vector is reused only from a chunk every reader of the new chunk may read
	// (VectorStore.VectorsByContentKey), looked up once per acl of the batch.
	byACL := map[string][]string{} // acl (joined) → content keys
	aclOf := map[string][]string{}
	joined := make([]string, len(chunks))
	for i, c := range chunks {
		joined[i] = strings.Join(c.ACL, "\x00")
		byACL[joined[i]] = append(byACL[joined[i]], keys[i])
		aclOf[joined[i]] = c.ACL
	}
	found := map[string]map[string][]float32{}
	for _, a := range slices.Sorted(maps.Keys(byACL)) {
		f, err := p.vectors.VectorsByContentKey(ctx, uniq(byACL[a]), aclOf[a])
		if err != nil {
			return nil, weaviateErr(err)
		}
		found[a] = f
	}
	indexed := make([]ariadne.IndexedChunk, len(chunks))
	var texts []string
	slot := map[string]int{} // content key → its text's index in texts (each new key embedded once)
	for i, c := range chunks {
		indexed[i] = ariadne.IndexedChunk{Chunk: c, SearchText: SearchText(c), Analysis: textnorm.AnalysisVersion, ContentKey: keys[i]}
		if v, ok := found[joined[i]][keys[i]]; ok && len(v) == p.dim {
			indexed[i].Vector = v
			sum.VectorsReused++
			continue
		}
		if _, ok := slot[keys[i]]; ok {
			sum.VectorsReused++ // the same content twice in this batch (filled below from its slot)
			continue
		}
		slot[keys[i]] = len(texts)
		texts = append(texts, c.ContextText())
	}
	if len(texts) > 0 {
		vecs, err := p.embedder.EmbedPassages(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("ingest: the embedder (%s) failed; this batch was not written: %w", p.embedder.Name(), err)
		}
		if len(vecs) != len(texts) {
			return nil, fmt.Errorf("ingest: embedder %s returned %d vectors for %d texts: %w", name, len(vecs), len(texts), ariadne.ErrUnavailable)
		}
		for i := range indexed {
			if indexed[i].Vector == nil {
				indexed[i].Vector = vecs[slot[keys[i]]]
			}
		}
		sum.Embedded += len(texts)
	}
	return indexed, nil
}

func uniq(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

// SearchText is the BM25 analysis of a chunk as the index stores it: textnorm.SearchTerms of its
// title, heading path and text, space-separated (questions get the same analysis).
func SearchText(c ariadne.Chunk) string {
	return strings.Join(textnorm.SearchTerms(c.Title+"\n"+c.HeadingPath()+"\n"+c.Text), " ")
}

// definingFirst orders documents that define an entity (a subject) before the others, and among
// them those whose subject the run's documents name most first (chunks that mention it plus
// relations that name it); ties and the other documents keep their order.
//
// A batch refreshes the entities its documents define from every mention already written (the
// full refresh; the others only grow), so a page written after the documents that name its
// subject reads all of their mentions. Defining pages first kept notes from preceding them; the
// order among pages matters as much, because incidents, meetings and projects define entities
// too and mention people, teams and clients whose pages come later in id order: at 100k chunks,
// the refreshes of the batches holding such hub pages took 5 s each, about 40 s in all
// (docs/performance.md).
func definingFirst(write []*docWork) {
	named := map[string]int{} // entity key → chunks that mention it + relations that name it
	for _, w := range write {
		seen := map[[2]string]bool{}
		for _, m := range w.facts.Mentions {
			if k := [2]string{m.ChunkID, m.EntityKey}; !seen[k] {
				seen[k] = true
				named[m.EntityKey]++
			}
		}
		for _, r := range w.facts.Relations {
			named[r.Source]++
			if r.Target != r.Source {
				named[r.Target]++
			}
		}
	}
	slices.SortStableFunc(write, func(a, b *docWork) int {
		switch da, db := a.subject != "", b.subject != ""; {
		case da && db:
			return cmp.Compare(named[b.subject], named[a.subject])
		case da == db:
			return 0
		case da:
			return -1
		}
		return 1
	})
}

// chunkAll splits the given documents into chunks of source, p.workers documents at a time (the
// chunker is safe for concurrent use; before the first write the stores are idle, so this is the
// run's own CPU: half of its planning time at 10k chunks was chunking, done one document at a
// time).
func (p *Pipeline) chunkAll(docs []ariadne.Document, given map[string]bool, source string) map[string][]ariadne.Chunk {
	split := make([][]ariadne.Chunk, len(docs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range p.workers {
		wg.Go(func() {
			for i := range next {
				cs := p.chunker.Split(docs[i])
				for j := range cs {
					cs[j].Source = source
				}
				split[i] = cs
			}
		})
	}
	for i, d := range docs {
		if given[d.ID] {
			next <- i
		}
	}
	close(next)
	wg.Wait()
	chunks := make(map[string][]ariadne.Chunk, len(docs))
	for i, d := range docs {
		if given[d.ID] {
			chunks[d.ID] = split[i]
		}
	}
	return chunks
}
