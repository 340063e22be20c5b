package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/llm"
)

// Generator writes an answer from numbered fragments, in the answer contract (see ParseOutput).
type Generator interface {
	Name() string
	Generate(ctx context.Context, in GenerationInput) (string, error)
}

// GenerationInput is what a generator answers from.
type GenerationInput struct {
	Question  string
	Groups    []string // the caller's permission groups: text analyses are cached for them only (callerScope; nil caches none)
	Fragments []Fragment
	Route     ariadne.Route // how the evidence was retrieved; a multi-hop answer spans fragments
	// Linked are the entities the question names: a fragment that names one by another of its
	// names or spellings (another script, an inflection, a short form) states the question's
	// words for it (questionTerms.withLinked).
	Linked []Linked
	// NameFragments are readable chunks outside Fragments that give a name the question names
	// and the fragments do not (Answerer.nameFragments): a name they give is known, so a
	// generator's unknown-name rule does not refuse for it; they are not evidence to quote.
	NameFragments []Fragment
	// Attempt is the 1-based generation attempt; Previous says why the last one was rejected
	// (empty on the first). A model generator uses them to vary a retry.
	Attempt  int
	Previous string
	// Exclude lists verified quotes a fact check rejected in an earlier attempt (the asked fact
	// stated of another place than the question's): a quoting generator does not choose them again.
	Exclude []string
	// Decision, when set, is filled by a generator that decides answerability itself (Extractive)
	// with what it decided from: the trace shows it, and evaluations list it for each miss.
	Decision *EvidenceDecision
}

// EvidenceDecision is a generator's answer-or-refuse decision over the candidate units: the best
// unit (a verbatim substring of a fragment the caller may read), its score, the value compared
// with the threshold and the threshold. For extractive-v2 the value is the answerability model's
// probability (or the best unit's score when the weights have no answerability model); for
// extractive-v1 the unit score is the share of the question's IDF-weighted terms the best unit
// states (against UnitThreshold) and the value the share the chosen units state together.
type EvidenceDecision struct {
	ChunkID       string  `json:"chunk_id,omitempty"`
	Unit          string  `json:"unit,omitempty"`
	UnitScore     float64 `json:"unit_score"`
	UnitThreshold float64 `json:"unit_threshold,omitempty"`
	Value         float64 `json:"value"`
	Threshold     float64 `json:"threshold"`
	Answered      bool    `json:"answered"`
	// Missing are the question's search terms (textnorm.SearchTerms: stems, lower case) that no
	// chosen unit states, in the text or its chunk's title and section (extractive-v1).
	Missing []string `json:"missing_terms,omitempty"`
	// Reason says why the generator refused, when it did (extractive-v1), or which rule answered
	// without scoring units (a definition question: definitionAnswer).
	Reason string `json:"reason,omitempty"`
	// OverruledBy: the answer's status is not answered although this decision passed — a rule
	// after verification refused it (no stated sum of money, count or time; a quote about
	// another thing of the asked kind); its reason, as in the response.
	OverruledBy string `json:"overruled_by,omitempty"`
}

// LLMGenerator generates with a chat model, in one of two citation modes (see CitationMode).
// The zero Mode takes DefaultCitationMode(model name).
type LLMGenerator struct {
	Model  ChatModel
	Mode   CitationMode
	Budget UnitBudget // units mode: what the prompt holds
	Rank   UnitRanker // units mode: best units first (default LexicalUnitScores)
	// MaxTokens bounds the model's answer (default 384).
	MaxTokens int
}

// Name is "llm:<model>".
func (g LLMGenerator) Name() string { return "llm:" + g.Model.Name() }

// CitationMode is the mode Generate uses.
func (g LLMGenerator) CitationMode() CitationMode {
	if g.Mode == "" {
		return DefaultCitationMode(g.Model.Name())
	}
	return g.Mode
}

var (
	cl100kOnce sync.Once
	cl100k     chunking.Counter
	cl100kErr  error
)

// defaultCounter is cl100k_base, loaded once. For Qwen2.5's tokenizer it is an approximation
// (docs/local-llm.md gives the measured ratio).
func defaultCounter() (chunking.Counter, error) {
	cl100kOnce.Do(func() { cl100k, cl100kErr = chunking.NewCL100K() })
	return cl100k, cl100kErr
}

// Generate asks the model at temperature 0 (0.3 on a retry, so that a retry is not the same
// output again) for JSON constrained by the mode's schema, and returns it in the answer contract.
// In units mode the model's unit ids become citations whose quote is the unit's text; an id the
// prompt did not show becomes a citation that fails verification level 1.
func (g LLMGenerator) Generate(ctx context.Context, in GenerationInput) (string, error) {
	temp := 0.0
	if in.Attempt > 1 {
		temp = 0.3
	}
	maxTokens := g.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 384
	}
	if g.CitationMode() == CitationQuotes {
		msgs := retryNote(BuildPrompt(in.Question, in.Fragments), in)
		return g.Model.Chat(ctx, llm.Request{Messages: msgs, Temperature: temp, MaxTokens: maxTokens,
			JSON: &llm.Schema{Name: "cited_answer", Schema: answerSchema}})
	}
	units, err := g.Units(ctx, in.Question, in.Fragments)
	if err != nil {
		return "", err
	}
	if len(units) == 0 {
		return `{"status":"not_found","claims":[]}`, nil
	}
	raw, err := g.Model.Chat(ctx, llm.Request{Messages: retryNote(BuildUnitPrompt(in.Question, units), in),
		Temperature: temp, MaxTokens: maxTokens, JSON: &llm.Schema{Name: "unit_claims", Schema: unitsSchema(len(units))}})
	if err != nil {
		return "", err
	}
	return UnitsToContract(raw, units), nil
}

// Units returns the units the prompt shows: the fragments split (SplitFragments), ranked
// (Rank), and cut to the budget (BudgetUnits).
func (g LLMGenerator) Units(ctx context.Context, question string, frags []Fragment) ([]Unit, error) {
	all := SplitFragments(frags)
	rank := g.Rank
	if rank == nil {
		rank = LexicalUnitScores
	}
	scores, err := rank(ctx, question, all)
	if err != nil {
		return nil, fmt.Errorf("agent: ranking units: %w", err)
	}
	if len(scores) != len(all) {
		return nil, fmt.Errorf("agent: the unit ranker returned %d scores for %d units", len(scores), len(all))
	}
	b := g.Budget
	if b.Counter == nil {
		if b.Counter, err = defaultCounter(); err != nil {
			return nil, err
		}
	}
	return BudgetUnits(all, scores, b), nil
}

// retryNote tells the model, on a retry, why its last output was rejected.
func retryNote(msgs []llm.Message, in GenerationInput) []llm.Message {
	if in.Attempt <= 1 || in.Previous == "" {
		return msgs
	}
	return append(msgs, llm.Message{Role: "user", Content: "Your previous answer was rejected: " + truncate(in.Previous, 200) +
		". Answer again, following the rules and the JSON format exactly."})
}

// UnitsToContract turns a units-mode output ({"claims":[{"units":[…],"text":…}]}) into the
// answer contract ParseOutput reads: no claims is not_found; each cited id becomes a citation of
// its unit's fragment and chunk with the unit's text as the quote. Output that is not that JSON
// is returned unchanged, for ParseOutput to reject.
func UnitsToContract(raw string, units []Unit) string {
	var parsed struct {
		Claims []struct {
			Units []int  `json:"units"`
			Text  string `json:"text"`
		} `json:"claims"`
	}
	if err := json.Unmarshal([]byte(stripCodeFence(raw)), &parsed); err != nil || parsed.Claims == nil {
		return raw
	}
	if len(parsed.Claims) == 0 {
		return `{"status":"not_found","claims":[]}`
	}
	byID := map[int]Unit{}
	for _, u := range units {
		byID[u.ID] = u
	}
	claims := make([]OutputClaim, 0, len(parsed.Claims))
	for _, c := range parsed.Claims {
		oc := OutputClaim{Text: c.Text, Citations: []OutputCitation{}}
		// A claim that is, verbatim, one shown unit is that unit's statement: it cites that unit
		// whatever ids the model wrote (small models copy a sentence and cite its neighbour).
		if u, ok := verbatimUnit(c.Text, units); ok {
			oc.Citations = append(oc.Citations, OutputCitation{Fragment: u.Frag.N, ChunkID: u.Frag.Chunk.ID, Quote: u.Text})
			claims = append(claims, oc)
			continue
		}
		var seen []int
		for _, id := range c.Units {
			if slices.Contains(seen, id) {
				continue
			}
			seen = append(seen, id)
			u, ok := byID[id]
			if !ok {
				oc.Citations = append(oc.Citations, OutputCitation{ChunkID: fmt.Sprintf("unit %d (not in the prompt)", id)})
				continue
			}
			oc.Citations = append(oc.Citations, OutputCitation{Fragment: u.Frag.N, ChunkID: u.Frag.Chunk.ID, Quote: u.Text})
		}
		claims = append(claims, oc)
	}
	out, err := json.Marshal(map[string]any{"status": "answer", "claims": claims})
	if err != nil {
		return raw
	}
	return string(out)
}

// verbatimUnit returns the unit whose text the claim is, after textnorm.Fold (trailing dots and
// spaces ignored).
func verbatimUnit(claim string, units []Unit) (Unit, bool) {
	for _, u := range units {
		if isQuote(claim, []string{u.Text}) {
			return u, true
		}
	}
	return Unit{}, false
}
