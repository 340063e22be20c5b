// Command extract is Ariadne's extraction job: it reads a folder of Markdown/text documents with
// YAML front matter, chunks them, embeds the chunks into Weaviate and builds the entity–relation
// graph with provenance in Neo4j. The folder is one source (--source, default "default"): a run
// adds, updates and deletes only that source's documents, so runs over different sources may
// share the stores, even at the same time. Re-running it is idempotent: unchanged documents are
// not written again, changed ones replace their old version, and documents that left the folder
// are deleted with everything derived from them — unless that would be every document of the
// source (an empty or unmounted folder looks so): then the job refuses, writing nothing, unless
// --allow-delete-all says it is meant. After a sync, entities a version before the
// node views' first-mention lists wrote are refreshed once (the summary's "refreshed" line).
//
// With --ner auto (the default) and the NER sidecar down, a source indexed before with entity
// recognition is not synced (nor deleted from) without it: that would drop every entity
// recognition found. The job refuses, naming the sidecar's address; a source indexed without
// recognition, or a new one, is synced without it, with a warning.
//
// A file that cannot be read as a document (malformed front matter, an empty acl, a duplicate id
// …) is not a deletion: the stored document it held — stored from its path, or with the id its
// front matter gives — is kept as it was, and the run exits 3 naming the file and the reason. A
// file whose version is lower than its stored document's is refused the same way (POST
// /v1/documents answers it 409 version_conflict).
//
// Exit codes:
//
//	0   done
//	1   failed: a store or model was unavailable, or a write failed; or --ner auto found the NER
//	    sidecar down while the source was indexed with recognition (nothing written)
//	2   bad flags or configuration, or a sync that would delete every document of its source
//	    (or --reindex with a folder of no document) without --allow-delete-all; nothing written
//	3   some files were malformed or had an older version than the stored document: not synced
//	    (the stored documents they held kept as they were), everything else was; --delete named
//	    an id no document has (the others deleted); or --strict and Weaviate refused chunks
//	4   some document ids are held by another source: those documents were skipped (ids are
//	    unique across sources), everything else was synced
//	130 interrupted (SIGINT/SIGTERM) after finishing the batches in progress; both stores are consistent
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kong"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/loopback"
	"github.com/ariadne-graphrag/ariadne/internal/setup"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/ontology"
)

// cli is the job's configuration: every flag also reads its ARIADNE_* environment variable.
type cli struct {
	Corpus         string   `name:"corpus" env:"ARIADNE_CORPUS" help:"Folder of documents (Markdown or text with YAML front matter)."`
	Source         string   `name:"source" env:"ARIADNE_SOURCE" default:"default" help:"Source the folder is: a sync adds, updates and deletes only this source's documents."`
	Delete         []string `name:"delete" help:"Delete these document ids (repeatable) instead of syncing a folder, whatever their source (ids are unique across sources; the summary names it). An id no document has exits 3."`
	DryRun         bool     `name:"dry-run" help:"Report what would change; write nothing."`
	Strict         bool     `name:"strict" help:"Exit 3 also when Weaviate refuses a chunk (a malformed file always exits 3)."`
	Reindex        bool     `name:"reindex" help:"Drop the Weaviate class and the graph (every source) first, then index everything (needed after changing the embedder)."`
	AllowDeleteAll bool     `name:"allow-delete-all" help:"Let a sync delete every document of its source (the folder holds none of them), and --reindex run on a folder with no document. Without it both refuse and write nothing: an empty, unmounted or wrong folder looks like that."`
	Repair         bool     `name:"repair-index" help:"Before syncing, search every chunk by its own vector and write again those the vector index lost (Weaviate restarted after a crash). Without it a sample of 32 is checked and a failed sample starts the same repair; with --dry-run nothing is repaired."`
	Units          bool     `name:"unit-vectors" env:"ARIADNE_UNIT_VECTORS" help:"After the sync, embed the evidence units (sentences, table rows, list items) of every chunk that has no stored vector yet and delete those of units no chunk has (for extractive-v2, which scores them at query time; the lexical embedder needs none)."`
	Workers        int      `name:"workers" env:"ARIADNE_WORKERS" default:"2" help:"Concurrent embedding/extraction calls."`
	Batch          int      `name:"batch" env:"ARIADNE_BATCH_DOCS" default:"32" help:"Documents per write batch (the unit of consistency)."`
	LogLevel       string   `name:"log-level" env:"ARIADNE_LOG_LEVEL" default:"info" enum:"debug,info,warn,error" help:"Log level."`
	LogJSON        bool     `name:"log-json" env:"ARIADNE_LOG_JSON" help:"Log JSON lines instead of text."`

	setup.Stores   `embed:""`
	setup.Embedder `embed:""`
	setup.Chat     `embed:""`
	setup.Indexing `embed:""`
	setup.Lexicon  `embed:""`
}

// exitError carries a process exit code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	ctx := context.Background()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	var ee *exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		if ee.err != nil && ee.code != 130 {
			fmt.Fprintln(os.Stderr, "extract:", ee.err)
		}
		os.Exit(ee.code)
	default:
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(1)
	}
}

// run parses args, connects to the stores and runs the job. SIGINT/SIGTERM stop it after the
// batches in progress (at most two: one writing its graph, the next its vectors).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	vars, err := loopback.Vars()
	if err != nil {
		return err
	}
	var c cli
	exited := -1
	parser, err := kong.New(&c, kong.Vars(vars), kong.Name("extract"), kong.Writers(stdout, stderr),
		kong.Description("Index a corpus into Weaviate (chunks, vectors) and Neo4j (entities, relations, provenance)."),
		kong.Exit(func(code int) { exited = code }))
	if err != nil {
		return &exitError{2, err}
	}
	_, perr := parser.Parse(args)
	switch {
	case exited == 0: // --help
		return nil
	case exited > 0:
		return &exitError{2, nil}
	case perr != nil:
		parser.Errorf("%s", perr)
		return &exitError{2, nil}
	}
	if c.Corpus == "" && len(c.Delete) == 0 {
		return &exitError{2, errors.New("give --corpus DIR (or ARIADNE_CORPUS), or --delete ID")}
	}
	if err := ariadne.CheckSource(c.Source); err != nil {
		return &exitError{2, fmt.Errorf("--source: %w", err)}
	}
	if c.Corpus != "" {
		if st, err := os.Stat(c.Corpus); err != nil || !st.IsDir() {
			return &exitError{2, fmt.Errorf("--corpus %s: not a folder that exists", c.Corpus)}
		}
	}
	log := setup.NewLogger(stderr, c.LogLevel, c.LogJSON)

	// SIGINT/SIGTERM stop the job after the batches in progress (the pipeline checks ctxStop
	// before it starts a batch; started batches run with ctx, so both stores stay consistent).
	// After the first signal the default action is restored: a second one ends the process at
	// once.
	ctxStop, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	quit := context.AfterFunc(ctxStop, func() {
		log.Warn("interrupt: finishing the batches in progress, then stopping (interrupt again to abort)")
		stopSignals()
	})
	defer quit()

	log.Info("starting", c.Stores.Redacted()...)
	gs, err := c.Stores.OpenGraph(ctx)
	if err != nil {
		return &exitError{1, err}
	}
	defer gs.Close(context.WithoutCancel(ctx))
	vs, err := c.Stores.OpenVector(ctx)
	if err != nil {
		return &exitError{1, err}
	}
	emb, _, err := c.Embedder.BuildEmbedder(ctx, log)
	if err != nil {
		return &exitError{2, err}
	}
	onto, chunker, err := c.Indexing.Build()
	if err != nil {
		return &exitError{2, err}
	}
	model, err := c.Chat.BuildChat(log)
	if err != nil {
		return &exitError{2, err}
	}
	ext, err := c.Indexing.BuildExtractor(onto, model)
	if err != nil {
		return &exitError{2, err}
	}
	// The bilingual lexicon (about 1 s to load) serves entity recognition only: not read when
	// recognition is off.
	var lex *lexicon.Lexicon
	if c.Indexing.RecognitionAsked() {
		if lex, err = c.Lexicon.Load(log); err != nil {
			return &exitError{2, fmt.Errorf("--lexicon %s: %w", c.Lexicon.Path, err)}
		}
	}
	rec, _, err := c.Indexing.BuildRecognizer(ctx, onto, lex, log)
	if err != nil {
		if errors.Is(err, ariadne.ErrUnavailable) {
			return &exitError{1, err}
		}
		return &exitError{2, err}
	}
	// --ner auto with the sidecar down: a source indexed with recognition is not rewritten
	// without it (ingest.RecognitionError); a source indexed without it is, with the warning
	// BuildRecognizer logged.
	recognitionDown := ""
	if rec == nil && c.Indexing.RecognitionAsked() {
		recognitionDown = fmt.Sprintf("the NER sidecar at %s does not answer", c.NERURL)
	}
	pipe, err := ingest.New(ingest.Config{Chunker: chunker, Embedder: emb, Extractor: ext, Recognizer: rec, RecognitionDown: recognitionDown,
		Places: setup.SubjectPlaces(rec, lex), Ontology: onto, Graph: gs, Vectors: vs, Logger: log, BatchDocs: c.Batch, Workers: c.Workers})
	if err != nil {
		return &exitError{2, err}
	}
	nerName := "off"
	if rec != nil {
		nerName = rec.Name()
	}
	log.Info("components", "embedder", emb.Name(), "extractor", ext.Name(), "ner", nerName, "ontology", c.Indexing.OntologyName(), "chunk_tokens", c.ChunkTokens, "overlap", c.ChunkOverlap)

	var docs []ariadne.Document
	var problems []corpus.Problem
	if len(c.Delete) == 0 {
		docs, problems, err = corpus.Load(os.DirFS(c.Corpus))
		if err != nil {
			return &exitError{1, err}
		}
		if c.Reindex && len(docs) == 0 && !c.AllowDeleteAll {
			return &exitError{2, fmt.Errorf("--reindex drops every source's documents and the folder %s holds no document to index (%s): nothing was dropped. An empty, unmounted or wrong folder looks like this; check --corpus, or add --allow-delete-all to empty the stores on purpose",
				c.Corpus, plural(len(problems), "malformed file"))}
		}
	}
	if c.Reindex {
		if err := pipe.CheckRecognition(ctx); err != nil {
			return recognitionExit(err)
		}
	}
	if c.Reindex && !c.DryRun {
		log.Warn("--reindex: dropping the Weaviate class and Ariadne's graph")
		if err := vs.DropClass(ctx); err != nil {
			return &exitError{1, err}
		}
		if err := gs.Reset(ctx); err != nil {
			return &exitError{1, err}
		}
	}

	if !c.Reindex {
		if _, err := vs.CheckIndex(ctx, c.Repair, c.DryRun, log); err != nil {
			return &exitError{1, err}
		}
	}

	start := time.Now()
	var sum ingest.Summary
	opts := ingest.Options{DryRun: c.DryRun, Stop: ctxStop.Done(), Source: c.Source, RefuseDeleteAll: !c.AllowDeleteAll}
	if len(c.Delete) > 0 {
		sum, err = pipe.Delete(ctx, c.Delete, opts)
	} else {
		if types := unlistedTypes(docs, onto); types != "" {
			if other := onto.OtherDocumentType; other != "" {
				log.Info("document types the ontology does not list, read as pages of a "+other+" (other_document_type): their title and aliases name an entity", "types", types)
			} else {
				log.Info("document types the ontology does not list, read as untyped documents (entity recognition reads them; no page entity)", "types", types)
			}
		}
		if types := renamedTypes(docs, onto); types != "" {
			log.Info("document types the ontology reads as an entity type of another name (document_types): check that each is the sense you mean", "types", types)
		}
		for _, p := range problems {
			log.Warn("malformed file: not synced", "path", p.Path, "reason", p.Reason)
			opts.Unread = append(opts.Unread, ingest.UnreadFile{Path: p.Path, ID: p.ID})
		}
		bar := newProgress(stdout)
		opts.Progress = bar
		sum, err = pipe.Sync(ctx, docs, opts)
	}
	var deleteAll *ingest.DeleteAllError
	var recognition *ingest.RecognitionError
	switch {
	case errors.As(err, &recognition):
		return recognitionExit(err)
	case errors.As(err, &deleteAll):
		return &exitError{2, fmt.Errorf("this sync would delete every document of source %q (%s): the folder %s holds none of them (%s read, %s). An empty, unmounted or wrong folder looks like this, so nothing was written; check --corpus (and --source), or add --allow-delete-all to empty the source on purpose",
			deleteAll.Source, plural(deleteAll.Documents, "document"), c.Corpus, plural(len(docs), "document"), plural(len(problems), "malformed file"))}
	case err != nil:
		return &exitError{1, err}
	}
	if !c.DryRun {
		// The graph's own count: the registry may hold a name no chunk mentions any more (an
		// outside tester counted one entity fewer in Neo4j than the summary said).
		if n, err := gs.Count(ctx); err == nil {
			sum.Entities = n.Entities
		}
	}
	printSummary(stdout, c, sum, problems, time.Since(start))
	if !c.DryRun && !sum.Stopped {
		if err := refreshStale(ctx, gs, stdout, log); err != nil {
			return &exitError{1, err}
		}
	}
	if c.Units && !c.DryRun && !sum.Stopped && !strings.HasPrefix(emb.Name(), "lexical") {
		texts, err := vs.ChunkTexts(ctx)
		if err != nil {
			return &exitError{1, err}
		}
		t := time.Now()
		us, err := agent.SyncUnitVectors(ctx, emb, vs, texts)
		if err != nil {
			return &exitError{1, fmt.Errorf("unit vectors: %w", err)}
		}
		fmt.Fprintf(stdout, "unit vectors (%s): %d units of %d chunks, %d embedded, %d deleted, %.1f s\n", vs.UnitClass(), us.Units, len(texts), us.Embedded, us.Deleted, time.Since(t).Seconds())
	}
	switch {
	case sum.Stopped:
		return &exitError{130, errors.New("interrupted")}
	case len(problems) > 0 || len(sum.Refused) > 0:
		var what []string
		if len(problems) > 0 {
			what = append(what, plural(len(problems), "malformed file"))
		}
		if len(sum.Refused) > 0 {
			what = append(what, plural(len(sum.Refused), "file")+" with an older version than the stored document")
		}
		return &exitError{3, fmt.Errorf("%s not synced (the summary names each with the reason; a stored document such a file held is kept as it was): fix and sync again",
			strings.Join(what, " and "))}
	case len(sum.NotFound) > 0:
		return &exitError{3, fmt.Errorf("nothing deleted for %s no stored document has (%s): check the id (GET /v1/documents lists them)",
			plural(len(sum.NotFound), "id"), strings.Join(sum.NotFound, ", "))}
	case c.Strict && len(sum.VectorErrors) > 0:
		return &exitError{3, fmt.Errorf("%d refused chunks (--strict)", len(sum.VectorErrors))}
	case len(sum.Conflicts) > 0:
		return &exitError{4, fmt.Errorf("%d document(s) skipped: their ids belong to another source (ids are unique across sources)", len(sum.Conflicts))}
	}
	return nil
}

// recognitionExit is exit 1 for a run refused because the NER sidecar is down
// (ingest.RecognitionError), with the two ways out.
func recognitionExit(err error) error {
	var re *ingest.RecognitionError
	if !errors.As(err, &re) {
		return &exitError{1, err}
	}
	return &exitError{1, fmt.Errorf("%w. Start the sidecar (deploy/local.sh up ner, or make up) and run again, or run with --ner off (ARIADNE_NER=off) to rebuild the source without entity recognition on purpose", re)}
}

// refreshStale gives entities of a graph written by a version before the node views'
// first-mention lists their lists, once (graph.Store.RefreshStale); on a graph written since it
// finds none and prints nothing.
func refreshStale(ctx context.Context, gs *graph.Store, stdout io.Writer, log *slog.Logger) error {
	start := time.Now()
	n, err := gs.RefreshStale(ctx)
	if err != nil {
		return fmt.Errorf("refreshing entities written by an earlier version: %w", err)
	}
	if n > 0 {
		log.Info("refreshed entities written by an earlier version (once)", "entities", n, "took", time.Since(start).Round(time.Millisecond))
		fmt.Fprintf(stdout, "  refreshed  %d entities written by an earlier version (once), %s\n", n, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// newProgress returns a progress callback: a bar on a terminal, plain lines otherwise.
func newProgress(w io.Writer) func(done, total int) {
	f, ok := w.(*os.File)
	if ok && term.IsTerminal(int(f.Fd())) {
		var bar *progressbar.ProgressBar
		return func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("indexing"),
					progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
			}
			bar.Set(done)
		}
	}
	return func(done, total int) { fmt.Fprintf(w, "progress: %d/%d documents written\n", done, total) }
}

// plural is "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// unlistedTypes names the document types of docs that the ontology lists neither in
// document_types nor in untyped_document_types, each with how many documents have it
// ("spaceship ×1, warehouse ×3", sorted), or "": such a document is read as a page of
// other_document_type, which a typo («persn») makes silently (security audit).
func unlistedTypes(docs []ariadne.Document, o *ontology.Ontology) string {
	n := map[string]int{}
	for _, d := range docs {
		if t := strings.ToLower(strings.TrimSpace(d.Type)); t != "" && !o.ListsDocumentType(t) {
			n[t]++
		}
	}
	var out []string
	for _, t := range slices.Sorted(maps.Keys(n)) {
		out = append(out, fmt.Sprintf("%s ×%d", t, n[t]))
	}
	return strings.Join(out, ", ")
}

// renamedTypes names the document types of docs that the ontology's document_types read as an
// entity type of another name, each with how many documents have it and what it becomes
// ("employee → person ×1, library → technology ×3", sorted), or "": a word with two senses reads
// as the ontology's one without a warning otherwise (trial 79: a public library's pages, typed
// library, were technologies, which entity recognition does not read).
func renamedTypes(docs []ariadne.Document, o *ontology.Ontology) string {
	n := map[string]int{}
	for _, d := range docs {
		t := strings.ToLower(strings.TrimSpace(d.Type))
		if et, ok := o.DocumentTypes[t]; ok && et != t {
			n[t]++
		}
	}
	var out []string
	for _, t := range slices.Sorted(maps.Keys(n)) {
		out = append(out, fmt.Sprintf("%s → %s ×%d", t, o.DocumentTypes[t], n[t]))
	}
	return strings.Join(out, ", ")
}

func printSummary(w io.Writer, c cli, s ingest.Summary, problems []corpus.Problem, elapsed time.Duration) {
	skipped := len(problems)
	mode := ""
	if c.DryRun {
		mode = " (dry run: nothing written)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "summary%s\n", mode)
	if len(c.Delete) > 0 {
		// --delete removes documents by id whatever their source: name the sources they had.
		var sources []string
		for _, d := range s.Deleted {
			if !slices.Contains(sources, d.Source) {
				sources = append(sources, d.Source)
			}
		}
		slices.Sort(sources)
		if len(sources) == 0 {
			sources = []string{"none (nothing deleted)"}
		}
		fmt.Fprintf(&b, "  source     %s\n", strings.Join(sources, ", "))
	} else {
		fmt.Fprintf(&b, "  source     %s\n", c.Source)
	}
	// A dry run says what it would do, not what it did (outside trial: "deleted notes/x").
	written, relinked, deleted := "written", "relinked", "deleted   "
	if c.DryRun {
		written, relinked, deleted = "would write", "would relink", "would delete"
	}
	fmt.Fprintf(&b, "  documents  read %d, skipped %d (malformed), refused %d (older version), unchanged %d, %s %d, %s %d, %s %d, failed %d\n",
		s.DocsRead, skipped, len(s.Refused), s.DocsUnchanged, written, s.DocsWritten, relinked, s.DocsRelinked, strings.TrimSpace(deleted), s.DocsDeleted, s.DocsFailed)
	if c.DryRun {
		// A dry run plans documents only: what their chunks, vectors and graph would become is
		// known once they are written (outside trial: "deleted 0" chunks beside "would delete 1").
		fmt.Fprintf(&b, "  chunks     %d in documents that would be written; vectors, graph and deletions are counted by the real run\n", s.Chunks)
		fmt.Fprintf(&b, "  elapsed    %s\n", elapsed.Round(time.Millisecond))
	} else {
		fmt.Fprintf(&b, "  chunks     %d in written documents; vectors written %d (%d reused by content, %d embedded), deleted %d, refused %d; BM25 terms re-analyzed %d\n",
			s.Chunks, s.Vectors, s.VectorsReused, s.Embedded, s.VectorsDeleted, len(s.VectorErrors), s.Reanalyzed)
		fmt.Fprintf(&b, "  graph      entities %d in the whole graph, every source (merges %d); relations stated %d; writes: documents %d, chunks %d, entities %d, relations %d, mentions %d; deleted documents %d, chunks %d, relations %d, entities %d\n",
			s.Entities, s.Merges, s.Relations, s.Graph.Documents, s.Graph.Chunks, s.Graph.Entities, s.Graph.Relations,
			s.Graph.Mentions, s.Graph.DeletedDocuments, s.Graph.DeletedChunks, s.Graph.DeletedRelations, s.Graph.DeletedEntities)
		if r := s.Restored; r.Extracted > 0 || r.Docs > 0 {
			// A delete or an upsert extracts the rest of the source again: names the deleted
			// documents gave no longer link the others, and what those rewrites delete (an entity
			// only the deleted documents' names kept in the graph) is said here.
			fmt.Fprintf(&b, "  restored   other stored documents extracted again %d, rewritten %d (their facts changed); vectors written %d, deleted %d; graph writes: chunks %d, entities %d, relations %d, mentions %d; deleted chunks %d, relations %d, entities %d\n",
				r.Extracted, r.Docs, r.Vectors, r.VectorsDeleted, r.Graph.Chunks, r.Graph.Entities, r.Graph.Relations, r.Graph.Mentions,
				r.Graph.DeletedChunks, r.Graph.DeletedRelations, r.Graph.DeletedEntities)
		}
		if r := s.Restored.Writes(); r > 0 {
			fmt.Fprintf(&b, "  writes     %d, and %d rewriting other documents\n", s.Writes(), r)
		} else {
			fmt.Fprintf(&b, "  writes     %d\n", s.Writes())
		}
		fmt.Fprintf(&b, "  elapsed    %s\n", elapsed.Round(time.Millisecond))
	}
	ph := s.Phases
	fmt.Fprintf(&b, "  time       planning and resolution %s, extraction %s, embedding %s, Weaviate writes %s, Neo4j writes %s\n",
		ph.Plan.Round(time.Millisecond), ph.Extract.Round(time.Millisecond), ph.Embed.Round(time.Millisecond),
		ph.Vectors.Round(time.Millisecond), ph.Graph.Round(time.Millisecond))
	for _, p := range problems {
		var kept []string
		for _, k := range s.Kept {
			if k.File == p.Path {
				kept = append(kept, k.DocID)
			}
		}
		what := "not synced (no stored document came from it)"
		if len(kept) > 0 {
			what = "not synced; the stored document " + strings.Join(kept, ", ") + " is kept as it was"
		}
		fmt.Fprintf(&b, "  malformed  %s: %s — %s\n", p.Path, p.Reason, what)
	}
	for _, d := range s.Deleted {
		fmt.Fprintf(&b, "  %s %s (source %s)\n", deleted, d.ID, d.Source)
	}
	for _, id := range s.NotFound {
		fmt.Fprintf(&b, "  not found  %s: no stored document has this id; nothing deleted\n", id)
	}
	for _, r := range s.Refused {
		fmt.Fprintf(&b, "  refused    %s (%s): %s\n", r.File, r.DocID, r.Reason())
	}
	for _, x := range s.Conflicts {
		fmt.Fprintf(&b, "  conflict   %s: held by source %s; skipped\n", x.DocID, x.Source)
	}
	for _, e := range s.VectorErrors {
		fmt.Fprintf(&b, "  refused    %s: %s\n", e.ChunkID, e.Message)
	}
	io.WriteString(w, b.String())
}
