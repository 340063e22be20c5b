package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Evidence features, in the order of EvidenceFeatureNames. Every feature is computed from the
// question, the fragments and (for the semantic ones) the embedder's vectors; none knows any
// corpus or wording.
const (
	featCos       = iota // cosine of the question ("query: ") and the unit ("passage: ") vectors
	featCosGap           // cos minus the best cos among the question's candidate units (≤ 0)
	featCover            // IDF-weighted share of the question's search terms in the unit (0.5 for its title/section)
	featCoverGap         // cover minus the best cover among the candidates (≤ 0)
	featRank             // 1/(1+i) for the unit's fragment at retrieval rank i (0-based)
	featEntity           // share of the question's names (linked entities, capitalised words, codes) the unit names, by Latin key
	featHasNames         // 1 when the question names anything (featEntity is meaningful)
	featTypeMatch        // 1 when the question asks for a number/date/person and the unit has one
	featTypeAsked        // 1 when the question asks for a number/date/person
	featLength           // log(1+runes)/log(500): very short and very long units
	featFragBest         // 1 when the unit is its fragment's best unit by cos (semantic) or cover (lexical)
	featOtherLang        // 1 when the unit is written in the other script than the question (Cyrillic / Latin)
	featCosOther         // cos when the unit is in the other script, else 0 (cross-language cosines run lower)
	numEvidenceFeatures
)

// EvidenceFeatureNames names the features of a unit, as in the weights file.
var EvidenceFeatureNames = [numEvidenceFeatures]string{"cos", "cos_gap", "cover", "cover_gap", "rank", "entity",
	"has_names", "type_match", "type_asked", "length", "frag_best", "other_lang", "cos_other"}

// ScoredUnit is one candidate evidence unit (sentence, table row, list item of a fragment, see
// splitUnits) with its features and the model's score: the estimated probability, in [0, 1],
// that the unit states the answer to the question.
type ScoredUnit struct {
	Fragment Fragment
	Text     string // a verbatim substring of Fragment.Chunk.Text
	Score    float64
	Features [numEvidenceFeatures]float64
	covered  map[string]float64 // question term → 1 (in the unit) or 0.5 (in its title or section)
}

// WeightSet is one fitted logistic regression over the unit features it names (a lexical set
// leaves out the cosine features), with the answerability threshold chosen on held-out public
// data.
type WeightSet struct {
	LogReg
	// Threshold: answer only when the best unit scores at least this (AnswerPrecision on held-out data).
	Threshold       float64 `json:"threshold"`
	AnswerPrecision float64 `json:"answer_precision"`
	// ExtraThreshold: a further claim must score at least this.
	ExtraThreshold float64 `json:"extra_threshold"`
	// Answer, when present, makes the answer-or-refuse decision in place of Threshold, from the
	// question's answerability features (AnswerabilityFeatures).
	Answer *AnswerModel `json:"answerability,omitempty"`
}

// Answerable decides whether units (scored, best first) answer the question: the answerability
// model's probability against its threshold when the set has one, else the best unit's score
// against Threshold. It returns the decision and the value compared.
func (s WeightSet) Answerable(units []ScoredUnit) (bool, float64) {
	if len(units) == 0 {
		return false, 0
	}
	if s.Answer != nil {
		p := s.Answer.Score(AnswerabilityFeatures(units))
		return p >= s.Answer.Threshold, p
	}
	return units[0].Score >= s.Threshold, units[0].Score
}

// EvidenceModel is the versioned weights file (agent/evidence_model.json): one weight set for
// semantic embedders ("semantic", with the cosine features) and one for the lexical embedder
// ("lexical", without them), and how they were fitted.
type EvidenceModel struct {
	Version string               `json:"version"`
	Fitted  json.RawMessage      `json:"fitted,omitempty"` // data, split and held-out figures (cmd/fitevidence)
	Sets    map[string]WeightSet `json:"sets"`
}

//go:embed evidence_model.json
var evidenceModelJSON []byte

// DefaultEvidenceModel returns the embedded, fitted model. It panics if the embedded file is
// malformed (a build defect, caught by its test).
func DefaultEvidenceModel() *EvidenceModel {
	m, err := ParseEvidenceModel(evidenceModelJSON)
	if err != nil {
		panic(err)
	}
	return m
}

// ParseEvidenceModel reads a weights file and checks that every set names known features with
// matching lengths.
func ParseEvidenceModel(raw []byte) (*EvidenceModel, error) {
	var m EvidenceModel
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("agent: evidence model: %w", err)
	}
	for name, s := range m.Sets {
		if err := s.bind(EvidenceFeatureNames[:]); err != nil {
			return nil, fmt.Errorf("agent: evidence model set %q: %w", name, err)
		}
		if s.Answer != nil {
			if err := s.Answer.bind(AnswerFeatureNames[:]); err != nil {
				return nil, fmt.Errorf("agent: evidence model set %q: answerability model: %w", name, err)
			}
		}
		m.Sets[name] = s
	}
	return &m, nil
}

// Set returns the weight set for an embedder: "lexical" for the lexical embedder (its vectors
// carry spelling, not meaning), "semantic" otherwise.
func (m *EvidenceModel) Set(semantic bool) (WeightSet, bool) {
	name := "lexical"
	if semantic {
		name = "semantic"
	}
	s, ok := m.Sets[name]
	return s, ok
}

// Score returns p in [0, 1] for a unit's feature vector.
func (s WeightSet) Score(x [numEvidenceFeatures]float64) float64 { return s.score(x[:]) }

// UnitEmbedder embeds questions and evidence units (embedding.OpenAI, embedding.Lexical).
type UnitEmbedder interface {
	Name() string
	EmbedPassages(ctx context.Context, texts []string) ([][]float32, error)
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// EvidenceRanker scores evidence units against a question with the fitted model.
type EvidenceRanker struct {
	// Embedder gives the cosine features; nil or a lexical embedder uses the lexical weight set.
	Embedder UnitEmbedder
	// Model is the weights; nil is DefaultEvidenceModel().
	Model *EvidenceModel
	// Lexicon, when set, lets a unit in the other language cover a question term by one of its
	// translations (the cover features); nil matches terms in the question's language only.
	Lexicon *lexicon.Lexicon
	// AltQuestions, when set, returns the question in the corpus's other language (or other
	// forms): each unit's cosine is the best over the question and these.
	AltQuestions func(ctx context.Context, question string) []string
}

// Semantic reports whether the ranker uses the cosine features.
func (r EvidenceRanker) Semantic() bool {
	return r.Embedder != nil && !strings.HasPrefix(r.Embedder.Name(), "lexical")
}

func (r EvidenceRanker) model() *EvidenceModel {
	if r.Model != nil {
		return r.Model
	}
	return defaultModel
}

var defaultModel = DefaultEvidenceModel()

// WeightSet returns the weight set the ranker scores with.
func (r EvidenceRanker) WeightSet() (WeightSet, error) {
	s, ok := r.model().Set(r.Semantic())
	if !ok {
		return s, fmt.Errorf("agent: evidence model %s has no weight set for semantic=%v", r.model().Version, r.Semantic())
	}
	return s, nil
}

// RankUnits splits the fragments into units (splitUnits; planted instructions are skipped),
// computes their features, scores them with the model and returns them best first. names are
// extra surfaces the question names (linked entities' surfaces and names); may be nil. groups are
// the caller's (text analyses are cached for them only: callerScope; nil caches none). The error
// is the embedder's.
func (r EvidenceRanker) RankUnits(ctx context.Context, question string, groups []string, frags []Fragment, names []string) ([]ScoredUnit, error) {
	units, err := r.Features(ctx, question, groups, frags, names)
	if err != nil {
		return nil, err
	}
	set, err := r.WeightSet()
	if err != nil {
		return nil, err
	}
	for i := range units {
		units[i].Score = set.Score(units[i].Features)
	}
	sort.SliceStable(units, func(i, j int) bool { return units[i].Score > units[j].Score })
	return units, nil
}

// Features returns the candidate units of the fragments with their features (Score unset), in
// fragment and text order; groups as for RankUnits.
func (r EvidenceRanker) Features(ctx context.Context, question string, groups []string, frags []Fragment, names []string) ([]ScoredUnit, error) {
	q := newQuestionTerms(question, r.Lexicon, callerScope(groups))
	idf, total := termIDF(q, frags)
	qnames := questionNames(question, names)
	want := askFor(question)
	qCyr := cyrillicText(question)
	var units []ScoredUnit
	for i, f := range frags {
		ctxTerms := contextTerms(q, f)
		for _, u := range splitUnits(f.Chunk.Text) {
			if planted(u, f.Chunk.ACL) {
				continue // an instruction planted in a document is data, not an answer
			}
			covered, cov := termCover(q, u, ctxTerms, idf, total)
			var x [numEvidenceFeatures]float64
			x[featCover] = cov
			x[featRank] = 1 / float64(1+i)
			if len(qnames) > 0 {
				x[featHasNames] = 1
				x[featEntity] = nameOverlap(qnames, u+" "+f.Chunk.Title)
			}
			if want != "" {
				x[featTypeAsked] = 1
				if hasKind(u, want) {
					x[featTypeMatch] = 1
				}
			}
			x[featLength] = math.Log(1+float64(len([]rune(u)))) / math.Log(500)
			if cyrillicText(u) != qCyr {
				x[featOtherLang] = 1
			}
			units = append(units, ScoredUnit{Fragment: f, Text: u, Features: x, covered: covered})
		}
	}
	if len(units) == 0 {
		return nil, nil
	}
	if r.Semantic() {
		qs := []string{question}
		if r.AltQuestions != nil {
			qs = append(qs, r.AltQuestions(ctx, question)...)
		}
		var qvecs [][]float32
		for _, q := range qs {
			v, err := r.Embedder.EmbedQuery(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("agent: embed question for evidence: %w", err)
			}
			qvecs = append(qvecs, v)
		}
		texts, acls := make([]string, len(units)), make([][]string, len(units))
		for i, u := range units {
			texts[i], acls[i] = u.Text, u.Fragment.Chunk.ACL
		}
		vecs, err := EmbedUnits(ctx, r.Embedder, texts, acls)
		if err != nil {
			return nil, fmt.Errorf("agent: embed evidence units: %w", err)
		}
		for i := range units {
			best := -1.0
			for _, q := range qvecs {
				best = max(best, cosine(q, vecs[i]))
			}
			units[i].Features[featCos] = best
			units[i].Features[featCosOther] = best * units[i].Features[featOtherLang]
		}
	}
	key := featCover
	if r.Semantic() {
		key = featCos
	}
	bestCos, bestCover := -1.0, 0.0
	fragBest := map[int]int{}
	for i, u := range units {
		bestCos = max(bestCos, u.Features[featCos])
		bestCover = max(bestCover, u.Features[featCover])
		if j, ok := fragBest[u.Fragment.N]; !ok || u.Features[key] > units[j].Features[key] {
			fragBest[u.Fragment.N] = i
		}
	}
	for i := range units {
		if r.Semantic() {
			units[i].Features[featCosGap] = units[i].Features[featCos] - bestCos
		}
		units[i].Features[featCoverGap] = units[i].Features[featCover] - bestCover
	}
	for _, i := range fragBest {
		units[i].Features[featFragBest] = 1
	}
	return units, nil
}

// cyrillicText reports whether most of text's letters are Cyrillic (a Russian text naming Latin
// products is still Russian).
func cyrillicText(text string) bool {
	var cyr, other int
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Cyrillic, r):
			cyr++
		case unicode.IsLetter(r):
			other++
		}
	}
	return cyr > other
}

// questionFunctionWords are the question words and auxiliaries that say which language a question
// is asked in, whatever it names: «Кто написал Liber servitoris?» is a Russian question about a
// Latin title, though most of its letters are Latin.
var questionFunctionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`кто что как какой какая какое какие каков какова каким какую каком где когда куда откуда
		сколько почему зачем чей чья чьё чьи ли есть был была было были`) {
		questionFunctionWords[w] = true // Cyrillic
	}
	for _, w := range strings.Fields(`who what how which where when why whose whom is are was were do does did can could
		should will has have`) {
		questionFunctionWords[w] = false // Latin
	}
}

// cyrillicQuestion reports whether a question is asked in a Cyrillic-script language: by its
// function words when it has any of one script only, else by the share of its letters
// (cyrillicText).
func cyrillicQuestion(q string) bool {
	var ru, en bool
	for _, w := range wordRE.FindAllString(strings.ToLower(q), -1) {
		if cyr, ok := questionFunctionWords[w]; ok {
			ru, en = ru || cyr, en || !cyr
		}
	}
	if ru != en {
		return ru
	}
	return cyrillicText(q)
}

// questionNames returns the Latin keys of what the question names: the given names (linked
// entities), its capitalised words other than the first, its codes and numbers.
func questionNames(question string, names []string) []string {
	var out []string
	add := func(s string) {
		if k := textnorm.Key(s); k != "" && !containsString(out, k) {
			out = append(out, k)
		}
	}
	for _, n := range names {
		add(n)
	}
	for i, w := range textnorm.Words(question) {
		f := textnorm.FoldString(w.Text)
		if textnorm.IsStopword(f) || len([]rune(f)) < 2 {
			continue
		}
		if (w.Upper && i > 0) || w.AllUpper || numberRE.MatchString(w.Text) {
			add(w.Text)
		}
	}
	return out
}

// nameOverlap is the share of names (Latin keys) whose every token starts a token of text's
// Latin key (so inflected forms and the other script match: «Иванова» names "Ivanov").
func nameOverlap(names []string, text string) float64 {
	toks := textnorm.KeyTokens(text)
	found := 0
	for _, n := range names {
		all := true
		for _, nt := range strings.Fields(n) {
			stem := nt
			if r := []rune(nt); len(r) >= 5 {
				stem = string(r[:max(4, len(r)-2)])
			}
			ok := false
			for _, t := range toks {
				if strings.HasPrefix(t, stem) {
					ok = true
					break
				}
			}
			if !ok {
				all = false
				break
			}
		}
		if all {
			found++
		}
	}
	return float64(found) / float64(len(names))
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// SplitUnits is splitUnits for callers outside the package (fitting, prompts): the quotable
// units of a chunk text, each a verbatim substring of it.
func SplitUnits(text string) []string { return splitUnits(text) }

// Cosine is the cosine similarity of two vectors (0 for empty or mismatched ones).
func Cosine(a, b []float32) float64 { return cosine(a, b) }
