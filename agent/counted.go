package agent

import (
	"strings"

	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// A "how many" question names what it counts ("How many doctors work at …", «Сколько сотрудников
// …»), and a quote that states a count of something else does not answer it: "410 beds" is no
// number of doctors, «120 тонн молока» no number of staff (the hospital and agro trial corpora:
// near misses passed the count check of factKinds on a count of the wrong thing). This is the
// answer-type check of question classification one level finer — the counted noun, not only "a
// number" (Li & Roth, COLING 2002, NUM:count) — and it refuses only when it can tell: every count
// in the quote is followed by a noun the lexicon knows and that is none of the question's counted
// words (nor near one of them, as in «штат — 45 сотрудников»).

// countedTerms returns the terms of what a "how many" / «сколько» question counts: its content
// words right after those words, at most three, up to the next function word ("How many task cards
// were …" → task, cards; «Сколько всего сотрудников работает …» → сотрудников, работает). nil when
// the question asks for no count (asksCount), names nothing after it, counts with a generic
// counter (genericCounter: people, times, units, or a unit of time), which any count may answer,
// or has a verb right after «сколько» («Сколько ждать …»: how long, not how many of a thing).
func countedTerms(question string, lex *lexicon.Lexicon, scope textScope) *questionTerms {
	if !asksCount(question) {
		return nil
	}
	words := wordRE.FindAllString(strings.ReplaceAll(textnorm.FoldString(question), "’", "'"), -1)
	start := -1
	for i, w := range words {
		if w == "сколько" || w == "many" && i > 0 && words[i-1] == "how" {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return nil
	}
	var phrase []string
	for _, w := range words[start:] {
		if textnorm.IsStopword(w) || numberRE.MatchString(w) {
			if len(phrase) > 0 || words[start-1] == "many" && w != "of" && w != "the" {
				break // "How many were arrested?" names nothing; "how many of the staff" does
			}
			continue // «Сколько всего сотрудников», «Сколько у компании сотрудников»
		}
		if genericCounter(w) {
			return nil
		}
		if len(phrase) == 0 && russianVerb(w) {
			return nil // «Сколько ждать …», «Сколько весит …»: how long or how much, not how many of a thing
		}
		phrase = append(phrase, w)
		if len(phrase) == 3 {
			break
		}
	}
	if len(phrase) == 0 {
		return nil
	}
	q := newQuestionTerms(strings.Join(phrase, " "), lex, scope)
	if len(q.terms) == 0 {
		return nil
	}
	return &q
}

// countsOfOther is factKinds' other check of counts: for a question that names what it counts
// (countedTerms), whether a quote counts only something else (countsOnlyOther); nil when it names
// nothing.
func countsOfOther(question string, _ []Linked, lex *lexicon.Lexicon, scope textScope) func(string) bool {
	counted := countedTerms(question, lex, scope)
	if counted == nil {
		return nil
	}
	qCyr := cyrillicShare(question) > 0.5
	return func(quote string) bool { return countsOnlyOther(quote, *counted, qCyr) }
}

// genericCounters are folded words that count anything: persons, times, pieces, and units of
// time (a duration is asked as "how many days", and «дней» is stated of any event).
var genericCounters = map[string]bool{
	"people": true, "person": true, "persons": true, "times": true, "time": true, "units": true, "unit": true,
	"items": true, "item": true, "pieces": true, "piece": true,
	"seconds": true, "minutes": true, "hours": true, "days": true, "weeks": true, "months": true, "years": true,
	"человек": true, "человека": true, "люди": true, "людей": true, "раз": true, "раза": true, "штук": true,
	"штуки": true, "шт": true, "единиц": true, "единицы": true,
	"секунд": true, "минут": true, "минуты": true, "часов": true, "часа": true, "дней": true, "дня": true,
	"суток": true, "недель": true, "недели": true, "месяцев": true, "месяца": true, "лет": true, "года": true,
}

// genericCounter reports whether a folded word is a generic counter (genericCounters).
func genericCounter(w string) bool { return genericCounters[w] }

// countsOnlyOther reports whether quote states one count at least and every count it states is of
// something other than counted: a number (digits, or a number word: countWordRE) followed by a
// content word that the lexicon can read in the question's language, with none of counted's terms
// within three words either side. A count followed by a function word, a generic counter or
// nothing, or by a word of the other language that the lexicon does not know, may count what is
// asked, so the quote is not judged. Years, dates, clock times and dotted numbers count nothing
// (as in statesCount).
func countsOnlyOther(quote string, counted questionTerms, questionCyrillic bool) bool {
	s := numberSignRE.ReplaceAllString(quote, " ")
	s = dottedNumberRE.ReplaceAllString(s, " ")
	s = countlessYearRE.ReplaceAllString(s, " ")
	s = clockTimeRE.ReplaceAllString(s, " ")
	words := wordRE.FindAllString(textnorm.FoldString(s), -1)
	counts := 0
	for i := 0; i < len(words); i++ {
		if !countToken(words[i]) {
			continue
		}
		j := i + 1
		for j < len(words) && countToken(words[j]) {
			j++ // «1 840», "two hundred"
		}
		counts++
		if j == len(words) || textnorm.IsStopword(words[j]) || genericCounter(words[j]) ||
			j+1 < len(words) && genericCounter(words[j+1]) { // «2 рабочих дня», "5 business days"
			return false
		}
		if cyrillicShare(words[j]) > 0.5 != questionCyrillic && counted.lex.Translate(words[j]) == nil {
			return false // another language's word the lexicon cannot read: it may be the counted thing
		}
		window := words[max(0, i-3):min(len(words), j+3)]
		if len(counted.stated(strings.Join(window, " "))) > 0 {
			return false
		}
		i = j
	}
	return counts > 0
}

// russianVerb reports whether a folded Russian word is a verb form: an infinitive (-ть, -ти,
// -чь, reflexive too) or a form russianVerbForm recognizes.
func russianVerb(w string) bool {
	for _, end := range []string{"ть", "ти", "чь", "ться", "тись", "чься"} {
		if strings.HasSuffix(w, end) && len([]rune(w)) > len([]rune(end))+1 {
			return true
		}
	}
	return russianVerbForm(w)
}

// countToken reports whether a folded word is a number: digits (not a code that starts with a
// letter, INC-2041) or a number word (countWordRE).
func countToken(w string) bool {
	if w == "" {
		return false
	}
	if w[0] >= '0' && w[0] <= '9' {
		return true
	}
	return countWordRE.MatchString(w)
}
