package agent

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Extractive is the offline generator: it does not write, it selects. It splits the fragments into
// sentences, table rows and list items (splitUnits) and scores each with the fitted evidence model
// (EvidenceRanker: the e5 cosine of question and unit, IDF-weighted coverage of the question's
// terms, retrieval rank, names of the question found in the unit, whether the unit holds what the
// question asks for; agent/evidence_model.json). It answers only when the best unit's score clears
// the model's answerability threshold, chosen on held-out public data for a stated answer
// precision (docs/evaluation.md, "Evidence by meaning"), and then quotes verbatim: the best unit,
// and further units that also clear the model's bar for a further claim (on the best unit's
// subject unless the route is multi_hop), up to MaxClaims. It answers NOT_FOUND when no unit
// clears the threshold or when a code or id in the question (ERR-7713, INC-9071) appears in no
// fragment. Units that address an AI model (planted instructions) are never selected.
type Extractive struct {
	// MaxClaims bounds the answer; default 4.
	MaxClaims int
	// Ranker scores the units; its zero value uses the lexical weight set (no embedder).
	Ranker EvidenceRanker
}

// Name says what it is and which weight set it scores with.
func (g Extractive) Name() string {
	if g.Ranker.Semantic() {
		return "extractive-v2"
	}
	return "extractive-v2-lexical"
}

// DecidesAnswerability reports that the generator makes the calibrated answer-or-refuse decision
// itself, so the answerer hands it weak evidence too (a question in the other language than its
// evidence shares few terms with it).
func (Extractive) DecidesAnswerability() bool { return true }

// QuotesOnly reports that every claim is a quoted unit: the generator writes nothing of its own.
func (Extractive) QuotesOnly() bool { return true }

var (
	numberRE = regexp.MustCompile(`\d`)
	// dateRE: what answers "when": a date, a year, a day and month, a time of day (21:00) or a
	// weekday («по вторникам», "on Tuesdays"; Wednesday only as «в среду»/«по средам», since
	// «среда» is also an environment).
	dateRE = regexp.MustCompile(`\b\d{1,2}[.\s/-]\d{1,2}[.\s/-]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b|\b(19|20)\d{2}\b|\b\d{1,2}\s+(январ|феврал|март|апрел|ма[йя]|июн|июл|август|сентябр|октябр|ноябр|декабр|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)|\b([01]?\d|2[0-3]):[0-5]\d\b|(?i)\b(mon|tues|wednes|thurs|fri|satur|sun)days?\b|понедельник|вторник|в\s+среду|по\s+средам|четверг|пятниц|суббот|воскресень`)
	nameRE = regexp.MustCompile(`\p{Lu}\p{Ll}+\s+\p{Lu}\p{Ll}+|\p{Lu}\.\s*\p{Lu}\p{Ll}+|@`)
	// injectionRE recognizes text addressed to an AI model rather than to readers («игнорируй
	// все предыдущие инструкции», "ignore previous instructions"): such a unit is never an answer.
	injectionRE = regexp.MustCompile(`(?i)(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+)?(previous|prior|above|earlier)\s+(instructions|rules|prompts?)|игнорируй|не\s+обращай\s+внимания\s+на\s+(предыдущие|инструкции)|(для|to the)\s+(ии|ai)[- ](ассистент|assistant)|(ии|ai)[- ](ассистент|assistant)\W|system\s+prompt|jailbreak`)
)

// askFor returns what kind of value a question asks for: kindMoney, kindPercent (askedAmount),
// "number", "person", "date" or "".
func askFor(q string) string {
	if k := askedAmount(q); k != "" {
		return k
	}
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
	case has("сколько", "how many", "how much", "how long", "какой лимит", "какую сумму", "какой размер", "what percentage", "how often", "как часто",
		"how big", "how large", "how high", "how tall", "how old", "каким тиражом", "какой тираж", "какого тиража"):
		return "number"
	case has("когда", "when ", "до какой даты", "until when", "what date", "в какой день", "в каком году", "what year", "in which year"):
		return "date"
	case has(" кто ", "кто ", " who", "by name", "кем ", "чей", "whose"):
		return "person"
	}
	return ""
}

// versionRE is a version number of three or more parts (3.2.2, 25.3.1): one that differs in its
// last part is another release.
var versionRE = regexp.MustCompile(`\b\d+(?:\.\d+){2,}\b`)

// exactTerms returns the codes, ids (codeRE: INC-2318, ERR-7713) and version numbers (3.2.2) a
// question names: the evidence must hold each as written, or the documents do not answer it — a
// sentence about INC-2319 or Tern 3.2.4 is not about INC-2318 or Tern 3.2.2.
func exactTerms(question string) []string {
	return append(textnorm.FindBounded(codeRE, question), versionRE.FindAllString(question, -1)...)
}

// missingExactTerm returns the first of the question's exact terms (exactTerms) that text does
// not hold, as written or in the other script («118/ПТУ-2025» for "118/PTU-2025": outside
// tester, stop 61), or "" when it holds them all.
func missingExactTerm(question, text string) string {
	latin := ""
	for _, code := range exactTerms(question) {
		if _, _, ok := textnorm.Index(text, code); ok {
			continue
		}
		if latin == "" {
			latin = textnorm.Transliterate(text)
		}
		if _, _, ok := textnorm.Index(latin, textnorm.Transliterate(code)); !ok {
			return code
		}
	}
	return ""
}

// Generate selects the answer units.
func (g Extractive) Generate(ctx context.Context, in GenerationInput) (string, error) {
	question, frags := in.Question, in.Fragments
	maxClaims := g.MaxClaims
	if maxClaims == 0 {
		maxClaims = 4
	}
	notFound := func() (string, error) { return `{"status":"not_found","claims":[]}`, nil }
	if strings.TrimSpace(question) == "" || len(frags) == 0 {
		return notFound()
	}
	// Codes and ids the question names must be in the evidence.
	all := ""
	for _, f := range frags {
		all += " " + f.Chunk.ContextText()
	}
	if missingExactTerm(question, all) != "" {
		return notFound()
	}
	// So must the names it gives that no linked entity accounts for (unknownName).
	if unknownName(question, in.Linked, append(slices.Clip(frags), in.NameFragments...), g.Ranker.Lexicon) != "" {
		return notFound()
	}
	if answer, ok := definitionAnswer(in); ok {
		return answer, nil
	}
	set, err := g.Ranker.WeightSet()
	if err != nil {
		return "", err
	}
	units, err := g.Ranker.RankUnits(ctx, question, in.Groups, frags, nil)
	if err != nil {
		return "", fmt.Errorf("extractive: %w", err)
	}
	units = dropOtherVersions(question, units, func(u ScoredUnit) string { return u.Text })
	ok, value := set.Answerable(units)
	if in.Decision != nil && len(units) > 0 {
		th := set.Threshold
		if set.Answer != nil {
			th = set.Answer.Threshold
		}
		*in.Decision = EvidenceDecision{ChunkID: units[0].Fragment.Chunk.ID, Unit: units[0].Text, UnitScore: units[0].Score,
			Value: value, Threshold: th, Answered: ok}
	}
	if !ok {
		return notFound()
	}
	chosen := []ScoredUnit{units[0]}
	used := map[int]bool{units[0].Fragment.N: true}
	multiHop := in.Route == ariadne.RouteMultiHop
	for _, u := range units[1:] {
		if len(chosen) == maxClaims || u.Score < set.ExtraThreshold {
			break
		}
		if multiHop && used[u.Fragment.N] || !multiHop && !onSubject(units[0], u) {
			continue // a chain quotes each document once; any other answer stays on its subject
		}
		chosen = append(chosen, u)
		used[u.Fragment.N] = true
	}
	out := make([]quoted, 0, len(chosen))
	for _, u := range chosen {
		out = append(out, quoted{frag: u.Fragment, text: u.Text})
	}
	return quoteClaims(out)
}

// onSubject reports whether u may join an answer whose best claim is first: it comes from the
// same document or one of the same title (parts of one work), or it covers a question term that
// first covers too (in the text or in the title and section of its chunk).
func onSubject(first, u ScoredUnit) bool {
	if u.Fragment.Chunk.DocID == first.Fragment.Chunk.DocID || u.Fragment.Chunk.Title == first.Fragment.Chunk.Title {
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
	case kindMoney, kindPercent:
		return hasAmount(s, kind)
	}
	return false
}

// splitUnits cuts chunk text into quotable units: table rows and list items whole, paragraphs
// into sentences. Table separators and headings are skipped; units shorter than MinQuoteRunes
// characters are dropped, and so is a first sentence that begins with a lower-case letter: the
// tail of a sentence the chunker's overlap copied from the previous chunk, which holds it whole
// (quoted, "team reviewed the …" read as a sentence of its own: README trial). Each unit is a
// verbatim substring of text. A document's first chunk begins no sentence's tail: chunkUnits.
func splitUnits(text string) []string { return splitText(text, true) }

// chunkUnits is splitUnits for a chunk: the first chunk of a document (position 0) keeps a first
// sentence that begins with a lower-case letter — a lower-case name opens it ("geokit is a
// library for …"), no overlap does.
func chunkUnits(c ariadne.Chunk) []string {
	return splitText(c.Text, ariadne.ChunkPosition(c.ID) != 0)
}

// splitText is splitUnits; overlap says whether text may begin with the tail of a sentence.
func splitText(text string, overlap bool) []string {
	var out []string
	first := true
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		lead := first && l != ""
		if l != "" {
			first = false
		}
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
			ss := sentences(l)
			if r, _ := utf8.DecodeRuneInString(l); overlap && lead && len(ss) > 0 && unicode.IsLower(r) {
				ss = ss[1:] // a sentence's tail, cut by the chunk's start
			}
			out = append(out, ss...)
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

// tableHeaders maps each table row of text (trimmed, as splitUnits returns it) to its table's
// header row — the row right above the separator (|---|) — and each header row to itself. A header
// states no fact, only what its columns mean: the generators do not quote it, and read it as the
// context of its rows, as they read a section title.
func tableHeaders(text string) map[string]string {
	var out map[string]string
	header := ""
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		l := strings.TrimSpace(line)
		switch {
		case !strings.HasPrefix(l, "|"):
			header = ""
		case tableSeparator(l):
		case i+1 < len(lines) && tableSeparator(strings.TrimSpace(lines[i+1])):
			header = l
			if out == nil {
				out = map[string]string{}
			}
			out[l] = l
		case header != "":
			out[l] = header
		}
	}
	return out
}

// tableSeparator reports whether a trimmed line is a Markdown table's separator row (|---|:--:|).
func tableSeparator(l string) bool {
	return strings.HasPrefix(l, "|") && strings.Contains(l, "-") && strings.Trim(l, "|-: ") == ""
}

// abbreviations are the words a period follows without ending the sentence, lower case: Russian
// and English abbreviations that precede a name or a term («англ. Iceberg», «см. Приложение»,
// "e.g. Redis", "Dr. Smith"). Those that often end a sentence too («г.», "etc.", "Inc.") are
// not listed.
var abbreviations = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`англ нем франц фр лат греч итал исп кит яп рус укр
		т.е т.к т.н т.ч т.д т.п напр см ср им ул пр просп пер пл д стр рис табл гл ст тыс млн млрд
		руб чел проф акад доц тел вкл искл прим ред изд
		e.g i.e vs cf approx mr mrs ms dr prof st jr sr no fig eq dept`) {
		abbreviations[w] = true
	}
}

// wordBefore returns the word that ends at runes[i] (exclusive): letters and the inner periods of
// an abbreviation such as «т.е» or "e.g".
func wordBefore(runes []rune, i int) string {
	j := i
	for j > 0 && (unicode.IsLetter(runes[j-1]) || runes[j-1] == '.' && j-1 > 0 && unicode.IsLetter(runes[j-2])) {
		j--
	}
	return string(runes[j:i])
}

// sentences splits a paragraph after '.', '!', '?' or '…' followed by a space and a capital
// letter, digit or quote (so "v2.4.0", "т. е." and "09.2024" do not split), except after an
// initial (a lone capital letter: «К. Дымов»).
func sentences(p string) []string {
	var out []string
	runes := []rune(p)
	start := 0
	for i := 0; i < len(runes)-2; i++ {
		if strings.ContainsRune(".!?…", runes[i]) && runes[i+1] == ' ' {
			if runes[i] == '.' && i >= 1 && unicode.IsUpper(runes[i-1]) && (i == 1 || !unicode.IsLetter(runes[i-2])) {
				continue // an initial: «К. Дымов», "J. Smith"
			}
			if runes[i] == '.' && abbreviations[strings.ToLower(wordBefore(runes, i))] {
				continue // «(англ. Iceberg)», "e.g. Redis", "Dr. Smith"
			}
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
