package graph

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/log"
	"github.com/sony/gobreaker/v2"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/breaker"
)

// Config says where Neo4j is and how to log in.
type Config struct {
	URI      string // e.g. "bolt://127.0.0.1:7687" or "neo4j://host:7687"
	User     string
	Password string
	Database string // "" means the server's default database ("neo4j")
	// MaxTransactionRetry bounds the driver's own retries of transient errors inside
	// ExecuteQuery; retry happens at this one layer for Neo4j. 0 means 15s.
	MaxTransactionRetry time.Duration
	// ReadOpen is how long reads fail at once after one found Neo4j unreachable (the read
	// path's circuit breaker, Store.read). 0 means 10s.
	ReadOpen time.Duration
	// Namespace, when not empty, prefixes every label, constraint and index name Ariadne uses
	// (TDocument, TChunk, TEntity, TClient, …), so that several graphs share one database
	// without seeing each other — Neo4j Community has one database. Integration tests use it to
	// leave a user's graph alone. Letters and digits, starting with a letter, at most 24.
	Namespace string
	// BoltLogger, when set, receives every Bolt message the store sends and receives (the
	// driver's protocol log, for debugging; tests read the access mode of each transaction from
	// it). Messages carry query parameters: never set it in production.
	BoltLogger log.BoltLogger
	// Lazy skips Open's connectivity check: the driver connects on first use, so a server that
	// is not up yet fails the first reads (ariadne.ErrUnavailable, through the read breaker)
	// instead of Open. The API uses it to start, degraded, while Neo4j is down; call Ping to
	// learn whether it answers.
	Lazy bool
}

var namespaceRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9]{0,23})?$`)

// Store reads and writes Ariadne's graph in Neo4j. It is safe for concurrent use.
type Store struct {
	driver  neo4j.DriverWithContext
	db      string
	ns      string
	names   *strings.Replacer // index and constraint names of the namespace
	boltLog log.BoltLogger    // Config.BoltLogger
	// relationACLsChecked is set once EnsureSchema has repaired the relation ACLs of this
	// namespace (repairRelationACLsCypher), so that later writes of the process skip the scan.
	relationACLsChecked atomic.Bool
	// reads is the read path's circuit breaker (newReadBreaker): once a read found Neo4j
	// unreachable, after the driver's own retries, the reads of the next readOpen fail at once
	// instead of each waiting out MaxTransactionRetry, so that questions degrade to the chunk
	// index without a 15-second stall apiece (agent.Retriever.Retrieve).
	reads atomic.Pointer[gobreaker.CircuitBreaker[*neo4j.EagerResult]]
	// newReads makes a closed read breaker (Open's settings): Ping swaps one in when Neo4j
	// answers while the breaker is open. Nil: Ping leaves the breaker alone.
	newReads func() *gobreaker.CircuitBreaker[*neo4j.EagerResult]
	// broke receives (without blocking, capacity 1) each time the read breaker opens.
	broke chan struct{}
}

// Open connects to Neo4j and verifies connectivity and credentials (unless cfg.Lazy). The error
// wraps ariadne.ErrUnavailable when the server cannot be reached.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.URI == "" {
		return nil, fmt.Errorf("graph: empty Neo4j URI: %w", ariadne.ErrInvalid)
	}
	if !namespaceRE.MatchString(cfg.Namespace) {
		return nil, fmt.Errorf("graph: namespace %q: want letters and digits, starting with a letter, at most 24: %w", cfg.Namespace, ariadne.ErrInvalid)
	}
	retry := cfg.MaxTransactionRetry
	if retry == 0 {
		retry = 15 * time.Second
	}
	driver, err := neo4j.NewDriverWithContext(cfg.URI, neo4j.BasicAuth(cfg.User, cfg.Password, ""),
		func(c *config.Config) {
			c.MaxTransactionRetryTime = retry
			c.SocketConnectTimeout = 5 * time.Second
			c.ConnectionAcquisitionTimeout = 30 * time.Second
		})
	if err != nil {
		return nil, fmt.Errorf("graph: driver for %s: %w", cfg.URI, errors.Join(ariadne.ErrInvalid, err))
	}
	s := &Store{driver: driver, db: cfg.Database, ns: cfg.Namespace, names: namespaceNames(cfg.Namespace), boltLog: cfg.BoltLogger,
		broke: make(chan struct{}, 1)}
	s.newReads = func() *gobreaker.CircuitBreaker[*neo4j.EagerResult] {
		return newReadBreaker(cfg.ReadOpen, func() {
			select {
			case s.broke <- struct{}{}:
			default:
			}
		})
	}
	s.reads.Store(s.newReads())
	if cfg.Lazy {
		return s, nil
	}
	if err := s.Ping(ctx); err != nil {
		driver.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return s, nil
}

// ReadsBroke receives once each time a read found Neo4j unreachable and the read breaker opened
// (several openings before a receive count as one). cmd/api waits on it to warm the read path
// again as soon as Neo4j answers, ahead of the first question.
func (s *Store) ReadsBroke() <-chan struct{} { return s.broke }

// Close releases the driver's connections.
func (s *Store) Close(ctx context.Context) error { return s.driver.Close(ctx) }

// Ping checks that Neo4j answers and accepts the credentials. When it does while the read breaker
// is open or half-open (a read found Neo4j unreachable less than ReadOpen ago), the breaker is
// replaced by a closed one, so that reads go to Neo4j again at once instead of after the rest
// of the open interval (questions stayed degraded for up to 10 s after Neo4j was back: README
// trial); /readyz and cmd/api's warm-up ping.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.driver.VerifyConnectivity(ctx); err != nil {
		return translate("verify connectivity", err)
	}
	if b := s.reads.Load(); b != nil && s.newReads != nil && b.State() != gobreaker.StateClosed {
		s.reads.CompareAndSwap(b, s.newReads())
	}
	return nil
}

// run executes one parameterized statement in a write transaction with the driver's managed
// retries; over neo4j:// the driver routes it to the cluster's writer (leader).
func (s *Store) run(ctx context.Context, cypher string, params map[string]any) (*neo4j.EagerResult, error) {
	return s.execute(ctx, cypher, params, neo4j.ExecuteQueryWithWritersRouting())
}

// read executes one parameterized read-only statement in a read transaction with the driver's
// managed retries: over neo4j:// a Neo4j cluster or Aura runs it on a reader (follower or read
// replica), and any server rejects a write inside it (Neo.ClientError.Statement.AccessMode).
// Every read path of the API (read.go, views.go, documents.go) goes through here.
//
// Reads pass the store's circuit breaker: after a read that found Neo4j unreachable, reads fail
// at once for the breaker's open interval (Config.ReadOpen, 10 s), then one read probes the
// server while the others keep failing; the error wraps errReadsOpen (and ErrUnavailable, via
// translate).
func (s *Store) read(ctx context.Context, cypher string, params map[string]any) (*neo4j.EagerResult, error) {
	reads := s.reads.Load()
	if reads == nil {
		return s.execute(ctx, cypher, params, neo4j.ExecuteQueryWithReadersRouting())
	}
	return reads.Execute(func() (*neo4j.EagerResult, error) {
		// A read still running after readProbeAfter starts a connectivity probe: with the server
		// gone the driver retries for MaxTransactionRetry (a first question took 26 s), while the
		// probe fails at once, so the read is cut short and reported unreachable.
		rctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		probe := time.AfterFunc(readProbeAfter, func() {
			pctx, done := context.WithTimeout(rctx, readProbeTimeout)
			defer done()
			if err := s.driver.VerifyConnectivity(pctx); err != nil && rctx.Err() == nil && unreachable(err) {
				cancel(&neo4j.ConnectivityError{Inner: err})
			}
		})
		defer probe.Stop()
		res, err := s.execute(rctx, cypher, params, neo4j.ExecuteQueryWithReadersRouting())
		var probed *neo4j.ConnectivityError
		if err != nil && ctx.Err() == nil && errors.As(context.Cause(rctx), &probed) {
			return nil, probed
		}
		return res, err
	})
}

// A read still running after readProbeAfter starts a connectivity probe that may take
// readProbeTimeout (Store.read): a refused connection fails it at once, while a server that
// stalls for a few seconds (a long GC pause) answers it in time and is not taken for gone.
const (
	readProbeAfter   = 2 * time.Second
	readProbeTimeout = 3 * time.Second
)

// errReadsOpen is the read breaker's refusal: Neo4j was unreachable a moment ago.
var errReadsOpen = errors.New("Neo4j was unreachable a moment ago; reads fail at once until a probe reaches it")

// newReadBreaker is the read path's breaker: one read that found Neo4j unreachable (after the
// driver's retries, or cut short by the connectivity probe) opens it for open (10 s when zero); half-open,
// one read probes the server. Errors that say nothing about the server's reachability — a
// cancelled or expired request, a Cypher or login error (anything translate does not call
// ErrUnavailable) — count as successes.
func newReadBreaker(open time.Duration, onOpen func()) *gobreaker.CircuitBreaker[*neo4j.EagerResult] {
	unavailable := func(err error) bool { return errors.Is(translate("read", err), ariadne.ErrUnavailable) }
	return gobreaker.NewCircuitBreaker[*neo4j.EagerResult](breaker.Settings("neo4j-reads", open, unavailable, onOpen))
}

// unreachable reports whether a driver error says the server could not be reached or answered
// with a transient state after the driver's retries.
func unreachable(err error) bool {
	var connErr *neo4j.ConnectivityError
	var netErr net.Error
	return errors.As(err, &connErr) || errors.As(err, &netErr) || neo4j.IsRetryable(err)
}

// readRows is read for a statement that returns many rows: the server collects them into one
// record, which readRows splits back into one record per row with the columns cols (the names
// the statement returns, in any order), in the order the statement returns them.
//
// The driver reads every record as its own Bolt message, and each read of a message under a
// deadline (the request's, or the server's read-timeout hint) starts a goroutine and a timer:
// for the 2 000 relations of a multi_hop question at 100k chunks that was 24 ms of client CPU
// per Edges call, and 3.5 ms as one record, with the same server time (docs/performance.md).
// The statement must end in RETURN; it runs as a subquery, so it may not begin with USE.
func (s *Store) readRows(ctx context.Context, cypher string, cols []string, params map[string]any) (*neo4j.EagerResult, error) {
	res, err := s.read(ctx, rowsCypher(cypher, cols), params)
	if err != nil {
		return nil, err
	}
	if len(res.Records) != 1 {
		return nil, fmt.Errorf("graph: collected rows: %d records, want 1: %w", len(res.Records), ariadne.ErrUnavailable)
	}
	rows, ok := res.Records[0].Values[0].([]any)
	if !ok {
		return nil, fmt.Errorf("graph: collected rows: %T, want a list: %w", res.Records[0].Values[0], ariadne.ErrUnavailable)
	}
	recs := make([]*neo4j.Record, 0, len(rows))
	for _, row := range rows {
		vals, ok := row.([]any)
		if !ok || len(vals) != len(cols) {
			return nil, fmt.Errorf("graph: collected row %v, want %d values: %w", row, len(cols), ariadne.ErrUnavailable)
		}
		recs = append(recs, &neo4j.Record{Keys: cols, Values: vals})
	}
	res.Keys, res.Records = cols, recs
	return res, nil
}

// rowsCypher wraps a statement returning the columns cols into one that returns them as one
// list of rows (readRows).
func rowsCypher(cypher string, cols []string) string {
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = "`" + c + "`"
	}
	return "CALL () {\n" + cypher + "\n}\nRETURN collect([" + strings.Join(quoted, ", ") + "]) AS rows"
}

func (s *Store) execute(ctx context.Context, cypher string, params map[string]any, routing neo4j.ExecuteQueryConfigurationOption) (*neo4j.EagerResult, error) {
	opts := []neo4j.ExecuteQueryConfigurationOption{routing}
	if s.db != "" {
		opts = append(opts, neo4j.ExecuteQueryWithDatabase(s.db))
	}
	if s.boltLog != nil {
		opts = append(opts, neo4j.ExecuteQueryWithBoltLogger(s.boltLog))
	}
	return neo4j.ExecuteQuery(ctx, s.driver, s.cy(cypher), params, neo4j.EagerResultTransformer, opts...)
}

// sessionConfig is the configuration of an explicit session in mode. Sessions share the
// bookmark manager of ExecuteQuery, so on a cluster a read routed to a reader waits for the
// writes this store made before it (causal consistency), whichever API made them.
func (s *Store) sessionConfig(mode neo4j.AccessMode) neo4j.SessionConfig {
	return neo4j.SessionConfig{DatabaseName: s.db, AccessMode: mode, BookmarkManager: s.driver.ExecuteQueryBookmarkManager(),
		BoltLogger: s.boltLog}
}

// Namespace is the label namespace of the store ("" for none).
func (s *Store) Namespace() string { return s.ns }

// labelRefRE finds node label references in Cypher: a colon followed by a PascalCase name
// (":Entity", ":Client"). Relationship types are UPPER_SNAKE (":HAS_CHUNK") and are not matched.
var labelRefRE = regexp.MustCompile(`:([A-Z][a-z][A-Za-z0-9]*)\b`)

// cy rewrites a statement for the store's namespace: every node label, the 'Entity' label
// literal, and the names of Ariadne's indexes and constraints get the namespace prefix. Without a
// namespace it returns the statement as it is.
func (s *Store) cy(cypher string) string {
	if s.ns == "" {
		return cypher
	}
	return s.names.Replace(labelRefRE.ReplaceAllString(cypher, ":"+s.ns+"$1"))
}

// Label returns the stored label of an entity type label or of Document, Chunk, Entity.
func (s *Store) Label(label string) string { return s.ns + label }

// schemaNames are the index and constraint names Ariadne creates (see schemaStatements).
var schemaNames = []string{"document_id", "chunk_id", "entity_key", EntityFulltextIndex, "chunk_doc_id", "entity_doc_id", "entity_uid", "source_name", "document_source"}

// lockNames are the names of the writer lease's schema (lock.go), namespaced like schemaNames.
var lockNames = []string{"write_lock_id"}

func namespaceNames(ns string) *strings.Replacer {
	pairs := []string{"'Entity'", "'" + ns + "Entity'"}
	for _, n := range append(slices.Clone(schemaNames), lockNames...) {
		pairs = append(pairs, " "+n+" ", " "+ns+"_"+n+" ", "'"+n+"'", "'"+ns+"_"+n+"'")
	}
	return strings.NewReplacer(pairs...)
}

// translate maps driver errors to Ariadne's sentinels, once, at the boundary:
//
//   - a rejected login (Neo.ClientError.Security.*) is ErrUnauthorized, with a message that says
//     to check ARIADNE_NEO4J_USER / ARIADNE_NEO4J_PASSWORD;
//   - connectivity problems, cancelled or expired contexts and transient server states
//     (Neo.TransientError.*, which the driver already retried within MaxTransactionRetry) are
//     ErrUnavailable;
//   - an unknown database is ErrInvalid with a message naming ARIADNE_NEO4J_DATABASE;
//   - other client errors (syntax, constraint, usage) are ErrInvalid;
//   - anything else is ErrUnavailable.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	var neoErr *neo4j.Neo4jError
	var usageErr *neo4j.UsageError
	isNeo := errors.As(err, &neoErr)
	switch {
	case isNeo && strings.HasPrefix(neoErr.Code, "Neo.ClientError.Security."):
		return fmt.Errorf("graph: %s: Neo4j rejected the login (%s); check ARIADNE_NEO4J_USER and ARIADNE_NEO4J_PASSWORD: %w",
			op, neoErr.Code, errors.Join(ariadne.ErrUnauthorized, err))
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("graph: %s: %w", op, errors.Join(ariadne.ErrUnavailable, err))
	case errors.Is(err, gobreaker.ErrOpenState), errors.Is(err, gobreaker.ErrTooManyRequests):
		return fmt.Errorf("graph: %s: %w", op, errors.Join(ariadne.ErrUnavailable, errReadsOpen))
	case unreachable(err):
		return fmt.Errorf("graph: %s: %w", op, errors.Join(ariadne.ErrUnavailable, err))
	case isNeo && neoErr.Code == "Neo.ClientError.Database.DatabaseNotFound":
		return fmt.Errorf("graph: %s: the Neo4j database does not exist (check ARIADNE_NEO4J_DATABASE): %w",
			op, errors.Join(ariadne.ErrInvalid, err))
	case isNeo && neoErr.Classification() == "ClientError", errors.As(err, &usageErr):
		return fmt.Errorf("graph: %s: %w", op, errors.Join(ariadne.ErrInvalid, err))
	}
	return fmt.Errorf("graph: %s: %w", op, errors.Join(ariadne.ErrUnavailable, err))
}
