package agent

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// kindTime is what a question for the time of a past event asks for ("When was X founded?",
// «Когда родилась Анна?», "In which year …", «в каком году …»): a date, a year or another
// statement of time.
const kindTime = "time"

// timeQuestionRE finds the phrases that ask for a point in time anywhere in a question (folded:
// ё as е): "what/which year", "what date", «в каком году», «какого числа», «в каком месяце», «в
// каком веке», «с/до какого года».
var timeQuestionRE = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:(?:in |since |until |by )?(?:what|which) (?:year|date|month|century|decade)|` +
	`(?:в|с|до|к) как(?:ом|ого|ой|ую) (?:году|года|месяце|месяца|веке|века|числа|числу|дату|даты)|какого числа)(?:[^\p{L}]|$)`)

// asksTime reports whether the question asks when a past event happened: it starts with
// "When" followed by "was", "were" or "did", or with «Когда» followed, within three words, by a
// verb in the past tense (-л, -ла, -ло, -ли, reflexive too) or a short passive participle, which
// states a past event without «был» («Когда подписан договор?», «Когда основана компания?»,
// «Когда открыт офис?»; a trial's question was answered by a quote that states no time), or it
// asks for a year, date, month or century (timeQuestionRE). A "when" about a condition or a
// routine ("When should I escalate?", «Когда нужно звонить дежурному?») asks no time and is
// left alone.
func asksTime(question string) bool {
	f := textnorm.FoldString(question)
	if timeQuestionRE.MatchString(f) {
		return true
	}
	words := wordRE.FindAllString(f, -1)
	if len(words) < 2 {
		return false
	}
	switch words[0] {
	case "when":
		return slices.Contains([]string{"was", "were", "did"}, words[1])
	case "когда":
		for _, w := range words[1:min(4, len(words))] {
			if pastTenseRE.MatchString(w) || shortParticipleRE.MatchString(w) {
				return true
			}
		}
	}
	return false
}

// pastTenseRE is a Russian past-tense verb form: the -л suffix with its endings, reflexive too
// («был», «родилась», «открыли», «основано»). Nouns in -ла/-ло (пила, стекло) are rare in a
// question's first words after «Когда».
var pastTenseRE = regexp.MustCompile(`^[а-я]{2,}(?:л|ла|ло|ли|лся|лась|лось|лись)$`)

// shortParticipleRE is a Russian short passive participle (folded: ё as е) of a perfective verb:
// a vowel and -н/-нн after a stem of four letters or more, -ен after щ, ж, ч, ш or a labial with
// л (-влен), and -ыт, -ят or -нут after three letters, each with its feminine, neuter and plural
// endings («подписан», «основана», «запущено», «назначен», «утверждены», «открыт», «принята»,
// «выпущен»). Nouns with such endings after «Когда» («Когда план …», «Когда экран …») have
// too short a stem.
var shortParticipleRE = regexp.MustCompile(`^(?:[а-я]{4,}[аеиоуыя](?:н|нн)|[а-я]{2,}(?:щ|ж|ч|ш|вл|бл|пл|мл)ен|[а-я]{3,}(?:ыт|ят|нут))(?:а|о|ы)?$`)

// timeWordRE finds a statement of time without digits, English and Russian (folded): month and
// weekday names, centuries, "ago", yesterday/today, a year or season named by a word («в
// прошлом году», "last spring"), Roman numerals before «век». Lenient on purpose, as
// countWordRE: it only tells a quote that states some time from one that states none.
var timeWordRE = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:` +
	`january|february|march|april|may|june|july|august|september|october|november|december|` +
	`monday|tuesday|wednesday|thursday|friday|saturday|sunday|centur(?:y|ies)|decades?|years?|ago|yesterday|today|tomorrow|spring|summer|autumn|fall|winter|` +
	`январ[а-я]*|феврал[а-я]*|март[а-я]*|апрел[а-я]*|ма[йя]|мае|июн[а-я]*|июл[а-я]*|август[а-я]*|сентябр[а-я]*|октябр[а-я]*|ноябр[а-я]*|декабр[а-я]*|` +
	`понедельник[а-я]*|вторник[а-я]*|сред[аеуы]|четверг[а-я]*|пятниц[а-я]*|суббот[а-я]*|воскресень[а-я]*|` +
	`век[а-я]*|столети[а-я]*|десятилети[а-я]*|год[а-я]*|лет|назад|вчера|сегодня|завтра|весн[а-я]*|лет[оа]м?|осен[а-я]*|зим[а-я]*|` +
	`[ivxlc]{2,}` +
	`)(?:[^\p{L}]|$)`)

// statesTime reports whether s states a time: a digit outside identifiers (hasNumber) and outside
// a count of things (countedNumberRE), or a time word (timeWordRE).
func statesTime(s string) bool {
	s = numberSignRE.ReplaceAllString(s, " ") // «лицензия № 4127» dates nothing
	return hasNumber(withoutCounts(s)) || timeWordRE.MatchString(textnorm.FoldString(s))
}

// countedNumberRE is a number followed by a word: the thing it counts, unless the word is a time
// (timeWordRE, timeUnitRE) — «2000 программок», "2000 programmes", "40 trucks" state no time, "in
// 2000 the theatre…", «3 часа» and "14 March" do (outside tester, stop 60: «Когда состоялась
// премьера?» was answered by «2000 программок … к премьере»).
var countedNumberRE = regexp.MustCompile(`(?:^|[^\p{L}\p{N}.,:/-])(\d+(?:[  ]\d{3})*)\s+(\p{Ll}+)`)

// timeUnitRE is a word that makes the number before it a time or a duration (folded): hours,
// minutes, days, weeks, months, years, centuries, quarters and their abbreviations («г.», «ч»),
// whole words or stems, so that «человек» or «месторождений» after a number count things.
var timeUnitRE = regexp.MustCompile(`^(?:ч|мин|сек|г|гг|лет|век(?:а|ов|е|ам|ами|ах)?)$|^(?:час|минут|секунд|сут|дн|ден|дня|недел|месяц|год|квартал)|` +
	`^(?:h|hrs?|hours?|mins?|minutes?|secs?|seconds?|days?|weeks?|months?|years?|quarters?|centur(?:y|ies)|decades?|am|pm)$`)

// digitGroupSpaces removes the spaces that group a number's digits ("2 000").
var digitGroupSpaces = strings.NewReplacer(" ", "", "\u00a0", "")

// yearAfterPrepositionRE is a year after a preposition of time at the end of a text ("in 2000",
// «в 2020», «с 1994»): a time whatever word follows it.
var yearAfterPrepositionRE = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:in|since|until|till|by|from|after|before|в|во|с|со|до|после|к|по)\s+$`)

// counting reports whether word, after a number, names what the number counts: a plural noun in
// English (ends in s), any word in Russian (a counted noun takes the genitive), never a time word
// or unit, nor a function word.
func counting(word string) bool {
	f := textnorm.FoldString(word)
	if timeUnitRE.MatchString(f) || timeWordRE.MatchString(" "+f+" ") || textnorm.IsStopword(f) {
		return false
	}
	if cyrillicShare(word) > 0.5 {
		return true
	}
	return len(f) > 3 && strings.HasSuffix(f, "s")
}

// withoutCounts is s with the numbers that count things (countedNumberRE, counting) blanked.
func withoutCounts(s string) string {
	idx := countedNumberRE.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	b := []byte(s)
	for _, m := range idx {
		num := digitGroupSpaces.Replace(s[m[2]:m[3]])
		if len(num) == 4 && (num[0] == '1' || strings.HasPrefix(num, "20")) && yearAfterPrepositionRE.MatchString(s[:m[2]]) {
			continue // "in 2000 the theatre moved", «в 2020 г.»
		}
		if counting(s[m[4]:m[5]]) {
			for i := m[2]; i < m[3]; i++ {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

// identifierRE is a code that starts with a letter and holds a digit, with its hyphenated or
// dotted parts: INC-2041, CTR-2024-117, SV-SEC-2024-019, v1.2, S3, PR#7 is not one (the # breaks
// it, and 7 counts).
var identifierRE = regexp.MustCompile(`[\p{L}_][\p{L}\p{N}_]*(?:[-.][\p{L}\p{N}_]+)*`)

// hasNumber reports whether s has a digit outside identifiers: the 2041 of «после INC-2041» is
// no time and no count (outside tester: «Когда произошёл INC-2041?» was answered by a sentence
// that only names the incident).
func hasNumber(s string) bool {
	if strings.IndexFunc(s, unicode.IsDigit) < 0 {
		return false
	}
	return strings.IndexFunc(identifierRE.ReplaceAllStringFunc(s, func(id string) string {
		if strings.IndexFunc(id, unicode.IsDigit) >= 0 {
			return ""
		}
		return id
	}), unicode.IsDigit) >= 0
}

// factKinds are the kinds of fact a question can ask for that a quote visibly states or not: a
// question that asks for one (asks) is not answered by quotes none of which states one (states),
// nor, where the kind has an other check, by quotes that each state it of something else (other:
// a count of another thing, counted.go; a date of another event, dated.go; nil when the check
// cannot tell for the question), with otherReason. Reasons repeat no question words: traces are
// shared.
var factKinds = []struct {
	kind         string
	asks, states func(string) bool
	reason       string
	other        func(question string, linked []Linked, lex *lexicon.Lexicon, scope textScope) func(quote string) bool
	otherReason  string
}{
	{kindCount, asksCount, statesCount, "the question asks how many and no verified quote states a count",
		countsOfOther, "the question asks how many of something and every verified quote counts something else"},
	{kindTime, asksTime, statesTime, "the question asks when and no verified quote states a time",
		datesOfOther, "the question asks when something happened and every verified quote dates something else"},
	{kindClock, asksClock, statesClock, "the question asks for a time of day and no verified quote states one", nil, ""},
}

// kindClock is what a question for a time of day asks for ("At what time of day did the fire
// start?", «В котором часу открывается склад?»): a clock time or a part of the day. A date alone
// does not answer it (a trial: "At what time of day did the dryer fire … start?" was answered by
// the sentence that gives its date).
const kindClock = "time of day"

// clockQuestionRE finds the phrases that ask for a time of day (folded: ё as е): "what time of
// day", "(at) what time did/does/was …", «в котором часу», «в какое время суток», «во сколько
// часов».
var clockQuestionRE = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:what time of (?:the )?day|(?:at )?what time (?:did|does|do|was|is|will|were|are)|` +
	`в котором часу|в какое время суток|во сколько часов)(?:[^\p{L}]|$)`)

// asksClock reports whether the question asks for a time of day: clockQuestionRE, or «во
// сколько» ("at what time": «Во сколько начинаются смены?») when it asks for no sum of money
// («Во сколько обошлась покупка?») and no ratio («во сколько раз»; voSkolko).
func asksClock(question string) bool {
	f := textnorm.FoldString(question)
	return clockQuestionRE.MatchString(f) || voSkolko(wordRE.FindAllString(f, -1)) == "time" && askedAmount(question) != kindMoney
}

// voSkolko reads the «сколько» of folded words: "time" when every one follows «во» ("at what
// time"), "ratio" when one is «во сколько раз» ("how many times more"), "" when one stands alone
// («сколько сотрудников»: how many) or there is none.
func voSkolko(words []string) string {
	out := ""
	for i, w := range words {
		if w != "сколько" {
			continue
		}
		if i == 0 || words[i-1] != "во" {
			return ""
		}
		if i+1 < len(words) && words[i+1] == "раз" {
			return "ratio"
		}
		out = "time"
	}
	return out
}

// clockRE is a time of day (folded): hours and minutes (21:40, 7.30 not followed by a further
// dotted number, which is a date), an hour with a.m./p.m. or o'clock, a part of the day ("in the
// morning", "at night", «утром», «ночью», «в полдень») or «в 3 часа».
var clockRE = regexp.MustCompile(`(?i)(?:^|[^\p{N}.:])(?:[01]?\d|2[0-3])[:.][0-5]\d(?:[^\p{N}.]|\.(?:[^\p{N}]|$)|$)|` +
	`\d{1,2}\s*(?:a\.?m\b|p\.?m\b|o'clock)|(?:^|[^\p{L}])(?:noon|midnight|morning|afternoon|evening|night|overnight|` +
	`утр[а-я]*|вечер[а-я]*|ночь[а-я]*|ночью|ночи|дн[её]м|полдень|полдня|полночь|полуночи|\d{1,2}\s+час(?:а|ов)?)(?:[^\p{L}]|$)`)

// statesClock reports whether s states a time of day (clockRE).
func statesClock(s string) bool {
	return clockRE.MatchString(textnorm.FoldString(s))
}
