package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Extractive is the offline generator: it does not write, it selects. It splits the fragments into
// sentences, table rows and list items, scores each by the question's terms it contains (IDF over
// the fragments; textnorm.SearchTerms, so «отпуска» matches «отпуск» and «впн» matches VPN), with
// a bonus when the unit has what the question asks for (a number for «сколько»/"how many", a name
// for «кто»/"who", a date for «когда»/"when"), and returns the best units as claims quoted
// verbatim: the best unit, then, greedily, units of other fragments that add the question terms
// still missing (so a multi-hop answer quotes each document of the chain). It answers NOT_FOUND
// when the best unit or the chosen units together cover too little of the question (minBest,
// minUnion), or when a code or id
// in the question (ERR-7713, INC-3400) appears in no fragment. Units that address an AI model
// (planted instructions) are never selected.
type Extractive struct {
	// MaxClaims bounds the answer; default 4.
	MaxClaims int
}

// Name says what it is.
func (Extractive) Name() string { return "extractive-v1" }

type unit struct {
	frag    Fragment
	text    string
	score   float64
	cover   float64            // IDF-weighted share of the question's terms, in [0, 1]
	covered map[string]float64 // term → 1 (in the unit) or 0.5 (in its title or section only)
}

var (
	numberRE = regexp.MustCompile(`\d`)
	dateRE   = regexp.MustCompile(`\b\d{1,2}[.\s/-]\d{1,2}[.\s/-]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b|\b(19|20)\d{2}\b|\b\d{1,2}\s+(январ|феврал|март|апрел|ма[йя]|июн|июл|август|сентябр|октябр|ноябр|декабр|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)`)
	nameRE   = regexp.MustCompile(`\p{Lu}\p{Ll}+\s+\p{Lu}\p{Ll}+|\p{Lu}\.\s*\p{Lu}\p{Ll}+|@`)
	// injectionRE recognizes text addressed to an AI model rather than to readers («игнорируй
	// все предыдущие инструкции», "ignore previous instructions"): such a unit is never an answer.
	injectionRE = regexp.MustCompile(`(?i)(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+)?(previous|prior|above|earlier)\s+(instructions|rules|prompts?)|игнорируй|не\s+обращай\s+внимания\s+на\s+(предыдущие|инструкции)|(для|to the)\s+(ии|ai)[- ](ассистент|assistant)|(ии|ai)[- ](ассистент|assistant)\W|system\s+prompt|jailbreak`)
)

// askFor returns what kind of value a question asks for: "number", "person", "date" or "".
func askFor(q string) string {
	f := textnorm.FoldString(q)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(" "+f+" ", w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("сколько", "how many", "how much", "how long", "какой лимит", "какую сумму", "какой размер", "what percentage", "how often", "как часто"):
		return "number"
	case has("когда", "when ", "до какой даты", "until when", "what date", "в какой день"):
		return "date"
	case has(" кто ", "кто ", " who", "by name", "кем ", "чей", "whose"):
		return "person"
	}
	return ""
}

// Generate selects the answer sentences.
func (g Extractive) Generate(_ context.Context, in GenerationInput) (string, error) {
	question, frags := in.Question, in.Fragments
	// A multi-hop answer is spread over documents: no single unit covers much of the question,
	// so the per-unit bar is lower and the chain as a whole must cover it.
	needBest, needUnion := minBest, minUnion
	if in.Route == ariadne.RouteMultiHop {
		needBest, needUnion = minBestMultiHop, minUnionMultiHop
	}
	maxClaims := g.MaxClaims
	if maxClaims == 0 {
		maxClaims = 4
	}
	qterms := dedupeStrings(textnorm.SearchTerms(question))
	notFound := func() (string, error) { return `{"status":"not_found","claims":[]}`, nil }
	if len(qterms) == 0 || len(frags) == 0 {
		return notFound()
	}
	// Codes and ids the question names must be in the evidence.
	all := ""
	for _, f := range frags {
		all += " " + f.Chunk.ContextText()
	}
	for _, code := range codeRE.FindAllString(question, -1) {
		if _, _, ok := textnorm.Index(all, code); !ok {
			return notFound()
		}
	}
	// IDF of each question term over the fragments.
	fragTerms := make([]map[string]bool, len(frags))
	df := map[string]int{}
	for i, f := range frags {
		fragTerms[i] = toSet(textnorm.SearchTerms(f.Chunk.ContextText()))
		for _, t := range qterms {
			if fragTerms[i][t] {
				df[t]++
			}
		}
	}
	idf := map[string]float64{}
	var total float64
	for _, t := range qterms {
		idf[t] = math.Log(1 + float64(len(frags)+1)/float64(df[t]+1))
		total += idf[t]
	}
	want := askFor(question)
	var units []unit
	for i, f := range frags {
		ctxTerms := toSet(textnorm.SearchTerms(f.Chunk.Title + " " + f.Chunk.HeadingPath()))
		for _, u := range splitUnits(f.Chunk.Text) {
			if injectionRE.MatchString(u) {
				continue // an instruction planted in a document is data, not an answer
			}
			ut := toSet(textnorm.SearchTerms(u))
			covered := map[string]float64{}
			for _, t := range qterms {
				switch {
				case ut[t]:
					covered[t] = 1
				case ctxTerms[t]:
					covered[t] = 0.5
				}
			}
			var cov float64
			for t, w := range covered {
				cov += w * idf[t]
			}
			cov /= total
			score := cov
			if want != "" && hasKind(u, want) {
				score += 0.15
			}
			score -= 0.01 * float64(i) // earlier fragments ranked higher by retrieval
			units = append(units, unit{frag: f, text: u, score: score, cover: cov, covered: covered})
		}
	}
	sort.SliceStable(units, func(i, j int) bool { return units[i].score > units[j].score })
	if len(units) == 0 {
		return notFound()
	}
	// A multi-hop answer chains documents through terms the question does not name; any other
	// answer stays on its subject: a further claim comes from the best claim's document or shares
	// one of the question's terms with it (sentences of unrelated documents that each share
	// another word with the question do not add up to an answer).
	chosen, union := coverGreedy(units, idf, total, want, maxClaims, in.Route != ariadne.RouteMultiHop)
	if chosen[0].cover < needBest || union < needUnion {
		return notFound()
	}
	// The answer must hold the kind of thing asked for (a name for "who", a number for "how
	// many"): if no chosen unit does, add the most relevant unit that does.
	if want != "" && len(chosen) < maxClaims+1 && !slices.ContainsFunc(chosen, func(u unit) bool { return hasKind(u.text, want) }) {
		for _, u := range units {
			if u.cover > 0 && hasKind(u.text, want) && (in.Route == ariadne.RouteMultiHop || onSubject(chosen[0], u)) && !slices.ContainsFunc(chosen, func(c unit) bool { return c.text == u.text }) {
				chosen = append(chosen, u)
				break
			}
		}
	}
	type claim struct {
		Text      string           `json:"text"`
		Citations []OutputCitation `json:"citations"`
	}
	claims := make([]claim, 0, len(chosen))
	for _, u := range chosen {
		claims = append(claims, claim{Text: u.text, Citations: []OutputCitation{{Fragment: u.frag.N, ChunkID: u.frag.Chunk.ID, Quote: u.text}}})
	}
	raw, err := json.Marshal(map[string]any{"status": "answer", "claims": claims})
	if err != nil {
		return "", fmt.Errorf("extractive: %w", err)
	}
	return string(raw), nil
}

// coverGreedy picks claims by greedy set cover (units sorted best first): the best unit, then
// units of other fragments that add the most of the question's still-uncovered IDF-weighted
// terms, while a unit adds at least minGain; with anchored, only units on the best unit's subject
// (see onSubject). It returns the claims and the share of the question's terms they cover
// together, in [0, 1].
func coverGreedy(units []unit, idf map[string]float64, total float64, want string, maxClaims int, anchored bool) ([]unit, float64) {
	chosen := []unit{units[0]}
	got := map[string]float64{}
	for t, w := range units[0].covered {
		got[t] = w
	}
	used := map[int]bool{units[0].frag.N: true}
	for len(chosen) < maxClaims {
		bestGain, bestIdx := 0.0, -1
		for i, u := range units {
			if used[u.frag.N] || anchored && !onSubject(units[0], u) {
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

// onSubject reports whether u may join an answer whose best claim is first: it comes from the
// same document or one of the same title (parts of one work), or it covers a question term that
// first covers too (in the text or in the title and section of its chunk).
func onSubject(first, u unit) bool {
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

// sortedKeys returns m's keys in order, so that float sums do not depend on map order.
func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func toSet(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func hasKind(s, kind string) bool {
	switch kind {
	case "number":
		return numberRE.MatchString(s)
	case "date":
		return dateRE.MatchString(s)
	case "person":
		return nameRE.MatchString(s)
	}
	return false
}

// splitUnits cuts chunk text into quotable units: table rows and list items whole, paragraphs
// into sentences. Table separators and headings are skipped; units shorter than MinQuoteRunes
// characters are dropped. Each unit is a verbatim substring of text.
func splitUnits(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "```"):
			continue
		case strings.HasPrefix(l, "|"):
			if strings.Trim(l, "|-: ") == "" {
				continue // separator row
			}
			out = append(out, l)
		case strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") || len(l) > 2 && unicode.IsDigit(rune(l[0])) && strings.Contains(l[:min(4, len(l))], ". "):
			out = append(out, l)
		default:
			out = append(out, sentences(l)...)
		}
	}
	var kept []string
	for _, u := range out {
		if len([]rune(u)) >= MinQuoteRunes {
			kept = append(kept, u)
		}
	}
	return kept
}

// sentences splits a paragraph after '.', '!', '?' or '…' followed by a space and a capital
// letter, digit or quote (so "v2.4.0", "т. е." and "09.2024" do not split).
func sentences(p string) []string {
	var out []string
	runes := []rune(p)
	start := 0
	for i := 0; i < len(runes)-2; i++ {
		if strings.ContainsRune(".!?…", runes[i]) && runes[i+1] == ' ' {
			next := runes[i+2]
			if unicode.IsUpper(next) || unicode.IsDigit(next) || strings.ContainsRune("«\"(", next) {
				if s := strings.TrimSpace(string(runes[start : i+1])); s != "" {
					out = append(out, s)
				}
				start = i + 2
			}
		}
	}
	if s := strings.TrimSpace(string(runes[start:])); s != "" {
		out = append(out, s)
	}
	return out
}
