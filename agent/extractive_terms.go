package agent

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// TermBars are TermExtractive's thresholds, as shares of the question's IDF-weighted terms.
type TermBars struct {
	Best  float64 `json:"best"`  // the best unit must cover this much …
	Union float64 `json:"union"` // … and the chosen units (on one subject, see onSubjectV1) together this much, or NOT_FOUND
	Gain  float64 `json:"gain"`  // a further claim must add this much
	// Multi-hop evidence is spread over documents: a bar per unit and one for the union of the
	// chosen units, which need not share the question's terms (a chain's bridge is unnamed).
	BestMultiHop  float64 `json:"best_multi_hop"`
	UnionMultiHop float64 `json:"union_multi_hop"`
	// A unit in the other script than the question states its terms only through the lexicon,
	// cognates and the entities' aliases, which find fewer of them than the words themselves: on
	// simple and hybrid routes, when the best unit is in the other script, these bars replace Best
	// and Union (zero: the same bars).
	BestCross  float64 `json:"best_cross,omitempty"`
	UnionCross float64 `json:"union_cross,omitempty"`
	// Sibling: a unit of the best claim's own chunk that covers at least this share of the best
	// claim's cover is quoted too, while the answer has room (zero: none). Greedy cover adds a
	// unit only for question terms still missing, so the second sentence of a passage that
	// states the answer in two (a rule and its exception) was never quoted.
	Sibling float64 `json:"sibling,omitempty"`
}

// WaveOneBars are the thresholds wave 1 set by hand on its development questions, kept to compare
// with: the kind of fitted rule wave 2 replaces.
var WaveOneBars = TermBars{Best: 0.25, Union: 0.4, Gain: 0.08, BestMultiHop: 0.15, UnionMultiHop: 0.45}

// DefaultTermBars are the thresholds TermExtractive uses when none are set: fitted on our own
// question set over our own knowledge base (evaluation/testdata/fitkb, 150 questions, 42% of the
// answerable ones cross-language; never the golden dev set) with the lexicon, the linked entities'
// aliases and e5 retrieval, a wrong answer costing 1.5 refusals — `go run ./cmd/eval fit-bars
// --golden evaluation/testdata/fitkb-questions.jsonl --corpus evaluation/testdata/fitkb --index
// --embedder e5 --cross --wrong-cost 1.5` (docs/evaluation.md). The other-script bars are low for
// the best unit (any stated term) and decide by what the chosen units state together.
//
// Sibling was chosen on the same set afterwards, with the other bars fixed, among 0.3, 0.5 and
// 0.7 by evidence coverage and then answer token F1 (it changes no answer's status):
// evidence coverage 0.688 → 0.731, F1 0.127 → 0.122 (docs/evaluation.md, "The second sentence of
// a passage").
var DefaultTermBars = TermBars{Best: 0.3, Union: 0.4, Gain: 0.04, BestMultiHop: 0.05, UnionMultiHop: 0.3, BestCross: 0.05, UnionCross: 0.4, Sibling: 0.5}

// TermExtractive (extractive-v1) is the default offline generator: it does not write, it selects.
// It splits the fragments into sentences, table rows and list items, scores each by the question's
// terms it states (IDF over the fragments; textnorm.SearchTerms, so «отпуска» matches «отпуск» and
// «впн» matches VPN; with a lexicon, a term's translations count too), with a bonus when the unit
// has what the question asks for (a number for «сколько»/"how many", a name for «кто»/"who", a date
// for «когда»/"when"), and returns the best units as claims quoted verbatim: the best unit, then,
// greedily, units of other fragments that add the question terms still missing (so a multi-hop
// answer quotes each document of the chain). It answers NOT_FOUND when the best unit or the chosen
// units together cover too little of the question (Bars: fitted on our own question set, see
// DefaultTermBars), or when a code or id in the question (ERR-7713, INC-9071) appears in no
// fragment. Units that address an AI model (planted instructions) are never selected. The
// calibrated Extractive (extractive-v2) is opt-in: it refuses more often (docs/evaluation.md).
type TermExtractive struct {
	// MaxClaims bounds the answer; default 4.
	MaxClaims int
	// Lexicon, when set, lets a sentence in the other language state a question term by one of
	// its translations (questionTerms) and, when it has a thesaurus (Lexicon.WithThesaurus), a
	// sentence state a Russian question word by one of its synonyms; nil matches terms in the
	// question's language only.
	Lexicon *lexicon.Lexicon
	// Bars are the thresholds; the zero value is DefaultTermBars.
	Bars TermBars
}

// Name says what it is.
func (TermExtractive) Name() string { return "extractive-v1" }

// QuotesOnly reports that every claim is a quoted unit: the generator writes nothing of its own.
func (TermExtractive) QuotesOnly() bool { return true }

type termUnit struct {
	frag    Fragment
	text    string
	score   float64
	cover   float64            // IDF-weighted share of the question's terms, in [0, 1]
	cross   bool               // in the other script than the question (most of its letters)
	covered map[string]float64 // term → 1 (in the unit) or 0.5 (in its title or section only)
}

// Generate selects the answer sentences.
func (g TermExtractive) Generate(_ context.Context, in GenerationInput) (string, error) {
	bars := g.Bars
	if bars == (TermBars{}) {
		bars = DefaultTermBars
	}
	if answer, ok := definitionAnswer(in); ok {
		return answer, nil
	}
	cands := g.candidates(in)
	chosen, why := cands.decide(bars, g.maxClaims(), in.Route)
	// A version the question names must be in the answer, not only somewhere in the fragments
	// (the incident that names Tern 3.2.2 does not make "3.2.4 was released on …" its release).
	for _, v := range versionRE.FindAllString(in.Question, -1) {
		if len(chosen) > 0 && !slices.ContainsFunc(chosen, func(u termUnit) bool {
			_, _, ok := textnorm.Index(u.text+" "+u.frag.Chunk.Title+" "+u.frag.Chunk.HeadingPath(), v)
			return ok
		}) {
			chosen, why.Reason = nil, "the version "+v+" is in no chosen sentence"
		}
	}
	if in.Decision != nil {
		why.Answered = len(chosen) > 0
		*in.Decision = why
	}
	if len(chosen) == 0 {
		return `{"status":"not_found","claims":[]}`, nil
	}
	if bars.Sibling > 0 {
		chosen = withSiblings(chosen, cands.units, bars.Sibling, g.maxClaims())
	}
	chosen = withHomonymPages(chosen, cands.units, in.Linked, bars.Best)
	chosen = withAntecedents(chosen)
	out := make([]quoted, 0, len(chosen))
	for _, u := range chosen {
		out = append(out, quoted{frag: u.frag, text: u.text})
	}
	return quoteClaims(out)
}

// withAntecedents puts before each chosen unit whose subject is a personal pronoun ("He chairs
// the weekly incident review.", «Она ведёт …») the unit that comes before it in its chunk, when
// there is one and it is not chosen already: quoted alone, such a sentence does not say who
// (README trial: "Who chairs the weekly incident review?" answered "He approves … and chairs
// the weekly incident review.", the name being in the sentence before).
func withAntecedents(chosen []termUnit) []termUnit {
	out := make([]termUnit, 0, len(chosen))
	for _, u := range chosen {
		if pronounSubject(u.text) {
			units := chunkUnits(u.frag.Chunk)
			if i := slices.Index(units, u.text); i > 0 {
				prev := units[i-1]
				if !planted(prev, u.frag.Chunk.ACL) && !slices.ContainsFunc(chosen, func(c termUnit) bool { return c.frag.Chunk.ID == u.frag.Chunk.ID && c.text == prev }) &&
					!slices.ContainsFunc(out, func(c termUnit) bool { return c.frag.Chunk.ID == u.frag.Chunk.ID && c.text == prev }) {
					out = append(out, termUnit{frag: u.frag, text: prev})
				}
			}
		}
		out = append(out, u)
	}
	return out
}

// pronounSubject reports whether a unit begins with a personal pronoun in the nominative (he,
// she, they; он, она, они).
func pronounSubject(unit string) bool {
	ws := textnorm.Words(unit)
	if len(ws) == 0 || ws[0].Start > 2 {
		return false
	}
	switch strings.ToLower(ws[0].Text) {
	case "he", "she", "they", "он", "она", "они":
		return true
	}
	return false
}

// withHomonymPages adds to chosen, when the best claim comes from the page of an entity the
// question names by words that name another linked entity's page too (two pages titled alike: a
// management-only contract and a public page that took its name), the best unit of each such
// other page that clears the best-unit bar: the reader sees what each page says, not whichever
// retrieval ranked first.
func withHomonymPages(chosen, units []termUnit, linked []Linked, bar float64) []termUnit {
	if len(chosen) == 0 {
		return chosen
	}
	best := chosen[0].frag.Chunk.DocID
	surface := ""
	for _, l := range linked {
		if l.Key == best {
			surface = l.Surface
		}
	}
	if surface == "" {
		return chosen
	}
	for _, l := range linked {
		if l.Key == best || l.Surface != surface {
			continue
		}
		for _, u := range units { // best first
			if u.frag.Chunk.DocID == l.Key && u.cover >= bar {
				if !slices.ContainsFunc(chosen, func(c termUnit) bool { return c.text == u.text && c.frag.Chunk.ID == u.frag.Chunk.ID }) {
					chosen = append(chosen, u)
				}
				break
			}
		}
	}
	return chosen
}

// askedTerms are the question's terms that are not words of a linked entity's name as the
// question writes it, nor the word after "how" or «как» ("how long", «как назывался»: the kind
// of answer, which askFor checks), nor a place or time noun after "which" or «какой» when the
// question asks for a place or a time (kindWordRE): what the question asks about its subject.
// Any other noun after "which" or «какой» stays: "Which actor … was nominated" keeps "actor",
// which the evidence states, where "nominated" alone is paraphrased ("nominees"). verbal holds
// the asked terms that come only from Russian verb forms (russianVerbForm): evidence paraphrases
// a question's verb («возникло» by «было основано») far more often than its nouns, so a verb no
// fragment states is no sign that what is asked is missing.
func askedTerms(question string, terms []string, linked []Linked) (asked []string, verbal map[string]bool) {
	named := map[string]bool{}
	for _, l := range linked {
		for _, t := range textnorm.SearchTerms(l.Surface) {
			named[t] = true
		}
	}
	words := textnorm.Words(question)
	verbal, nominal := map[string]bool{}, map[string]bool{}
	kindNoun := askedKind(question) != nil
	for i, w := range words {
		if i > 0 && (strings.EqualFold(words[i-1].Text, "how") || strings.EqualFold(words[i-1].Text, "как") ||
			kindNoun && kindWordRE.MatchString(textnorm.FoldString(words[i-1].Text+" "+w.Text))) {
			for _, t := range textnorm.SearchTerms(w.Text) {
				named[t] = true
			}
			continue
		}
		// The word after a question that opens with «кто» or «что» in a past tense's ending
		// (pastTenseRE) is its predicate («Кто помогал …», «Что пела …»), whatever its length.
		predicate := i == 1 && (strings.EqualFold(words[0].Text, "кто") || strings.EqualFold(words[0].Text, "что")) &&
			pastTenseRE.MatchString(strings.ToLower(w.Text))
		for _, t := range textnorm.SearchTerms(w.Text) {
			if predicate || russianVerbForm(w.Text) {
				verbal[t] = true
			} else {
				nominal[t] = true
			}
		}
	}
	for t := range nominal {
		delete(verbal, t)
	}
	for _, t := range terms {
		if !named[t] {
			asked = append(asked, t)
		}
	}
	return asked, verbal
}

// kindWordRE is "which"/"what" or «какой» in any form and a noun for a place or a time ("which
// city", "what year", «в каком городе», «какого числа»): when the question asks for that kind of
// fact (askedKind), the noun names the kind of answer, which is checked as such, not something a
// quote must repeat ("… находится в Петрозаводске" answers "In which city …").
var kindWordRE = regexp.MustCompile(`^(?:which|what|как(?:ой|ая|ое|ие|ого|ом|ую|их|им|ими)) (?:cit(?:y|ies)|towns?|countr(?:y|ies)|states?|regions?|provinces?|villages?|capitals?|years?|months?|dates?|days?|город|стран|регион|област|сел|столиц|год|месяц|дат|числ|дн|ден)`)

// russianVerbForm reports whether a Russian word has an ending that only verbs (and their
// participles) have: reflexive «-ся»/«-сь» after a vowel, «т», «л» or «ь» («называется»,
// «открылась», «находиться»), an infinitive in a vowel and «ть» of 5 letters or more
// («основать», «получить»), a past tense of 6 letters or more in a vowel other than «о», «л» and
// «а», «о» or «и» («основали», «создала»; «школа» is a noun) or of 7 or more in «к», «г» or «з»
// and those («возникло», «достигла»), a masculine past tense of 6 letters or more in «и», «ы», «я»
// or «у» and «л», or of 7 or more in «ел» («получил», «построил», «смотрел»; not «-ал», «материал»
// is a noun, nor «раздел»), or a present tense in «-ает», «-яет», «-еет», «-ует», «-ают», «-яют»,
// «-уют». A few nouns share the infinitive's and the past tense's endings («печать», «правила»,
// «модели»); a word in Latin letters is never one.
func russianVerbForm(word string) bool {
	w := []rune(strings.ToLower(word))
	n := len(w)
	if n < 4 || !hasCyrillic(word) {
		return false
	}
	vowel := func(r rune) bool { return strings.ContainsRune("аеёиоуыэюя", r) }
	last2 := string(w[n-2:])
	switch {
	case last2 == "ся" || last2 == "сь":
		return vowel(w[n-3]) || strings.ContainsRune("тль", w[n-3])
	case last2 == "ть":
		return n >= 5 && vowel(w[n-3])
	case strings.ContainsRune("аои", w[n-1]) && w[n-2] == 'л':
		return n >= 6 && vowel(w[n-3]) && w[n-3] != 'о' || n >= 7 && strings.ContainsRune("кгз", w[n-3])
	case w[n-1] == 'л':
		// A masculine past tense («получил», «открыл», «построил», «смотрел»); not in «-ал» or
		// «-ол», the endings of many nouns («материал», «капитал», «протокол»).
		return n >= 6 && strings.ContainsRune("иыяу", w[n-2]) || n >= 7 && w[n-2] == 'е'
	}
	switch string(w[n-3:]) {
	case "ает", "яет", "еет", "ует", "ают", "яют", "уют":
		return true
	}
	return false
}

func (g TermExtractive) maxClaims() int {
	if g.MaxClaims == 0 {
		return 4
	}
	return g.MaxClaims
}

// termCandidates are a question's scored units (best first), which do not depend on the
// thresholds; choose applies them.
type termCandidates struct {
	units []termUnit
	idf   map[string]float64
	total float64
	want  string
	ids   []string // the codes and numbers the question names (questionIDs)
	// asked are the question's terms outside the names of its linked entities (askedTerms), when
	// no fragment states any of them (else nil): what is asked is nowhere in the evidence.
	asked []string
	empty string // why there are no units, when there are none
}

// candidates scores every unit of the fragments; none when the question has no search term, a
// code or id the question names is in no fragment, or there is no unit.
func (g TermExtractive) candidates(in GenerationInput) termCandidates {
	question, frags := in.Question, in.Fragments
	q := newQuestionTerms(question, g.Lexicon, callerScope(in.Groups)).withLinked(in.Linked)
	switch {
	case len(q.terms) == 0:
		return termCandidates{empty: "the question has no search term"}
	case len(frags) == 0:
		return termCandidates{empty: "no fragment"}
	}
	// Codes and ids the question names must be in the evidence.
	all := ""
	for _, f := range frags {
		all += " " + f.Chunk.ContextText()
	}
	if code := missingExactTerm(question, all); code != "" {
		return termCandidates{empty: "the code " + code + " is in no fragment"}
	}
	// The reason does not repeat the name: traces are shared, and a name a caller may not read
	// is not echoed even from their own question (the canary test holds every response to that).
	if unknownName(question, in.Linked, append(slices.Clip(frags), in.NameFragments...), g.Lexicon) != "" {
		return termCandidates{empty: "a name in the question is in no fragment and names no entity the caller may read"}
	}
	c := termCandidates{want: askFor(question), ids: questionIDs(question)}
	qCyr := cyrillicShare(question) > 0.5
	c.idf, c.total = termIDF(q, frags)
	if !comparison(question) { // "Who has been with X longer, A or B?": the comparison is the answer's
		asked, verbal := askedTerms(question, q.terms, in.Linked)
		unstated := idfOf(len(frags), 0) // the weight of a term no fragment states
		// Something asked is stated, or only verbs are missing: the rule does not apply.
		if !slices.ContainsFunc(asked, func(t string) bool { return c.idf[t] < unstated }) &&
			slices.ContainsFunc(asked, func(t string) bool { return !verbal[t] }) {
			c.asked = asked
		}
	}
	for i, f := range frags {
		ctxTerms, headers := contextTerms(q, f), tableHeaders(f.Chunk.Text)
		for _, u := range chunkUnits(f.Chunk) {
			if planted(u, f.Chunk.ACL) {
				continue // an instruction planted in a document is data, not an answer
			}
			if slices.Contains(in.Exclude, u) {
				continue // a fact check rejected it in an earlier attempt
			}
			uctx, claim := unitContext(q, ctxTerms, headers, u)
			if !claim {
				continue
			}
			covered, cov := termCover(q, u, uctx, c.idf, c.total)
			score := cov
			if c.want != "" && hasKind(u, c.want) {
				score += 0.15
			}
			score -= 0.01 * float64(i) // earlier fragments ranked higher by retrieval
			c.units = append(c.units, termUnit{frag: f, text: u, score: score, cover: cov, covered: covered,
				cross: cyrillicShare(u) > 0.5 != qCyr})
		}
	}
	sort.SliceStable(c.units, func(i, j int) bool { return c.units[i].score > c.units[j].score })
	c.units = dropOtherVersions(question, c.units, func(u termUnit) string { return u.text })
	if len(c.units) == 0 {
		c.empty = "no sentence to quote"
	}
	return c
}

// choose returns the claims under bars, or none (NOT_FOUND) when the best unit or the chosen
// units together cover too little of the question.
func (c termCandidates) choose(bars TermBars, maxClaims int, route ariadne.Route) []termUnit {
	chosen, _ := c.decide(bars, maxClaims, route)
	return chosen
}

// decide is choose, with what it decided from: the best unit's cover against its bar, the greedy
// union's against its bar, the question terms the union does not state, and for a refusal why.
func (c termCandidates) decide(bars TermBars, maxClaims int, route ariadne.Route) ([]termUnit, EvidenceDecision) {
	if len(c.units) == 0 {
		return nil, EvidenceDecision{Reason: c.empty}
	}
	// A multi-hop answer is spread over documents: no single unit covers much of the question,
	// so the per-unit bar is lower and the chain as a whole must cover it.
	needBest, needUnion := bars.Best, bars.Union
	if route == ariadne.RouteMultiHop {
		needBest, needUnion = bars.BestMultiHop, bars.UnionMultiHop
	} else if bars.BestCross > 0 && c.units[0].cross {
		needBest, needUnion = bars.BestCross, bars.UnionCross
	}
	// A multi-hop answer chains documents through terms the question does not name; any other
	// answer stays on its subject: a further claim comes from the best claim's document or shares
	// one of the question's terms with it (sentences of unrelated documents that each share
	// another word with the question do not add up to an answer).
	chosen, union := coverGreedyV1(c.units, c.idf, c.total, c.want, maxClaims, bars.Gain, route != ariadne.RouteMultiHop)
	best := chosen[0]
	dec := EvidenceDecision{ChunkID: best.frag.Chunk.ID, Unit: best.text, UnitScore: best.cover, UnitThreshold: needBest,
		Value: union, Threshold: needUnion}
	for _, t := range sortedKeys(c.idf) {
		if !slices.ContainsFunc(chosen, func(u termUnit) bool { return u.covered[t] > 0 }) {
			dec.Missing = append(dec.Missing, t)
		}
	}
	switch {
	case best.cover < needBest:
		dec.Reason = "the best sentence states too little of the question"
		return nil, dec
	case len(c.asked) > 0:
		// The names carry the cover, but nothing of what is asked about them is stated anywhere
		// in the evidence: "What is the ISBN of Memory of the Sea?" answered by a sentence about
		// the book's audiobook (a trial: four such near misses passed the bar on the subject's
		// name alone).
		dec.Reason = "the evidence names the question's subject but states none of what it asks"
		return nil, dec
	case union < needUnion:
		dec.Reason = "the chosen sentences together state too little of the question"
		return nil, dec
	}
	// The answer must hold the kind of thing asked for (a name for "who", a number for "how
	// many"): if no chosen unit does, add the most relevant unit that does. A sum or a percentage
	// must come from the best claim's own document (off the multi_hop route) — the price in the
	// next contract on the list is not this contract's — or state a code or number the question
	// names that the best claim states too (the grant number of a news item is the grant whose
	// yearly sum the project page states).
	if c.want != "" && !slices.ContainsFunc(chosen, func(u termUnit) bool { return hasKind(u.text, c.want) }) {
		amount := c.want == kindMoney || c.want == kindPercent
		for _, u := range c.units {
			related := route == ariadne.RouteMultiHop || onSubjectV1(chosen[0], u) &&
				(!amount || u.frag.Chunk.DocID == chosen[0].frag.Chunk.DocID || sharesID(c.ids, chosen[0].text, u.text))
			if u.cover > 0 && hasKind(u.text, c.want) && related && !slices.ContainsFunc(chosen, func(x termUnit) bool { return x.text == u.text }) {
				chosen = append(chosen, u)
				break
			}
		}
	}
	return chosen, dec
}

// withSiblings adds to chosen the units of the best claim's own fragment (chunk) that state at
// least share r of what the best claim states of the question (cover), best first, while chosen
// has fewer than limit claims: the rule and its exception, the allowance and its cap, which greedy
// cover skips because they add no question term the best claim lacks.
func withSiblings(chosen, units []termUnit, r float64, limit int) []termUnit {
	best := chosen[0]
	for _, u := range units {
		if len(chosen) >= limit {
			break
		}
		if u.frag.N != best.frag.N || u.cover <= 0 || u.cover < r*best.cover || slices.ContainsFunc(chosen, func(x termUnit) bool { return x.text == u.text }) {
			continue
		}
		chosen = append(chosen, u)
	}
	return chosen
}

// coverGreedy picks claims by greedy set cover (units sorted best first): the best unit, then
// units of other fragments that add the most of the question's still-uncovered IDF-weighted
// terms, while a unit adds at least minGain; with anchored, only units on the best unit's subject
// (see onSubject). It returns the claims and the share of the question's terms they cover
// together, in [0, 1].
func coverGreedyV1(units []termUnit, idf map[string]float64, total float64, want string, maxClaims int, minGain float64, anchored bool) ([]termUnit, float64) {
	chosen := []termUnit{units[0]}
	got := map[string]float64{}
	for t, w := range units[0].covered {
		got[t] = w
	}
	used := map[int]bool{units[0].frag.N: true}
	for len(chosen) < maxClaims {
		bestGain, bestIdx := 0.0, -1
		for i, u := range units {
			if used[u.frag.N] || anchored && !onSubjectV1(units[0], u) {
				continue
			}
			var gain float64
			for _, t := range sortedKeys(u.covered) {
				if w := u.covered[t]; w > got[t] {
					gain += (w - got[t]) * idf[t]
				}
			}
			gain /= total
			if want != "" && hasKind(u.text, want) {
				gain += 0.02
			}
			if gain > bestGain {
				bestGain, bestIdx = gain, i
			}
		}
		if bestIdx < 0 || bestGain < minGain {
			break
		}
		u := units[bestIdx]
		chosen = append(chosen, u)
		used[u.frag.N] = true
		for t, w := range u.covered {
			got[t] = max(got[t], w)
		}
	}
	var union float64
	for _, t := range sortedKeys(got) {
		union += got[t] * idf[t]
	}
	return chosen, union / total
}

// idNumberRE is a number of three or more groups joined by hyphens (24-17-00452, a grant's or
// a case's number) that is not an ISO date.
var idNumberRE = regexp.MustCompile(`\b\d+(?:-\d+){2,}\b`)

// questionIDs returns the codes, ids and versions the question names (exactTerms) and its numbers
// of three or more hyphenated groups (idNumberRE) other than dates.
func questionIDs(question string) []string {
	ids := exactTerms(question)
	for _, n := range idNumberRE.FindAllString(question, -1) {
		if !isoDateRE.MatchString(n) && !slices.Contains(ids, n) { // the unanchored date pattern: 2024-05-01 and longer
			ids = append(ids, n)
		}
	}
	return ids
}

// sharesID reports whether a and b both state one of ids (as written, textnorm.Index).
func sharesID(ids []string, a, b string) bool {
	for _, id := range ids {
		_, _, inA := textnorm.Index(a, id)
		_, _, inB := textnorm.Index(b, id)
		if inA && inB {
			return true
		}
	}
	return false
}

// onSubject reports whether u may join an answer whose best claim is first: it comes from the
// same document or one of the same title (parts of one work), or it covers a question term that
// first covers too (in the text or in the title and section of its chunk).
func onSubjectV1(first, u termUnit) bool {
	if u.frag.Chunk.DocID == first.frag.Chunk.DocID || u.frag.Chunk.Title == first.frag.Chunk.Title {
		return true
	}
	for t := range u.covered {
		if first.covered[t] > 0 {
			return true
		}
	}
	return false
}
