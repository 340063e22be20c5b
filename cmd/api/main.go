// Command api serves Ariadne's HTTP API (package httpapi): verified, cited answers; retrieval;
// entities; document ingestion; health, readiness, metrics and the OpenAPI document.
//
// Configuration comes from flags or ARIADNE_* environment variables (see --help and the README).
// It stops gracefully on SIGINT/SIGTERM: in-flight requests get ShutdownTimeout to finish.
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kong"
	"github.com/cenkalti/backoff/v4"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/embedding"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/httpapi"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/loopback"
	"github.com/ariadne-graphrag/ariadne/internal/setup"
	"github.com/ariadne-graphrag/ariadne/textnorm"
	"github.com/ariadne-graphrag/ariadne/vector"
	"github.com/ariadne-graphrag/ariadne/web"
)

type cli struct {
	Addr            string        `name:"addr" env:"ARIADNE_API_ADDR" default:"${api_addr}" help:"Listen address."`
	KeysFile        string        `name:"keys-file" env:"ARIADNE_API_KEYS_FILE" help:"YAML file mapping API keys to permission groups (empty: everyone gets the public group 'all')."`
	Generator       string        `name:"generator" env:"ARIADNE_GENERATOR" default:"auto" enum:"auto,extractive,extractive-v2,llm" help:"Answer generator: llm (needs --llm-*), extractive (offline: quotes the sentences that cover the question's terms, extractive-v1), extractive-v2 (offline: sentences ranked by the fitted evidence model, calibrated refusal; refuses too often today, docs/evaluation.md), auto (llm when configured, else extractive)."`
	Router          string        `name:"router" env:"ARIADNE_ROUTER" default:"auto" enum:"auto,rules,llm" help:"Question router: rules (deterministic), llm (falls back to rules), auto (llm for a configured model that is not small, else rules: a small local model routes worse than the rules, docs/local-llm.md)."`
	Judge           bool          `name:"judge" env:"ARIADNE_JUDGE" help:"Verification level 3: the chat model checks that each quote supports its claim, then that the claims give what the question asks."`
	QueryTimeout    time.Duration `name:"query-timeout" env:"ARIADNE_QUERY_TIMEOUT" default:"90s" help:"Budget of one /v1/query or /v1/search; past it the answer is 504 timeout."`
	MaxQueries      int           `name:"max-concurrent-queries" env:"ARIADNE_API_MAX_CONCURRENT_QUERIES" default:"16" help:"Queries and searches in flight; more wait up to --queue-wait, then get 503 overloaded with Retry-After (-1: no limit)."`
	MaxWrites       int           `name:"max-concurrent-writes" env:"ARIADNE_API_MAX_CONCURRENT_WRITES" default:"4" help:"Document writes and deletes in flight (-1: no limit)."`
	MaxReads        int           `name:"max-concurrent-reads" env:"ARIADNE_API_MAX_CONCURRENT_READS" default:"64" help:"Other /v1 reads in flight (-1: no limit)."`
	WriteWait       time.Duration `name:"write-wait" env:"ARIADNE_API_WRITE_WAIT" default:"30s" help:"How long a document write waits for the one running before it (writes run one at a time) before 503 busy with Retry-After."`
	WriteTimeout    time.Duration `name:"write-timeout" env:"ARIADNE_API_WRITE_TIMEOUT" default:"30m" help:"Budget of one document write (POST or DELETE /v1/documents; a large document is embedded chunk by chunk); past it the write stops and is answered 504 timeout."`
	QueueWait       time.Duration `name:"queue-wait" env:"ARIADNE_API_QUEUE_WAIT" default:"100ms" help:"How long a request waits for a free slot before 503 overloaded."`
	RatePerKey      float64       `name:"rate-per-key" env:"ARIADNE_API_RATE_PER_KEY" default:"20" help:"Requests per second per API key (anonymous callers: per client address); over it 429 rate_limited with Retry-After; 0: off."`
	RateBurst       int           `name:"rate-burst" env:"ARIADNE_API_RATE_BURST" default:"40" help:"Burst size of the per-key rate limit."`
	FailedAuth      int           `name:"failed-auth-per-minute" env:"ARIADNE_API_FAILED_AUTH_PER_MINUTE" default:"10" help:"Failed authentications allowed per client address a minute (bursts of as many); past it, requests with a key from that address get 429 rate_limited with Retry-After; -1: no limit."`
	TrustedProxies  []string      `name:"trusted-proxies" env:"ARIADNE_API_TRUSTED_PROXIES" sep:"," help:"Reverse proxies (IP addresses or CIDR ranges, comma-separated) whose X-Forwarded-For gives the client address for rate limits and the anonymous callers' query-embedding cache; none by default: the client address is the connection's peer."`
	ShutdownTimeout time.Duration `name:"shutdown-timeout" env:"ARIADNE_SHUTDOWN_TIMEOUT" default:"20s" help:"Time in-flight requests get on shutdown."`
	LogLevel        string        `name:"log-level" env:"ARIADNE_LOG_LEVEL" default:"info" enum:"debug,info,warn,error" help:"Log level."`
	LogJSON         bool          `name:"log-json" env:"ARIADNE_LOG_JSON" help:"Log JSON lines."`
	QueryEmbedCache int           `name:"query-embedding-cache" env:"ARIADNE_QUERY_EMBEDDING_CACHE" default:"4096" help:"Query embeddings kept in an LRU cache (key: embedder, prefix mode, caller — API key name or anonymous client address —, normalised question); 0 turns it off."`
	IndexRepair     bool          `name:"vector-index-repair" env:"ARIADNE_VECTOR_INDEX_REPAIR" default:"true" negatable:"" help:"When the vector index self-check finds lost HNSW entries (Weaviate restarted after a crash), write the lost objects again in the background; searches get 503 unavailable until a check passes either way."`
	Translations    int           `name:"keyword-translations" env:"ARIADNE_KEYWORD_TRANSLATIONS" default:"0" help:"With the lexicon, BM25 also searches this many of each English question word's Russian translations (a Russian word: its English gloss). 0 or negative: off, the default (more cross-language evidence is found, but extractive-v1's term bars then answer more near misses: docs/evaluation.md)."`
	BridgeHops      int           `name:"bridge-hops" env:"ARIADNE_BRIDGE_HOPS" default:"1" help:"multi_hop: bridge entities (named by the first search's top chunks, not by the question) searched again with the question, their first new documents put after the route's first chunk; 0: off (docs/multi-hop.md)."`
	WarmNames       int           `name:"warm-entity-names" env:"ARIADNE_WARM_ENTITY_NAMES" default:"5000" help:"At start, and when Neo4j is back after it went away, embed this many entity names (most connected first) in the background, so that the first multi_hop questions do not pay for embedding the names their graph walk reaches; 0: off."`
	Neo4jBrowserURL string        `name:"neo4j-browser-url" env:"ARIADNE_NEO4J_BROWSER_URL" help:"Neo4j Browser address the analyst page (/ui/) links to; default $ARIADNE_NEO4J_HTTP/browser/, 'none' hides the links."`

	setup.Stores   `embed:""`
	setup.Embedder `embed:""`
	setup.Chat     `embed:""`
	setup.Indexing `embed:""`
	setup.Lexicon  `embed:""`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "api:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ error }

// run serves until ctx is done. ready, when not nil, receives the listening address.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready chan<- string) error {
	vars, err := loopback.Vars()
	if err != nil {
		return err
	}
	var c cli
	exited := -1
	parser, err := kong.New(&c, kong.Vars(vars), kong.Name("api"), kong.Writers(stdout, stderr),
		kong.Description("Serve Ariadne's HTTP API."), kong.Exit(func(code int) { exited = code }))
	if err != nil {
		return err
	}
	_, perr := parser.Parse(args)
	switch {
	case exited == 0:
		return nil
	case exited > 0:
		return usageError{errors.New("usage")}
	case perr != nil:
		return usageError{perr}
	}
	if err := httpapi.CheckTrustedProxies(c.TrustedProxies); err != nil {
		return usageError{fmt.Errorf("--trusted-proxies: %w", err)}
	}
	log := setup.NewLogger(stderr, c.LogLevel, c.LogJSON)
	log.Info("starting", append(c.Stores.Redacted(), "addr", c.Addr)...)

	// Neo4j down at the start is not fatal: questions are answered from the chunk index,
	// marked degraded, until it answers (agent.DegradedGraph); the driver connects then.
	gs, graphDown, err := c.Stores.OpenGraphOptional(ctx)
	if err != nil {
		return err
	}
	if graphDown != nil {
		log.Warn("neo4j does not answer: starting degraded (questions from the chunk index alone; entity, document and write requests answer 503 until it does)",
			"err", graphDown)
	}
	defer gs.Close(context.WithoutCancel(ctx))
	vs, err := c.Stores.OpenVector(ctx)
	if err != nil {
		return err
	}
	emb, embNote, err := pickEmbedder(ctx, c.Embedder, vs, log)
	if err != nil {
		return err
	}
	metrics := httpapi.NewMetrics()
	c.Chat.OnUsage = metrics.ModelUsage
	if c.QueryEmbedCache < 0 {
		return usageError{fmt.Errorf("--query-embedding-cache %d: want 0 (off) or more", c.QueryEmbedCache)}
	}
	if c.QueryEmbedCache > 0 {
		marking := "none"
		if m, ok := emb.(interface{ QueryMarking() string }); ok {
			marking = m.QueryMarking()
		}
		if emb, err = embedding.NewQueryCache(emb, embedding.QueryCacheConfig{Size: c.QueryEmbedCache, Prefix: marking,
			OnLookup: metrics.QueryEmbeddingLookup}); err != nil {
			return usageError{err}
		}
	}
	model, err := c.Chat.BuildChat(log)
	if err != nil {
		return usageError{err}
	}
	keys, err := httpapi.LoadKeys(c.KeysFile)
	if err != nil {
		return usageError{err}
	}

	onto, chunker, err := c.Indexing.Build()
	if err != nil {
		return usageError{err}
	}
	ext, err := c.Indexing.BuildExtractor(onto, model)
	if err != nil {
		return usageError{err}
	}
	lex, err := c.Lexicon.Load(log)
	if err != nil {
		return usageError{fmt.Errorf("--lexicon %s: %w", c.Lexicon.Path, err)}
	}
	rec, recNote, err := c.Indexing.BuildRecognizer(ctx, onto, lex, log)
	if err != nil {
		if errors.Is(err, ariadne.ErrUnavailable) {
			return err
		}
		return usageError{err}
	}
	// --ner auto with the sidecar down when the API starts: a write to a source indexed with
	// recognition is refused (503) rather than re-extracting its documents without it, which
	// would drop every entity recognized there (ingest.RecognitionError); a source indexed
	// without it is written, as before.
	recognitionDown := ""
	if rec == nil && c.Indexing.RecognitionAsked() {
		recognitionDown = fmt.Sprintf("the NER sidecar at %s did not answer when the API started (start it and restart the API, or set ARIADNE_NER=off to rebuild without recognition)", c.Indexing.NERURL)
	}
	pipe, err := ingest.New(ingest.Config{Chunker: chunker, Embedder: emb, Extractor: ext, Recognizer: rec, RecognitionDown: recognitionDown,
		Places: setup.SubjectPlaces(rec, lex), Ontology: onto, Graph: gs, Vectors: vs, Logger: log, LockWait: c.WriteWait})
	if err != nil {
		return err
	}

	var router agent.Router = agent.RuleRouter{}
	switch {
	case c.Router == "llm" && model != nil:
		router = agent.LLMRouter{Model: model}
	case c.Router == "auto":
		router = agent.AutoRouter(model)
	}
	if c.Router == "llm" && model == nil {
		return usageError{errors.New("--router llm needs a chat model (--llm-provider, --llm-url, --llm-model)")}
	}
	// Question and evidence-unit vectors are cached in memory (content-keyed; question vectors per
	// caller, embedding.WithCacheScope, set by httpapi): the evidence ranker reuses the
	// retriever's question vector. A unit's vector comes from Weaviate's unit class when
	// cmd/extract --unit-vectors stored it, else it is embedded once and stored there.
	cached := agent.NewCachingEmbedder(emb, 0, vs)
	var gen agent.Generator = agent.TermExtractive{Lexicon: lex}
	switch {
	case c.Generator == "extractive-v2":
		gen = agent.Extractive{Ranker: agent.EvidenceRanker{Embedder: cached, Lexicon: lex}}
	case c.Generator == "llm" && model == nil:
		return usageError{errors.New("--generator llm needs a chat model (--llm-provider, --llm-url, --llm-model)")}
	case model != nil && c.Generator != "extractive":
		gen = agent.LLMGenerator{Model: model, Mode: agent.CitationMode(c.CitationMode), Rank: agent.LexicalUnitRanker(lex),
			Budget: agent.UnitBudget{Tokens: c.UnitTokens}}
	}
	var judge agent.Judge
	if c.Judge {
		if model == nil {
			return usageError{errors.New("--judge needs a chat model (--llm-provider, --llm-url, --llm-model)")}
		}
		judge = agent.LLMJudge{Model: model}
	}
	// Searches go through the index guard: refused (503) while the HNSW index is known to have
	// lost entries, repaired in the background (--vector-index-repair).
	guard := vector.NewIndexGuard(vs, vector.GuardConfig{Repair: c.IndexRepair, Log: log})
	retriever := agent.NewRetriever(guard, gs, cached, router, agent.RetrievalConfig{Alpha: agent.DefaultAlpha(emb.Name()),
		MinVectorScore: agent.DefaultMinVectorScore(emb.Name()), Lexicon: lex, Translations: c.Translations, BridgeHops: bridgeHops(c.BridgeHops)}, log)
	acfg := agent.AnswerConfig{Judge: judge, Chunks: gs, Deadline: c.QueryTimeout, Lexicon: lex, EntityTypeOf: onto.EntityTypeOfDocument}
	if _, ok := gen.(agent.LLMGenerator); ok {
		acfg.Gate = agent.AnswerabilityGate(c.Answerability, model, agent.TermExtractive{Lexicon: lex})
	}
	answerer := agent.NewAnswerer(retriever, gen, vs, acfg,
		agent.Hooks{VerificationFailure: metrics.VerificationFailure, Retry: metrics.Retry}, log)
	log.Info("components", "embedder", emb.Name(), "generator", answerer.Generator(), "router", fmt.Sprintf("%T", router),
		"judge", judge != nil, "keys", c.KeysFile != "", "lexicon", lex.Name(), "keyword_translations", max(c.Translations, 0), "ontology", c.Indexing.OntologyName())

	readiness := func(ctx context.Context) map[string]httpapi.Check {
		checks := map[string]httpapi.Check{}
		// Questions degrade without the graph (answered from the chunk index, marked "degraded"),
		// so Neo4j down leaves the API serving them: optional, like the NER sidecar.
		checks["neo4j"] = check(gs.Ping(ctx), c.Neo4jURI)
		if n := checks["neo4j"]; !n.OK {
			checks["neo4j"] = httpapi.Check{OK: false, Optional: true, Detail: n.Detail +
				" — questions are answered from the chunk index alone (marked degraded: no entity linking, multi_hop runs as hybrid); document writes, entity and graph reads fail until it is back"}
		}
		checks["weaviate"] = check(vs.Ping(ctx), c.WeaviateURL)
		detail := emb.Name()
		if embNote != "" {
			detail += " — " + embNote
		}
		// The local e5 server answers a health probe; the lexical embedder runs in process; a
		// hosted provider is not probed (each probe would be a paid request).
		switch {
		case (c.Embedder.Kind == "e5" || c.Embedder.Kind == "auto") && emb.Name() == setup.E5Name:
			if err := setup.ProbeE5(ctx, c.Embedder.E5URL); err != nil {
				checks["embedder"] = httpapi.Check{OK: false, Detail: fmt.Sprintf("%s does not answer at %s (%v): questions and writes fail until it is back", emb.Name(), c.Embedder.E5URL, err)}
			} else {
				checks["embedder"] = httpapi.Check{OK: true, Detail: detail + " at " + c.Embedder.E5URL}
			}
		case c.Embedder.Kind == "openai" || c.Embedder.Kind == "ollama":
			checks["embedder"] = httpapi.Check{OK: true, Detail: detail + " (a remote provider: not probed)"}
		default:
			checks["embedder"] = httpapi.Check{OK: true, Detail: detail}
		}
		// Only document writes need the NER sidecar: optional, so a sidecar that is down degrades
		// the service instead of taking queries out of rotation.
		switch h, ok := rec.(interface{ Health(context.Context) error }); {
		case ok:
			if err := h.Health(ctx); err != nil {
				checks["ner"] = httpapi.Check{OK: false, Optional: true, Detail: "the NER sidecar at " + c.Indexing.NERURL + " does not answer: documents written now get no recognized entities"}
			} else {
				checks["ner"] = httpapi.Check{OK: true, Optional: true, Detail: c.Indexing.NERURL}
			}
		case rec == nil:
			// off on purpose (--ner off, the llm extractor), or down when the API started (auto)
			off := c.Indexing.NER == "off" || c.Indexing.Extractor == "llm"
			detail := recNote
			if recognitionDown != "" {
				detail = recognitionDown + "; writes to a source indexed with recognition are refused (503) until then, others are written without it"
			}
			checks["ner"] = httpapi.Check{OK: off, Optional: true, Detail: detail}
		}
		have, ok, err := vs.ClassEmbedding(ctx)
		switch {
		case err != nil:
			checks["index"] = httpapi.Check{OK: false, Detail: err.Error()}
		case !ok:
			checks["index"] = httpapi.Check{OK: true, Detail: "empty: nothing ingested into class " + vs.Class()}
		case have.Name != emb.Name():
			checks["index"] = httpapi.Check{OK: false, Detail: fmt.Sprintf("class %s holds %s vectors but queries use %s: re-index or set ARIADNE_EMBEDDER", vs.Class(), have, emb.Name())}
		default:
			checks["index"] = httpapi.Check{OK: true, Detail: fmt.Sprintf("class %s, %s", vs.Class(), have)}
			// A Weaviate restarted after a crash can keep the objects but lose HNSW entries:
			// vector search then answers from partial evidence. The guard's check (9 queries)
			// runs with each probe, so a probe also notices a restart.
			if ok, detail, err := guard.Check(ctx); err != nil {
				checks["vector_index"] = httpapi.Check{OK: false, Detail: err.Error()}
			} else {
				checks["vector_index"] = httpapi.Check{OK: ok, Detail: detail}
			}
			checks["bm25_analysis"] = analysisCheck(ctx, vs)
		}
		return checks
	}
	engine := httpapi.New(httpapi.Services{Answerer: answerer, Retriever: retriever, Entities: gs, Library: gs, ChunkIndex: vs, Documents: pipe,
		Keys: keys, Ready: readiness, Metrics: metrics, Log: log, UI: web.Config{Neo4jBrowserURL: browserURL(c.Neo4jBrowserURL)},
		Places: lex.Places()},
		httpapi.Limits{QueryTimeout: c.QueryTimeout, WriteTimeout: c.WriteTimeout, QueryConcurrency: c.MaxQueries, WriteConcurrency: c.MaxWrites,
			ReadConcurrency: c.MaxReads, QueueWait: c.QueueWait, RatePerKey: c.RatePerKey, RateBurst: c.RateBurst,
			FailedAuthPerMinute: c.FailedAuth, TrustedProxies: c.TrustedProxies})

	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: engine, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: c.QueryTimeout + 30*time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	go keepWarm(ctx, gs, warmer{retriever: retriever, names: c.WarmNames, public: keys.Public()}, 5*time.Second, log)
	log.Info("listening", "addr", ln.Addr().String(), "ui", "http://"+ln.Addr().String()+web.Prefix,
		"openapi", "http://"+ln.Addr().String()+"/openapi.yaml")
	if ready != nil {
		ready <- ln.Addr().String()
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", c.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	<-errc
	return nil
}

// browserURL is the Neo4j Browser address the page links to: the flag, else the local Neo4j's
// HTTP address (ARIADNE_NEO4J_HTTP, which ARIADNE_PORT_OFFSET shifts) + /browser/; "none" is none.
func browserURL(flag string) string {
	switch flag {
	case "none":
		return ""
	case "":
		return strings.TrimRight(cmp.Or(os.Getenv("ARIADNE_NEO4J_HTTP"), "http://127.0.0.1:7474"), "/") + "/browser/"
	}
	return flag
}

// analysisCheck reports whether the index's BM25 terms were made by the analysis queries use
// (textnorm.AnalysisVersion). Terms of an older analysis still answer, with misses, so the check
// is optional: the API is degraded, not unready, until a sync rewrites them.
func analysisCheck(ctx context.Context, vs *vector.Store) httpapi.Check {
	stale, total, err := vs.StaleAnalysis(ctx, textnorm.AnalysisVersion)
	switch {
	case err != nil:
		return httpapi.Check{OK: false, Optional: true, Detail: err.Error()}
	case stale > 0:
		return httpapi.Check{OK: false, Optional: true, Detail: fmt.Sprintf(
			"%d of %d chunks hold BM25 terms of an older analysis than this build's (%s): keyword search misses terms until a sync (cmd/extract, each source) rewrites them",
			stale, total, textnorm.AnalysisVersion)}
	}
	return httpapi.Check{OK: true, Optional: true, Detail: "BM25 analysis " + textnorm.AnalysisVersion}
}

func check(err error, target string) httpapi.Check {
	if err != nil {
		return httpapi.Check{OK: false, Detail: target + ": " + err.Error()}
	}
	return httpapi.Check{OK: true, Detail: target}
}

// pickEmbedder builds the configured embedder. In auto mode a class that already holds vectors
// decides: queries must use the embedder that built it, and if that embedder cannot be reached the
// API refuses to start rather than answer with mismatched vectors.
func pickEmbedder(ctx context.Context, cfg setup.Embedder, vs *vector.Store, log *slog.Logger) (setup.EmbedderImpl, string, error) {
	have, built, err := vs.ClassEmbedding(ctx)
	if err != nil {
		return nil, "", err
	}
	if cfg.Kind == "auto" && built {
		lexical := setup.Embedder{Kind: "lexical", LexicalDim: have.Dim}
		if emb, _, err := lexical.BuildEmbedder(ctx, log); err == nil && emb.Name() == have.Name {
			return emb, "the index was built with it", nil
		}
		e5 := cfg
		e5.Kind = "e5"
		if emb, _, err := e5.BuildEmbedder(ctx, log); err == nil && emb.Name() == have.Name {
			if err := setup.ProbeE5(ctx, cfg.E5URL); err != nil {
				return nil, "", fmt.Errorf("the index was built with %s, whose server %s does not answer (%v): start it (make up) or re-index: %w",
					have.Name, cfg.E5URL, err, ariadne.ErrUnavailable)
			}
			return emb, "the index was built with it", nil
		}
	}
	emb, note, err := cfg.BuildEmbedder(ctx, log)
	if err != nil {
		return nil, "", err
	}
	if built && have.Name != emb.Name() {
		log.Error("the index was built with another embedder; queries will fail until it is re-indexed", "index", have.String(), "embedder", emb.Name())
	}
	return emb, note, nil
}

// The concrete stores and agents fit the interfaces their consumers declare.
var (
	_ agent.ChunkSearcher = (*vector.Store)(nil)
	_ agent.GraphReader   = (*graph.Store)(nil)
	_ agent.IndexCounter  = (*vector.Store)(nil)
	_ ingest.GraphStore   = (*graph.Store)(nil)
	_ ingest.VectorStore  = (*vector.Store)(nil)
	_ httpapi.Entities    = (*graph.Store)(nil)
	_ httpapi.Library     = (*graph.Store)(nil)
	_ httpapi.Documents   = (*ingest.Pipeline)(nil)
	_ httpapi.Answerer    = (*agent.Answerer)(nil)
	_ httpapi.Retriever   = (*agent.Retriever)(nil)
)

// keepWarm readies the graph read path ahead of the questions (warmer.warm) at the start, and
// again as soon as Neo4j answers after it was found unreachable — by a read (the read breaker
// opened, graph.Store.ReadsBroke) or by keepWarm's own ping every pingEvery — since the first
// question after a Neo4j restart otherwise pays for its cold query plans and caches (8.7 s in a
// README trial; 2.2 s for the plans alone, measured after db.clearQueryCaches).
func keepWarm(ctx context.Context, gs *graph.Store, w warmer, pingEvery time.Duration, log *slog.Logger) {
	tick := time.NewTicker(pingEvery)
	defer tick.Stop()
	for {
		w.warm(ctx, gs, log)
		select { // a break the warm-up itself waited out is over
		case <-gs.ReadsBroke():
		default:
		}
	wait:
		for {
			select {
			case <-ctx.Done():
				return
			case <-gs.ReadsBroke():
				break wait
			case <-tick.C:
				if err := gs.Ping(ctx); errors.Is(err, ariadne.ErrUnavailable) {
					break wait
				}
			}
		}
	}
}

// warmer is what keepWarm warms: names entity names embedded into the retriever's name cache
// (agent.Retriever.WarmNames; 0 embeds none), and one multi_hop retrieval (not an answer: no
// chat model is asked) for an anonymous caller (the public groups) between the two most
// connected names, its evidence discarded, so that Neo4j compiles the plans of the linking,
// walk, path and chunk reads.
type warmer struct {
	retriever *agent.Retriever
	names     int
	public    []string
}

// warm builds the gazetteer's place matcher (Retriever.WarmPlaces), pings Neo4j until it answers
// (every 1–2 s; a successful ping also closes the read breaker, graph.Store.Ping), reads the
// entity names, embeds them and makes the warm-up retrieval. A failure only costs the first
// questions their warm-up, so it is logged, not fatal; the log names no entity.
func (w warmer) warm(ctx context.Context, gs *graph.Store, log *slog.Logger) {
	w.retriever.WarmPlaces() // no store involved: the gazetteer's names
	start := time.Now()
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = time.Second, 2*time.Second, 0
	names, err := backoff.RetryWithData(func() ([]string, error) {
		if err := gs.Ping(ctx); err != nil {
			if errors.Is(err, ariadne.ErrUnavailable) {
				return nil, err
			}
			return nil, backoff.Permanent(err)
		}
		names, err := gs.EntityNames(ctx, w.public, max(w.names, 2))
		if err != nil && !errors.Is(err, ariadne.ErrUnavailable) {
			return nil, backoff.Permanent(err)
		}
		return names, err
	}, backoff.WithContext(b, ctx))
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("graph read path not warmed (the first questions warm it)", "err", err)
		}
		return
	}
	waited, start := time.Since(start), time.Now() // the wait for Neo4j is not the warm-up
	embedded := 0
	if w.names > 0 {
		if embedded, err = w.retriever.WarmNames(ctx, w.public, names[:min(len(names), w.names)], 0); err != nil && ctx.Err() == nil {
			log.Warn("entity names not embedded ahead (the first multi_hop questions embed their own)", "err", err)
		}
	}
	asked := "no" // fewer than two names: nothing to walk between
	if len(names) >= 2 {
		q := fmt.Sprintf("How is %s connected to %s?", names[0], names[1])
		if _, err := w.retriever.Retrieve(ctx, agent.Request{Question: q, Groups: w.public, Mode: string(ariadne.RouteMultiHop)}); err != nil {
			if ctx.Err() == nil {
				log.Warn("warm-up question failed (the first questions warm the graph read path)", "err", err)
			}
		} else {
			asked = "yes"
		}
	}
	log.Info("graph read path warmed", "names_embedded", embedded, "question", asked, "ms", time.Since(start).Milliseconds(),
		"waited_for_neo4j_ms", waited.Milliseconds())
}

// bridgeHops maps the API's bridge-hops setting (0: off) to agent.RetrievalConfig's (0: the
// default, negative: off).
func bridgeHops(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}
