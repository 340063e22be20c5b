package agent

import (
	"context"

	"github.com/ariadne-graphrag/ariadne"
)

// ChunkSearcher searches the chunk index (vector.Store).
type ChunkSearcher interface {
	Search(ctx context.Context, mode ariadne.SearchMode, q ariadne.SearchQuery) ([]ariadne.ScoredChunk, error)
}

// GraphReader reads the entity graph (graph.Store).
type GraphReader interface {
	EntityCandidates(ctx context.Context, text string, groups []string, limit int) ([]ariadne.EntityCandidate, error)
	Edges(ctx context.Context, keys, groups, relTypes []string, limit int) ([]ariadne.Edge, error)
	EntitiesOfChunks(ctx context.Context, ids, groups []string) (map[string][]string, error)
	DocumentChunkIDs(ctx context.Context, docIDs, groups []string) ([]string, error)
}

// MentionReader reads the chunks that mention entities (graph.Store). A GraphReader without it
// gives the walk only the entities of the first-pass chunks, without stepping to other chunks.
type MentionReader interface {
	EntityMentions(ctx context.Context, keys, groups []string, per, expand int) (map[string]ariadne.EntityMentions, error)
}

// QueryEmbedder embeds questions.
type QueryEmbedder interface {
	Name() string
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Router classifies questions (RuleRouter, LLMRouter).
type Router interface {
	Route(ctx context.Context, question string, linked []Linked) Decision
}

// Strategy is one retrieval strategy; the routed retriever picks among them.
type Strategy string

// Strategies, for routing and for evaluation side by side.
const (
	StrategyBM25   Strategy = "bm25"
	StrategyVector Strategy = "vector"
	StrategyHybrid Strategy = "hybrid"
	StrategyGraph  Strategy = "graph+hybrid"
	// StrategyWalk is the query-aware walk's own ranking, before fusion with hybrid (an ablation
	// for evaluation; routes never use it alone).
	StrategyWalk Strategy = "walk"
)

// Result is retrieved evidence.
type Result struct {
	Route    ariadne.Route
	Chunks   []ariadne.ScoredChunk // best first
	Paths    []ariadne.Path        // multi_hop: graph paths whose edges support returned chunks
	Evidence Evidence              // how strong the final strategy's evidence is; decides escalation
	Linked   []Linked              // the entities the question names (Retrieve's entity linking)
	Trace    *Trace                // explains the retrieval; never a control channel
	walk     *WalkLists            // multi_hop: the lists fused, the walk's ranking among them (StrategyWalk)
	// chainPaths are the candidates the answer's evidence chain is chosen from (multi_hop):
	// evidencePaths as Paths, up to RetrievalConfig.ChainPaths; nil: Paths.
	chainPaths []ariadne.Path
	// walkRooted: Paths and chainPaths start at the walk's best-ranked entities, because the
	// question names none the linker confirmed (planChain then tries every stretch of them).
	walkRooted bool
	// pages are the chunks of the documents of the entities the question names (their own pages),
	// as the caller may read them, best first for the question (withLinkedDocuments); the
	// Answerer shows the generator a few of each beyond the ranked list (withPages).
	pages []ariadne.ScoredChunk
	// terms are the question's terms with its linked entities, as the evidence was assessed
	// (runStrategy; withLinkedDocuments assesses the fused list with them again).
	terms questionTerms
}

// Evidence measures one strategy's hits: how many, the top score, and the share of the
// question's search terms the top three contain. Weak evidence escalates the route and, after
// the last route, is answered not_found.
type Evidence struct {
	Hits     int
	TopScore float64
	Coverage float64
	Weak     bool
}
