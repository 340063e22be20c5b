package agent

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// maxCompared bounds the named things one comparison answer cites a sentence for.
const maxCompared = 4

// timeRE: a comparison of times or durations ("who joined earlier", «что дольше длилось»): its
// evidence states a year, a date, a clock time or a duration, which the question never repeats.
// quantityRE: a comparison of amounts ("which has more engineers", «у кого больше грузовиков»):
// its evidence states an amount (statesAmount).
var (
	timeRE     = regexp.MustCompile(`(?i)\b(?:first|earlier|later|sooner|longer|shorter|older|newer|younger|before|after)\b|(?:^|[^\p{L}\p{N}])(?:раньше|ранее|позже|позднее|дольше|старше|моложе|младше|первым|первой|первое|первыми|новее)(?:[^\p{L}\p{N}]|$)`)
	quantityRE = regexp.MustCompile(`(?i)\b(?:more|fewer|less|bigger|larger|smaller|higher|lower|faster|slower|often|cheaper|dearer|[a-z]+er than)\b|(?:^|[^\p{L}\p{N}])(?:больше|меньше|быстрее|медленнее|выше|ниже|чаще|реже|длиннее|короче|дороже|дешевле)(?:[^\p{L}\p{N}]|$)`)
	// rateRE: a comparison of a frequency or a speed ("more often", «быстрее»), whose amounts are
	// times ("every 10 minutes", «за 30 минут»).
	rateRE = regexp.MustCompile(`(?i)\b(?:often|frequently|faster|slower|quicker|sooner)\b|(?:^|[^\p{L}\p{N}])(?:чаще|реже|быстрее|медленнее)(?:[^\p{L}\p{N}]|$)`)
	// ageRE: a comparison of ages ("Who is older?", «Кто старше?»): a time is its evidence only
	// beside a birth or a founding (ageValueRE) — a year someone joined says nothing of their age.
	ageRE      = regexp.MustCompile(`(?i)\b(?:older|oldest|younger|youngest)\b|(?:^|[^\p{L}\p{N}])(?:старше|моложе|младше|старейш[а-яё]*)(?:[^\p{L}\p{N}]|$)`)
	ageValueRE = regexp.MustCompile(`(?i)\b(?:born|birth|aged?|years old|founded|established|incorporated)\b|(?:^|[^\p{L}\p{N}])(?:родил[а-яё]*|рожд[а-яё]*|возраст[а-яё]*|основан[а-яё]*|основал[а-яё]*|учрежд[а-яё]*|создан[а-яё]*)`)
	// timeValueRE: a year (1800–2099), a date, a clock time or a number with a unit of time.
	timeValueRE = regexp.MustCompile(`(?i)\b(?:1[89]|20)[0-9]{2}\b|\b[0-9]{1,2}[:.][0-9]{2}\b|[0-9]+\s*(?:ч|час|мин|сек|дн|день|дня|недел|мес|год|лет|h\b|hours?|min|sec|days?|weeks?|months?|years?)`)
	amountRE    = regexp.MustCompile(`[0-9]+(?:[.,][0-9]+)*`)
)

// statesAmount reports whether u states an amount: a number that is not a year (1800–2099), a
// date (01.06.2025) or a piece of a code (AGR-2024-17, P1, v2).
func statesAmount(u string) bool {
	for _, m := range amountRE.FindAllStringIndex(u, -1) {
		n := u[m[0]:m[1]]
		before, _ := utf8.DecodeLastRuneInString(u[:m[0]])
		after, _ := utf8.DecodeRuneInString(u[m[1]:])
		switch {
		case unicode.IsLetter(before) || before == '-' || unicode.IsLetter(after) || after == '-' || after == '_':
			continue // a code
		case strings.Count(n, ".") >= 2:
			continue // a date
		case len(n) == 4 && (strings.HasPrefix(n, "18") || strings.HasPrefix(n, "19") || strings.HasPrefix(n, "20")):
			continue // a year
		}
		return true
	}
	return false
}

// comparePlan is the evidence a comparison cites: for each named thing the question sets side by
// side ("Who joined earlier, A or B?"), in the order the question names them, the sentence that
// states the compared attribute about it. Empty when the question compares nothing, names fewer
// than two linked entities, or one of them has no such sentence.
type comparePlan struct {
	units    []hopUnit
	entities []string // the compared things' names as the caller may see them, one per unit
	// missing is set when the question compares named things and one of them has no sentence
	// that states the compared attribute: its words in the question (Linked.Surface).
	missing string
}

// ComparedItem is one thing a comparison sets side by side and the verified sentence about it.
type ComparedItem struct {
	Entity   string           `json:"entity"` // as the caller may see it
	Citation ariadne.Citation `json:"citation"`
	// Value is the one date (YYYY-MM-DD) or year (YYYY) the quote states, for a comparison of
	// times; empty otherwise or when the quote states several (dateValue).
	Value string `json:"value,omitempty"`
}

// comparedEntities returns the linked entities named inside the question's compared span
// (comparedSpan: the alternatives, not the context — not "White Owl" in "Who has been with White
// Owl longer, A or B?"), in the order the question names them, distinct keys, at most
// maxCompared; nil when fewer than two.
func comparedEntities(question string, linked []Linked) []Linked {
	start, end, ok := comparedSpan(question)
	if !ok {
		return nil
	}
	// A name in the span, or one the span starts inside of: comparedSpan takes the question's
	// first capital for the sentence's, so «Анна Светлова и …» spans from «Светлова».
	at := func(l Linked) int { return strings.Index(question, l.Surface) }
	var ents []Linked
	for _, l := range linked {
		if i := at(l); l.names != nil && l.Surface != "" && i >= 0 && i < end && i+len(l.Surface) > start &&
			!slices.ContainsFunc(ents, func(e Linked) bool { return e.Key == l.Key }) {
			ents = append(ents, l)
		}
	}
	slices.SortStableFunc(ents, func(a, b Linked) int { return at(a) - at(b) })
	if len(ents) < 2 {
		return nil
	}
	if len(ents) > maxCompared {
		ents = ents[:maxCompared]
	}
	return ents
}

// comparisonPages returns the chunks of the compared entities' own pages (documented entities are
// keyed by their document id) that frags lack, read as the caller may read them, numbered on after
// frags; nothing without a reader.
func (a *Answerer) comparisonPages(ctx context.Context, req Request, ents []Linked, frags []Fragment) ([]Fragment, error) {
	dr, ok := a.cfg.Chunks.(DocumentChunkReader)
	if !ok {
		return nil, nil
	}
	var docs []string
	for _, e := range ents {
		if strings.Contains(e.Key, "/") && !slices.Contains(docs, e.Key) {
			docs = append(docs, e.Key)
		}
	}
	if len(docs) == 0 {
		return nil, nil
	}
	ids, err := dr.DocumentChunkIDs(ctx, docs, req.Groups)
	if err != nil {
		return nil, fmt.Errorf("agent: read compared pages: %w", err)
	}
	var missing []string
	for _, id := range ids {
		if !slices.ContainsFunc(frags, func(f Fragment) bool { return f.Chunk.ID == id }) {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	cs, err := a.cfg.Chunks.Chunks(ctx, missing, req.Groups)
	if err != nil {
		return nil, fmt.Errorf("agent: read compared pages: %w", err)
	}
	var out []Fragment
	for _, c := range cs {
		if ariadne.CanRead(c.ACL, req.Groups) { // defence in depth: the reader already filters
			out = append(out, Fragment{N: len(frags) + len(out) + 1, Chunk: c})
		}
	}
	return out, nil
}

// planComparison picks a comparison's evidence from the fragments. The compared things are ents
// (comparedEntities of the question); the attribute is what the question says besides their names (its search
// terms minus the names' terms). For each entity, the candidates are the units of the fragments
// that name it — in their own text, or by the chunk's title when the chunk is the entity's own
// page (the resolver's matcher that linked it, so any script or spelling the caller may see
// counts) — and the chosen one covers most of the attribute (termCover, IDF-weighted over the
// fragments; a table row's header and the chunk's title and section count half), stating at
// least one attribute term in its own text. When the question compares a time (timeRE), a unit
// that states one (timeValueRE) ranks before one that does not and counts as stating the
// attribute; likewise an amount (quantityRE, statesAmount; a duration is none). A unit of the
// entity's own page that states the value and an attribute term ranks before units of other
// pages. Ties go to a unit of the entity's own page, then to the earlier fragment, then to the
// shorter unit of one fragment. A unit that names
// several of the entities may serve each of them. No units when any entity has no candidate — a
// comparison with one side missing is not claimed — and then missing names the first such entity.
func planComparison(question string, ents []Linked, frags []Fragment, lex *lexicon.Lexicon, scope textScope) comparePlan {
	if len(ents) < 2 {
		return comparePlan{}
	}
	names := map[string]bool{}
	for _, e := range ents {
		for _, t := range textnorm.SearchTerms(e.Surface + " " + e.Name) {
			names[t] = true
		}
	}
	attr := newQuestionTerms(question, lex, scope).only(func(t string) bool { return !names[t] })
	if len(attr.terms) == 0 {
		return comparePlan{}
	}
	idf, sum := termIDF(attr, frags)
	var states func(string) bool // the compared value, when the question says which kind
	switch {
	case ageRE.MatchString(question):
		states = func(u string) bool { return timeValueRE.MatchString(u) && ageValueRE.MatchString(u) }
	case timeRE.MatchString(question) || sameTimeRE.MatchString(question):
		states = timeValueRE.MatchString
	case rateRE.MatchString(question):
		states = statesAmount // how often, how fast: a time is the amount ("every 10 minutes")
	case quantityRE.MatchString(question):
		// A duration or a time is no amount of what "larger", "cheaper" or «больше грузовиков»
		// compares: "Most goods stay in the hub for less than 48 hours" was the larger
		// warehouse's evidence, the floor space beside it not (outside tester, stop 58).
		states = func(u string) bool { return statesAmount(timeValueRE.ReplaceAllString(u, " ")) }
	}
	var plan comparePlan
	for _, e := range ents {
		var best hopUnit
		var bestCover float64
		var bestPage bool
		for _, f := range frags {
			page := namesKey(e, f.Chunk.Title)
			ctxTerms, headers := contextTerms(attr, f), tableHeaders(f.Chunk.Text)
			for _, u := range chunkUnits(f.Chunk) {
				if planted(u, f.Chunk.ACL) || !page && !namesKey(e, u) {
					continue
				}
				uctx, claim := unitContext(attr, ctxTerms, headers, u)
				if !claim {
					continue
				}
				covered, cover := termCover(attr, u, uctx, idf, sum)
				value := states != nil && states(u)
				full := false
				for _, w := range covered {
					full = full || w == 1
				}
				own := value || full
				if value {
					cover += 2 // a stated value outranks any share of the terms, all of them included
					if page && full {
						// and on the thing's own page, stating an attribute term, any value on
						// another page: «В «Северном Обозе» работает с 2016 года» on a manager's
						// page is his tenure, not the carrier's (outside tester, stop 58)
						cover++
					}
				}
				const eps = 1e-9
				better := best.quote == "" || cover > bestCover+eps
				if !better && cover > bestCover-eps {
					// a tie: the entity's own page, then the shorter unit of the same fragment
					better = page && !bestPage || page == bestPage && f.N == best.frag.N && len(u) < len(best.quote)
				}
				if own && better {
					best, bestCover, bestPage = hopUnit{f, u}, cover, page
				}
			}
		}
		if best.quote == "" {
			return comparePlan{missing: e.Surface}
		}
		plan.units = append(plan.units, best)
		plan.entities = append(plan.entities, e.Name)
	}
	return plan
}

// namesKey reports whether text names the linked entity e by any of the names its matcher knows.
func namesKey(e Linked, text string) bool {
	for _, m := range e.names.Find(text) {
		if slices.Contains(m.Keys, e.Key) {
			return true
		}
	}
	return false
}

// Dates a comparison's sentences state, for the ordering code can conclude ("Who joined earlier?"
// over «в 2020 году» and "in 2021"). Only unambiguous values count: a sentence with two different
// dates or years gives none.
var (
	isoDateRE = regexp.MustCompile(`\b((?:1[89]|20)[0-9]{2})-([01][0-9])-([0-3][0-9])\b`)
	dotDateRE = regexp.MustCompile(`\b([0-3]?[0-9])\.([01][0-9])\.((?:1[89]|20)[0-9]{2})\b`)
	// dayMonthYearRE: "12 February 2025", «12 февраля 2025», "February 12, 2025" (month first).
	dayMonthYearRE = regexp.MustCompile(`(?i)\b([0-3]?[0-9])\s+([a-zа-яё]+)\s+((?:1[89]|20)[0-9]{2})\b|\b([a-z]+)\s+([0-3]?[0-9]),?\s+((?:1[89]|20)[0-9]{2})\b`)
	yearRE         = regexp.MustCompile(`\b((?:1[89]|20)[0-9]{2})\b`)
	// earliestRE / latestRE: the comparison asks for the earlier or the later time; an age asks
	// for the earlier birth or founding. Durations ("longer", «дольше») are not ordered here.
	earliestRE = regexp.MustCompile(`(?i)\b(?:first|earlier|earliest|sooner|before|older|oldest)\b|(?:^|[^\p{L}\p{N}])(?:раньше|ранее|первым|первой|первое|первыми|старше|старейш[а-яё]*)(?:[^\p{L}\p{N}]|$)`)
	// sameTimeRE: the comparison asks whether the things share a day, a month or a year ("on the
	// same day", «в один день», «в одном году»); its first group is that unit of time.
	sameTimeRE = regexp.MustCompile(`(?i)\b(?:the\s+same|one)\s+(day|date|month|year)\b|(?:^|[^\p{L}\p{N}])(?:один|одн(?:ой|ого|ом|ому|у|а|о|и|их))\s+(?:и\s+т[а-яё]+\s+же\s+)?(день|дня|дату|дате|дата|месяц|месяце|месяца|год|году|года)(?:[^\p{L}\p{N}]|$)`)
	latestRE   = regexp.MustCompile(`(?i)\b(?:later|latest|after|newer|newest|younger|youngest|last)\b|(?:^|[^\p{L}\p{N}])(?:позже|позднее|последним|последней|новее|моложе|младше)(?:[^\p{L}\p{N}]|$)`)
)

// monthNumbers maps English month names and the Russian genitive forms (as dates write them) to
// their numbers.
var monthNumbers = map[string]string{
	"january": "01", "february": "02", "march": "03", "april": "04", "may": "05", "june": "06", "july": "07",
	"august": "08", "september": "09", "october": "10", "november": "11", "december": "12",
	"января": "01", "февраля": "02", "марта": "03", "апреля": "04", "мая": "05", "июня": "06", "июля": "07",
	"августа": "08", "сентября": "09", "октября": "10", "ноября": "11", "декабря": "12",
}

// dateValue returns the one date a sentence states, as YYYY-MM-DD, or the one year it states
// when it states no full date, as YYYY; false when it states none or several different ones.
func dateValue(s string) (string, bool) {
	var dates []string
	add := func(y, m, d string) {
		if len(d) == 1 {
			d = "0" + d
		}
		if v := y + "-" + m + "-" + d; !slices.Contains(dates, v) {
			dates = append(dates, v)
		}
	}
	for _, m := range isoDateRE.FindAllStringSubmatch(s, -1) {
		add(m[1], m[2], m[3])
	}
	for _, m := range dotDateRE.FindAllStringSubmatch(s, -1) {
		add(m[3], m[2], m[1])
	}
	for _, m := range dayMonthYearRE.FindAllStringSubmatch(s, -1) {
		if mon, ok := monthNumbers[strings.ToLower(m[2])]; ok && m[1] != "" {
			add(m[3], mon, m[1])
		} else if mon, ok := monthNumbers[strings.ToLower(m[4])]; ok && m[5] != "" {
			add(m[6], mon, m[5])
		}
	}
	if len(dates) > 1 {
		return "", false
	}
	if len(dates) == 1 {
		return dates[0], true
	}
	var years []string
	for _, m := range yearRE.FindAllStringSubmatch(s, -1) {
		if !slices.Contains(years, m[1]) {
			years = append(years, m[1])
		}
	}
	if len(years) == 1 {
		return years[0], true
	}
	return "", false
}

// ComparisonOutcome is what code concludes from the compared sentences: the compared thing whose
// date is the earliest (or the latest) when the question asks which came first (or last) and each
// sentence states one date or year, all of them different at the precision they share; or, when
// the question asks whether they share a day, a month or a year, whether every sentence's date
// falls on the same one (Entity empty).
type ComparisonOutcome struct {
	Entity string `json:"entity"` // as the caller may see it; empty for a same-time outcome
	// By is "earliest date" or "latest date"; for a same-time question "same day", "different
	// days", "same month", "different months", "same year" or "different years".
	By string `json:"by"`
}

// compareDates returns the outcome of a time comparison over the compared items' values (each
// ComparedItem.Value, set by dateValue), or nil when the question asks no order of times, a value
// is missing, or two values tie at the precision they share (2025 against 2025-03-01).
func compareDates(question string, items []ComparedItem) *ComparisonOutcome {
	if len(items) < 2 {
		return nil
	}
	by := ""
	switch {
	case sameTimeRE.MatchString(question) && !earliestRE.MatchString(question) && !latestRE.MatchString(question):
		return sameTime(sameTimeRE.FindStringSubmatch(question), items)
	case earliestRE.MatchString(question) && !latestRE.MatchString(question):
		by = "earliest date"
	case latestRE.MatchString(question) && !earliestRE.MatchString(question):
		by = "latest date"
	default:
		return nil
	}
	best := -1
	for i, it := range items {
		if it.Value == "" {
			return nil
		}
		for j := range i {
			n := min(len(it.Value), len(items[j].Value))
			if it.Value[:n] == items[j].Value[:n] {
				return nil // a tie at the shared precision
			}
		}
		if best < 0 || by == "earliest date" && it.Value < items[best].Value || by == "latest date" && it.Value > items[best].Value {
			best = i
		}
	}
	return &ComparisonOutcome{Entity: items[best].Entity, By: by}
}

// sameTime is compareDates for a question whether the compared things share a unit of time (m:
// sameTimeRE's match): every value must be precise enough for it (a year says nothing of a day).
func sameTime(m []string, items []ComparedItem) *ComparisonOutcome {
	unit := strings.ToLower(m[1] + m[2])
	n, name := 4, "year"
	switch {
	case unit == "day" || unit == "date" || strings.HasPrefix(unit, "д"):
		n, name = 10, "day"
	case unit == "month" || strings.HasPrefix(unit, "месяц"):
		n, name = 7, "month"
	}
	for _, it := range items {
		if len(it.Value) < n {
			return nil
		}
	}
	for _, it := range items[1:] {
		if it.Value[:n] != items[0].Value[:n] {
			return &ComparisonOutcome{By: "different " + name + "s"}
		}
	}
	return &ComparisonOutcome{By: "same " + name}
}
