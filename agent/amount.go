package agent

import (
	"regexp"
	"slices"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Amount kinds refine "number" (askFor) the way the answer types of question classification do
// (NUM:money, NUM:perc in Li & Roth, "Learning Question Classifiers", COLING 2002). Both rank
// evidence units; money also serves a near miss check (Answerer): a sentence on the asked subject
// that states no sum ("the rent is reviewed every year", "the price is still being negotiated")
// does not answer "what is the fee", however many of the question's words it shares.
// Percentages are often written in words («более половины»), so none is required.
const (
	kindMoney   = "money"
	kindPercent = "percent"
)

// moneyNouns are stems of nouns that name a sum of money, English and Russian (folded: lower case,
// ё as е). They count only as the head of what the question asks for (askedAmount), so «за счёт
// бюджета» in "which certificate did … get at the expense of the budget" asks for no sum. Nouns
// that also name something else are left out: «премия» and "premium" are awards and tiers too,
// and a discount («скидка») is as often a share as a sum.
var moneyNouns = []string{
	// English
	"price", "cost", "fee", "salar", "wage", "pay", "payment", "compensation", "reimburse", "budget", "penalt",
	"fine", "bonus", "allowance", "stipend", "rent", "charge", "payout", "remuneration", "earning",
	"income", "revenue", "money", "expense", "spend", "refund", "surcharg", "advance", "premium",
	// Russian
	"цен", "стоимост", "плат", "оплат", "доплат", "выплат", "зарплат", "оклад", "штраф",
	"компенсац", "возмещ", "бюджет", "сумм", "вознагражд", "гонорар", "аренд", "пособи", "надбавк",
	"неустойк", "доход", "выручк", "взнос", "пошлин", "стипенди", "аванс",
}

// notMoney are words that start like a money noun and are not one («платформа», "feed").
var notMoney = []string{"платформ", "платье", "платк", "платок", "суммариз", "feed", "feel", "finish", "finite",
	"finer"}

// measureNouns head a noun phrase whose next word says what is measured («размер штрафа», «вилка
// оклада», "the amount of the fine", "the rate of pay"; "salary range" needs no help).
var measureNouns = map[string]bool{
	"размер": true, "размеры": true, "вилка": true, "вилку": true, "вилки": true, "уровень": true,
	"диапазон": true, "величина": true, "величину": true, "amount": true, "size": true, "range": true,
	"level": true, "band": true, "rate": true,
}

// moneyVerbs follow «сколько» / "how much" when the question asks what something costs or pays.
var moneyVerbs = []string{"стои", "стоят", "плат", "доплач", "выплач", "выплат", "оплат", "заплат", "зарабат", "трат", "потрат", "обойд", "обходит", "обошл", "обошел",
	"cost", "pay", "paid", "charge", "earn", "spend", "spent", "reimburse", "owe",
	// a price named by who gives it ("How much did the supplier quote / invoice / bill?" —
	// outside tester, stop 61: answered by a sentence without a sum). "quote" is not "quota";
	// "billed", not "billion".
	"quote", "invoic", "billed"}

// whWords open the noun phrase of what a question asks for; the value says whether it is Russian.
var whWords = map[string]bool{
	"какой": true, "какая": true, "какую": true, "какое": true, "какие": true, "каков": true, "какова": true,
	"каково": true, "каковы": true, "каким": true, "какого": true,
	"what": false, "what's": false, "which": false,
}

// englishGlue are the words between "what" and its noun phrase ("what is the", "what's our").
var englishGlue = map[string]bool{"is": true, "are": true, "was": true, "were": true, "the": true, "a": true,
	"an": true, "our": true, "my": true, "your": true, "their": true, "its": true}

// englishStop end an English noun phrase: prepositions, auxiliaries, relative words.
var englishStop = map[string]bool{"of": true, "for": true, "does": true, "do": true, "did": true, "is": true,
	"are": true, "was": true, "were": true, "will": true, "can": true, "could": true, "should": true, "would": true,
	"in": true, "on": true, "per": true, "to": true, "that": true, "which": true, "with": true, "at": true, "by": true,
	"from": true, "under": true, "if": true, "when": true, "has": true, "have": true, "had": true, "must": true,
	"may": true, "and": true, "or": true}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}'-]+`)

// askedAmount returns kindPercent when the question asks for a percentage, kindMoney when it asks
// for a sum of money, else "". A question asks for money when the head of its wh-phrase is a
// money noun («какая ежемесячная плата», "what monthly fee", «размер штрафа»), when «сколько» /
// "how much" goes with a money verb within the next six words («сколько стоит», "how much is
// paid"), or "how much" with a money noun ("how much compensation"; "how big", "how large" and
// "how high" too: "How big is the advance?"). A yes/no question ("does the
// company pay for lunches?") asks for no amount.
func askedAmount(question string) string {
	f := strings.ReplaceAll(textnorm.FoldString(question), "’", "'")
	words := wordRE.FindAllString(f, -1)
	asks := func(i int) bool { // words[i] opens a question for a quantity or a value
		w := words[i]
		_, wh := whWords[w]
		return wh || w == "сколько" || (w == "much" || w == "many" || sizeWords[w]) && i > 0 && words[i-1] == "how"
	}
	for i := range words {
		if !asks(i) {
			continue
		}
		for _, v := range words[i+1 : min(len(words), i+4)] {
			if strings.HasPrefix(v, "процент") || strings.HasPrefix(v, "percent") {
				return kindPercent
			}
		}
	}
	for i, w := range words {
		if russian, wh := whWords[w]; wh {
			if amountHead(words[i+1:], russian) {
				return kindMoney
			}
			continue
		}
		if asks(i) && w != "many" {
			// «сколько» is also "how many": «сколько премий» counts awards, so after it only a
			// money verb or «денег» asks for a sum; "how much" + a noun is a mass ("how much
			// compensation"). The verb may close a long clause ("How much did the repair of the
			// GR-400 antenna cost?"): it is looked for up to the clause's end.
			for j, v := range words[i+1 : clauseEnd(f, words, i)] {
				if moneyWord(v, moneyVerbs) || v == "денег" || (w == "much" || sizeWords[w]) && j < 6 && moneyWord(v, moneyNouns) {
					return kindMoney
				}
			}
		}
	}
	return ""
}

// sizeWords after "how" ask for a size, which a money noun makes a sum ("How big is the advance?",
// "how high is the fee": a trial's question of that kind passed without a sum in the quotes).
var sizeWords = map[string]bool{"big": true, "large": true, "high": true}

// clauseBreakWords open another clause: conjunctions and relative words.
var clauseBreakWords = map[string]bool{"and": true, "or": true, "but": true, "that": true, "which": true, "who": true,
	"whom": true, "whose": true, "where": true, "when": true, "while": true, "because": true, "if": true,
	"и": true, "а": true, "но": true, "или": true, "если": true, "когда": true, "чтобы": true, "потому": true}

// clauseEnd is the index in words (wordRE's words of the folded question f, in order) past the
// last word of the clause words[i] opens: before the next conjunction or relative word, or the
// next comma, semicolon, colon or question mark; at most 12 words on.
func clauseEnd(f string, words []string, i int) int {
	end := min(len(words), i+13)
	locs := wordRE.FindAllStringIndex(f, -1)
	for j := i + 1; j < end; j++ {
		if clauseBreakWords[words[j]] || strings.ContainsAny(f[locs[j-1][1]:locs[j][0]], ",;:?!") ||
			strings.HasPrefix(words[j], "котор") {
			return j
		}
	}
	return end
}

// amountHead reports whether the noun phrase that opens words names a sum of money: in Russian,
// the first word that is not an adjective (and the word after it when that one is a measure
// noun); in English, every word up to the first preposition, auxiliary or relative word.
func amountHead(words []string, russian bool) bool {
	if !russian {
		i := 0
		for i < len(words) && englishGlue[words[i]] {
			i++
		}
		for n := 0; i < len(words) && n < 5; i, n = i+1, n+1 {
			if words[i] == "of" && i > 0 && measureNouns[words[i-1]] {
				continue // "the rate of pay", "the amount of the fine"
			}
			if englishStop[words[i]] {
				break
			}
			if moneyWord(words[i], moneyNouns) {
				return true
			}
		}
		return false
	}
	for i, w := range words {
		if i >= 5 {
			break
		}
		if russianAdjective(w) {
			continue
		}
		if moneyWord(w, moneyNouns) {
			return true
		}
		return measureNouns[w] && i+1 < len(words) && moneyWord(words[i+1], moneyNouns)
	}
	return false
}

// russianAdjective reports whether w ends like a Russian adjective or participle in any case
// («ежемесячная», «годовую», «максимального»).
func russianAdjective(w string) bool {
	if !cyrillicText(w) || len([]rune(w)) < 5 {
		return false
	}
	for _, e := range []string{"ый", "ий", "ой", "ая", "яя", "ое", "ее", "ые", "ие", "ую", "юю", "ого", "его", "ому", "ему", "ым", "им", "ых", "их", "ыми", "ими"} {
		if strings.HasSuffix(w, e) {
			return true
		}
	}
	return false
}

// moneyWord reports whether w starts with one of stems (and is not in notMoney). Stems of three
// letters match only whole words or their inflections (a stem of «цен» matches «цена», «цену»,
// not «ценность»).
func moneyWord(w string, stems []string) bool {
	for _, s := range notMoney {
		if strings.HasPrefix(w, s) {
			return false
		}
	}
	for _, s := range stems {
		if !strings.HasPrefix(w, s) {
			continue
		}
		if len([]rune(s)) > 3 || len([]rune(w))-len([]rune(s)) <= 2 {
			return true
		}
	}
	return false
}

var (
	// currencyRE: a currency sign, code or word next to an amount; in Russian the word may follow
	// its country's adjective («60 000 сингапурских долларов», «5 000 швейцарских франков»).
	// (Go's \b is ASCII-only, so the Russian words follow the number instead.)
	currencyRE = regexp.MustCompile(`(?i)[₽$€£¥]|\b(rub|usd|eur|gbp|cny|chf|jpy|sgd|dollars?|euros?|pounds?|roubles?|rubles?|yuan|yen|francs?|kron(?:a|e|or|er))\b|\d[\d\s\x{00a0}.,]*((тыс|млн|млрд|миллион|миллиард|тысяч)\p{L}*\.?\s*)?(\p{L}+ск\p{L}{1,3}\s+)?(руб|долл|евро|юан|фунт|тенге|франк|иен|йен|крон(?:[аыуе]|ой|ами|ах)?(?:[^\p{L}]|$))`)
	// groupedNumberRE: an amount written with digit groups (210 000; 1,500,000).
	groupedNumberRE = regexp.MustCompile(`\d{1,3}(?:[\s\x{00a0}\x{202f},]\d{3})+\b`)
	// shareRE: a percentage or a share in words («от шести до девяти процентов», «более половины»,
	// "a third"), which answers "what percentage" as well as a figure does.
	shareRE   = regexp.MustCompile(`(?i)процент(а|ов)?([^\p{L}]|$)|\bper\s?cent\b|половин|трет(ь|и)\b|четверт(ь|и)\b|\bhalf\b|\bthirds?\b|\bquarters?\b`)
	countedRE = regexp.MustCompile(`^[\s\x{00a0}]*\p{L}`)
	percentRE = regexp.MustCompile(`(?i)\d\s*%|\d[\d.,]*\s*(процент|percent|per cent|п\.\s?п\.|pp\b)`)
)

// hasAmount reports whether s states an amount of the kind. A percentage is a number with "%" or
// «процент» / "percent", or a share in words (shareRE). A sum of money is a number with a
// currency; or a percentage followed within five words by a money noun ("15% of the annual
// salary", «50% стоимости»); or a number in digit groups that no word follows (a table cell,
// "210 000 – 290 000") in a text that names money or names nothing else («12 000 клиентов»
// counts customers; a row «Машин в сутки | до 2 300» counts machines). For a table row, pass its
// header too (quotesAmount does).
func hasAmount(s, kind string) bool {
	if kind == kindPercent && shareRE.MatchString(s) {
		return true
	}
	if !numberRE.MatchString(s) {
		return false
	}
	percent := percentRE.MatchString(s)
	if kind != kindMoney {
		return percent
	}
	if currencyRE.MatchString(s) {
		return true
	}
	if percent {
		// "15% of the annual salary", «50% стоимости», «20% от оклада»; and a sum set as a share
		// of another, its noun right before: "a penalty of 3% of the shipment value", «штраф в
		// размере 5%», "the fee is 2%" (a trial's contract).
		for _, m := range percentRE.FindAllStringIndex(s, -1) {
			after := wordRE.FindAllString(textnorm.FoldString(s[m[1]:]), 5)
			for _, w := range after {
				if moneyWord(w, moneyNouns) {
					return true
				}
			}
			if moneyBefore(wordRE.FindAllString(textnorm.FoldString(s[:m[0]]), -1)) {
				return true
			}
		}
	}
	namesMoney, namesOther := false, false
	for _, w := range wordRE.FindAllString(textnorm.FoldString(s), -1) {
		switch {
		case moneyWord(w, moneyNouns):
			namesMoney = true
		case len([]rune(w)) >= 4 && !numberRE.MatchString(w):
			namesOther = true
		}
	}
	for _, m := range groupedNumberRE.FindAllStringIndex(s, -1) {
		if !countedRE.MatchString(s[m[1]:]) && (namesMoney || !namesOther) {
			return true
		}
	}
	return false
}

// percentGlue are the words between a money noun and the share that sets it: "of", "is", «в
// размере», «составляет».
var percentGlue = map[string]bool{"of": true, "is": true, "was": true, "be": true, "will": true, "at": true,
	"equal": true, "equals": true, "to": true, "в": true, "размере": true, "составляет": true, "составит": true,
	"составлял": true, "составляла": true, "равен": true, "равна": true, "—": true}

// moneyBefore reports whether the words before a share (folded) end in a money noun followed
// by glue words only ("a penalty of", «неустойка в размере», "the fee is"): the share sets a
// sum. "The share of flagged payments grew from" is no such phrase.
func moneyBefore(words []string) bool {
	for i := len(words) - 1; i >= 0 && i >= len(words)-4; i-- {
		switch w := words[i]; {
		case moneyWord(w, moneyNouns):
			return true
		case !percentGlue[w] && !numberRE.MatchString(w):
			return false
		}
	}
	return false
}

// quotesAmount reports whether a verified quote of claims states an amount of the kind about what
// the question asks. A quote that is a table row is read with its table's header row (frags give
// the cited chunks), which says what the row's numbers are: «| Стажёр | 60 000 – 80 000 |» under
// «| Грейд | Вилка оклада |». When subject is set (subjectTerms of the question), the quote, its
// chunk's title or its section must also state one of them: a price-list row of another service
// («| Вакцинация | 2 200 ₽ |») states a sum, not the fine the question asks about. When other is
// set, a quote it reports (a sum of another place, placesOfOther; an estimate, estimatedSum) does
// not count.
func quotesAmount(claims []ariadne.Claim, frags []Fragment, kind string, subject *questionTerms, other func(string) bool) bool {
	for _, c := range claims {
		for _, cit := range c.Citations {
			text, context := cit.Quote, ""
			for _, f := range frags {
				if f.Chunk.ID != cit.ChunkID {
					continue
				}
				if row := strings.TrimSpace(cit.Quote); strings.HasPrefix(row, "|") {
					if h := tableHeaders(f.Chunk.Text)[row]; h != "" && h != row {
						text = h + "\n" + text
					}
				}
				context = f.Chunk.Title + " " + f.Chunk.HeadingPath()
				break
			}
			if hasAmount(text, kind) && (subject == nil || len(subject.stated(text+"\n"+context)) > 0) && (other == nil || !other(cit.Quote)) {
				return true
			}
		}
	}
	return false
}

// subjectTerms returns the terms of the question other than those that ask for a sum (money nouns
// and verbs: "fine", «стоит», "how much") and numbers, which a quote stating the sum must share
// with it; nil when the question has no other term.
func subjectTerms(question string, lex *lexicon.Lexicon, scope textScope) *questionTerms {
	f := strings.ReplaceAll(textnorm.FoldString(question), "’", "'")
	var keep []string
	for _, w := range wordRE.FindAllString(f, -1) {
		if !moneyWord(w, moneyNouns) && !moneyWord(w, moneyVerbs) && w != "денег" {
			keep = append(keep, w)
		}
	}
	q := newQuestionTerms(strings.Join(keep, " "), lex, scope)
	// A number is no subject: "the GR-400 antenna" is not stated by «400 МГц» of another sentence.
	q.terms = slices.DeleteFunc(slices.Clone(q.terms), func(t string) bool {
		return strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' }) < 0
	})
	if len(q.terms) == 0 {
		return nil
	}
	return &q
}

// kindCount is what "how many" / «сколько» asks for when it asks for no sum of money: a count.
const kindCount = "count"

// countWordRE finds a number written as words or a quantifier, English and Russian (folded: ё
// as е), in the forms a count takes: "twelve", «двое», «трёх», «сотни», "several", «несколько»,
// «ни одного». Lenient on purpose: it only tells a quote that states some count from one that
// states none.
var countWordRE = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:` +
	`one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[a-z]+teen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundreds?|thousands?|millions?|billions?|dozens?|several|many|few|no|none|half|both|single|once|twice|` +
	`один|одна|одно|одного|одной|одному|одним|одном|одну|одни|одних|одними|два|две|двух|двум|двумя|двое|двоих|три|трех|трем|тремя|трое|троих|` +
	`четыре|четырех|четырем|четырьмя|четверо|пять|пяти|пятью|пятеро|шесть|шести|шестеро|семь|семи|восемь|восьми|девять|девяти|` +
	`десять|десяти|[а-я]+надцать|[а-я]+надцати|двадцать|двадцати|тридцать|тридцати|сорок|сорока|пятьдесят|сто|ста|сотни|сотен|сотня|` +
	`тысяча|тысячи|тысяч|миллион[а-я]*|миллиард[а-я]*|дюжин[а-я]*|половин[а-я]*|несколько|нескольких|много|многие|многих|мало|немного|оба|обе|обоих|обеих|ни одного|ни одной|единственн[а-я]*` +
	`)(?:[^\p{L}]|$)`)

// asksCount reports whether the question asks "how many" / «сколько» of something that is not a
// sum of money (askedAmount answers those) — «во сколько» alone asks a time of day (asksClock).
func asksCount(question string) bool {
	f := textnorm.FoldString(question)
	words := wordRE.FindAllString(f, -1)
	russian := slices.Contains(words, "сколько") && voSkolko(words) != "time" // «во сколько» alone asks what time (asksClock)
	return (strings.Contains(" "+f, " how many ") || russian) && askedAmount(question) != kindMoney &&
		!yearsQuestionRE.MatchString(f)
}

// yearsQuestionRE asks how many years ("how many years", «сколько лет»): a duration, which a year
// answers ("a client since 2019"), so it is no question for a count.
var yearsQuestionRE = regexp.MustCompile(`(?:^|[^\p{L}])(?:how many years|сколько лет)(?:[^\p{L}]|$)`)

// statesCount reports whether s states a count: a digit or a number word (countWordRE). A number
// with two dots or more — a version (Kafka 3.6.1), a date (12.09.2024), an IP address — counts
// nothing: «Сколько серверов в кластере?» is not answered by «Кластер работает на Kafka 3.6.1»;
// nor does a year or a day of a month (countlessYearRE: "since 2022", «в 2021 году», "14 February"):
// "How many employees does X have?" is not answered by "X has been our client since 2022".
func statesCount(s string) bool {
	s = numberSignRE.ReplaceAllString(s, " ")
	s = dottedNumberRE.ReplaceAllString(s, " ")
	s = countlessYearRE.ReplaceAllString(s, " ")
	s = clockTimeRE.ReplaceAllString(s, " ")
	return hasNumber(s) || countWordRE.MatchString(textnorm.FoldString(s))
}

// countlessYearRE matches a year after a preposition of time or before «год» / "year" (1000–2099), and a
// day of a month written with the month's name, English or Russian, with its year — or a range of
// days of one month ("from 10 to 13 March", «с 10 по 13 марта», "10–13 March": outside tester,
// stop 60, a question for how many programmes were ordered was answered by the rehearsal dates).
var countlessYearRE = regexp.MustCompile(`(?i)(?:\b(?:since|in|until|till|by|from|after|before)|(?:^|\s)(?:с|со|в|во|до|после|к|по))\s+(?:1\d{3}|20\d{2})\b|` +
	`\b(?:1\d{3}|20\d{2})(?:\s*(?:г\.|год[а-я]*|years?))|` +
	`\b(?:\d{1,2}(?:st|nd|rd|th)?\s*(?:-|–|—|to|and|until|till|по|и|до)\s*)?\d{1,2}(?:st|nd|rd|th)?\s+(?:January|February|March|April|May|June|July|August|September|October|November|December|` +
	`января|февраля|марта|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря)(?:\s+(?:1\d{3}|20\d{2}))?|` +
	`\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+(?:1\d{3}|20\d{2}))?`)

// clockTimeRE matches a time of day — 9:00, "9 am", «с девяти утра», «до шести вечера» — which
// counts nothing: "How many employees work in the office?" is not answered by «Офис открыт с
// девяти утра».
var clockTimeRE = regexp.MustCompile(`(?i)\b\d{1,2}:\d{2}\b|\b\d{1,2}\s*(?:a\.?m\.?|p\.?m\.?)(?:[^\p{L}]|$)|\bo'clock\b|` +
	`[\p{L}\d]+\s+(?:утра|вечера|ночи)(?:[^\p{L}]|$)`)

// numberSignRE matches a number after a number sign — «лицензия СИ № 4127», "licence No. 4127",
// "#12" — which names a thing and counts nothing (trial 70: "How many employees does the insurer
// have?" was answered by its licence number).
var numberSignRE = regexp.MustCompile(`(?:№|(?:^|[^\p{L}])No\.|#)\s*\d+(?:[-/]\d+)*`)

// dottedNumberRE matches numbers of three or more dot-separated parts.
var dottedNumberRE = regexp.MustCompile(`\d+(?:\.\d+){2,}`)
