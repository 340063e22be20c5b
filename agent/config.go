package agent

import (
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"strings"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// MinQuoteRunes is the shortest quote accepted: shorter strings ("28", "да") occur by chance.
const MinQuoteRunes = 12

// The extractive generator's bars (answerability threshold, further-claim bar) are no longer
// constants here: they are fitted with the evidence model on public data (agent/evidence_model.json,
// cmd/fitevidence).

// RetrievalConfig tunes retrieval. Zero values take the defaults in parentheses.
type RetrievalConfig struct {
	Alpha      float64        // hybrid weight of the vector side (0.5; see DefaultAlpha)
	Fusion     ariadne.Fusion // hybrid fusion (relative_score)
	Candidates int            // hits fetched per list before fusion (30)
	MaxHops    int            // depth of the graph neighbourhood read around the seeds (2)
	MaxPaths   int            // paths kept for evidence (12)
	// ChainPaths is how many paths the multi-hop answer's chain is chosen from (48): more than
	// MaxPaths, which the response shows, since a chunk with many relations (a project page
	// naming its services) used up the 12 before the path through the team's lead came.
	ChainPaths     int
	MaxGraphDocs   int          // documents whose chunks join the graph candidates (12)
	PerDoc         int          // multi_hop: chunks of one document ranked ahead of other documents (1)
	GraphWeight    float64      // multi_hop: RRF weight of the walk's list at full confidence, next to hybrid's 1 (see defaults)
	GraphWeightMin float64      // multi_hop: its weight at zero confidence (see defaults)
	WalkMentions   int          // multi_hop: chunks read per entity that mention it (30)
	WalkHub        int          // multi_hop: entities mentioned by more chunks are not expanded (100)
	WalkChunks     int          // multi_hop: chunks the walk's graph holds at most (1500)
	WalkPassage    float64      // multi_hop: share of the restart mass on passage seeds (0.5)
	WalkFloor      float64      // multi_hop: weight of a walk edge whose chunk matches the question least (0.1)
	WalkSynonym    float64      // multi_hop: entity-name cosine for a synonym edge (embedder's, see DefaultSynonymMin)
	BridgeHops     int          // multi_hop: bridge entities searched together with the question (0: the default, 1; negative: none — docs/multi-hop.md)
	BridgeKept     int          // multi_hop: the route's first chunks kept ahead of the bridge hop's finds (1)
	BridgeDocs     int          // multi_hop: the bridge hop's new documents put after them (2)
	MinHits        int          // fewer hits than this is weak evidence (1)
	MinVectorScore float64      // top cosine below this is weak evidence (0: disabled)
	MinCoverage    float64      // share of question terms the top hits must contain (0.25)
	RelTypes       []string     // relationship types traversed (all)
	Retry          retry.Policy // for Weaviate calls (10 attempts within 20s)
	// SearchOpen is how long searches fail at once after one found Weaviate unavailable past its
	// retries (Retriever.search's circuit breaker); 0 means 10s.
	SearchOpen time.Duration
	// Lexicon lets the weak-evidence coverage count a question term stated in the other language
	// (nil: the question's language only). The learned router's features do not use it: it was
	// trained without.
	Lexicon *lexicon.Lexicon
	// Translations: with a Lexicon, how many of each English question word's Russian
	// translations BM25 also searches (keywordTerms; a Russian word adds its English gloss); 0 or
	// negative: the question's own words only (the default: docs/evaluation.md, "Opt-in, off by
	// default").
	Translations int
}

func (c RetrievalConfig) withDefaults() RetrievalConfig {
	if c.Alpha == 0 {
		c.Alpha = 0.5
	}
	if c.Fusion == "" {
		c.Fusion = ariadne.FusionRelativeScore
	}
	if c.Candidates <= 0 {
		c.Candidates = 30
	}
	if c.MaxHops <= 0 {
		c.MaxHops = 2
	}
	if c.MaxPaths <= 0 {
		c.MaxPaths = 12
	}
	if c.ChainPaths <= 0 {
		c.ChainPaths = max(48, c.MaxPaths)
	}
	if c.MaxGraphDocs <= 0 {
		c.MaxGraphDocs = 12
	}
	if c.PerDoc <= 0 {
		c.PerDoc = 1
	}
	if c.GraphWeight <= 0 {
		c.GraphWeight = defaultGraphWeightMax
	}
	if c.GraphWeightMin <= 0 {
		c.GraphWeightMin = defaultGraphWeightMin
	}
	if c.WalkMentions <= 0 {
		c.WalkMentions = 30
	}
	if c.WalkHub <= 0 {
		c.WalkHub = 100
	}
	if c.WalkChunks <= 0 {
		c.WalkChunks = 1500
	}
	if c.BridgeKept <= 0 {
		c.BridgeKept = bridgeKept
	}
	if c.BridgeDocs <= 0 {
		c.BridgeDocs = bridgeDocs
	}
	if c.MinHits <= 0 {
		c.MinHits = 1
	}
	if c.MinCoverage == 0 {
		c.MinCoverage = 0.25
	}
	if (c.Retry == retry.Policy{}) {
		c.Retry = retry.Policy{Initial: 250 * time.Millisecond, Max: 4 * time.Second, MaxAttempts: 10, MaxElapsed: 20 * time.Second}
	}
	return c
}

// DefaultAlpha returns the hybrid weight of the vector side for an embedder: 0.3 for the lexical
// embedder, whose vectors repeat what BM25 over analyzed terms already sees and add noise; 0.5 for
// semantic models. Measured on the golden dev set (docs/evaluation.md).
func DefaultAlpha(embedderName string) float64 {
	if strings.HasPrefix(embedderName, "lexical") {
		return 0.3
	}
	return 0.5
}

// DefaultMinVectorScore returns the weak-evidence floor for an embedder's cosine scores: they live
// on different scales (the lexical embedder's matches score 0.2–0.6, e5's 0.75–0.9).
func DefaultMinVectorScore(embedderName string) float64 {
	switch {
	case strings.HasPrefix(embedderName, "lexical"):
		return 0.12
	case strings.Contains(embedderName, "e5"):
		return 0.78
	}
	return 0
}

// rrfK is the constant of reciprocal rank fusion.
const rrfK = 60

// The walk's fusion weights, fitted on the MuSiQue-100 fitting split (docs/multi-hop.md).
const (
	defaultGraphWeightMin = 0.5
	defaultGraphWeightMax = 1.5
)

// bridgeDepth is how many of the first pass's top chunks offer bridge entities (BridgeHop).
const bridgeDepth = 3

// bridgeHops is BridgeHops: 1 when zero, none when negative.
func (c RetrievalConfig) bridgeHops() int {
	if c.BridgeHops == 0 {
		return 1
	}
	return max(c.BridgeHops, 0)
}

// How the bridge hop's searches join the route's list (insertBridge) unless BridgeKept and
// BridgeDocs say otherwise: the route's first bridgeKept chunks stay ahead, the bridge searches'
// first bridgeDocs new documents come next.
// Fitted on MuSiQue-100's fitting split (questions 1–50), recall@5 by kept/docs: 1/1 0.700, 1/2
// 0.717, 1/3 0.710, 2/1 0.700, 2/2 0.710, 3/1 0.693; weighted RRF of the bridge list (weight 1,
// the earlier fusion) 0.672 (docs/multi-hop.md, "The bridge hop on by default").
const (
	bridgeKept = 1
	bridgeDocs = 2
)

func (c RetrievalConfig) walkParams() walkParams {
	p := defaultWalkParams()
	if c.WalkPassage > 0 && c.WalkPassage < 1 {
		p.PassageSeed = c.WalkPassage
	}
	if c.WalkFloor > 0 {
		p.EdgeFloor = c.WalkFloor
	}
	if c.WalkSynonym > 0 {
		p.SynonymMin = c.WalkSynonym
	}
	return p
}

// DefaultSynonymMin returns the entity-name cosine above which the walk links two entities as
// synonyms: names embed on different scales (e5 puts unrelated short names at 0.8–0.9; the
// lexical embedder's character n-grams score spelling variants high and anything else low).
func DefaultSynonymMin(embedderName string) float64 {
	if strings.HasPrefix(embedderName, "lexical") {
		return 0.8
	}
	return 0.95
}
