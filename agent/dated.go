package agent

import (
	"regexp"
	"slices"
	"strings"

	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// A "when" question dates an event ("When was Helix Cable Systems founded?", «Когда родилась
// Ольга Ветрова?», "When did she get her type rating?"), and a quote that dates another event of
// the same subject does not answer it: "The cable was supplied by Helix Cable Systems in 2014" is
// no founding year, «заведующая отделением с 2019 года» no birth date (near misses of seven trial
// corpora passed the time check of factKinds on a date of something else). This is the time check
// one level finer, as counted.go is for counts: the quote that states a time must also state the
// event — one of the question's words that are neither the subject's name nor a word any dated
// sentence has ("year", "was", "become") — in either language. It refuses only when it can tell:
// a question with no such word, or a quote in the other language where one of them has no
// translation, is not judged.

// eventTerms returns the terms of what a "when" question dates: its terms (newQuestionTerms) less
// those of names — the words of the entities the question links, words in quotation marks, words
// with a capital letter after the first, acronyms, codes and words with a digit — and less
// eventlessTerms ("year", "date", "did", "become", «году», «стал»). nil when the question asks no
// time (asksTime) or nothing is left.
func eventTerms(question string, linked []Linked, lex *lexicon.Lexicon, scope textScope) *questionTerms {
	if !asksTime(question) {
		return nil
	}
	drop := map[string]bool{}
	for _, l := range linked {
		for _, t := range textnorm.SearchTerms(l.Surface) {
			drop[t] = true
		}
	}
	for _, loc := range quotedNameRE.FindAllStringIndex(question, -1) {
		for _, t := range textnorm.SearchTerms(question[loc[0]:loc[1]]) {
			drop[t] = true
		}
	}
	codes := codeSpans(question)
	for _, c := range codes {
		for _, t := range textnorm.SearchTerms(question[c[0]:c[1]]) {
			drop[t] = true
		}
	}
	for i, w := range textnorm.Words(question) {
		inCode := slices.ContainsFunc(codes, func(c [2]int) bool { return w.Start >= c[0] && w.End <= c[1] })
		if inCode || w.AllUpper && len([]rune(w.Text)) > 1 || i > 0 && w.Upper || strings.ContainsFunc(w.Text, isDigit) {
			for _, t := range textnorm.SearchTerms(w.Text) {
				drop[t] = true
			}
		}
	}
	q := newQuestionTerms(question, lex, scope).only(func(t string) bool {
		return !drop[t] && !eventlessTerms[t] && !strings.ContainsFunc(t, isDigit)
	})
	if len(q.terms) == 0 {
		return nil
	}
	return &q
}

// predicateTerms returns event (eventTerms) restricted to the terms of the question's passive
// predicate (datedPredicate), nil when it has none among them. The predicate names the event; the
// other words name what it happened to, which a sentence about another event of the same thing
// repeats: «с 2012 года» of the orchestra's conductor states «оркестра» but no «распущен».
func predicateTerms(question string, event *questionTerms) *questionTerms {
	pred := datedPredicate(question)
	if event == nil || len(pred) == 0 {
		return nil
	}
	q := event.only(func(t string) bool { return slices.Contains(pred, t) })
	if len(q.terms) == 0 {
		return nil
	}
	return &q
}

// ruShortParticipleRE is a Russian short passive participle (folded): «распущен», «основана»,
// «подписаны», «открыт», «принято».
var ruShortParticipleRE = regexp.MustCompile(`^[а-я]{3,}(?:[аяе]н|[ыиуя]т)[аоы]?$`)

// passiveAuxiliaries open a passive predicate: «был распущен», "was disbanded".
var passiveAuxiliaries = map[string]bool{"был": true, "была": true, "было": true, "были": true,
	"was": true, "were": true, "is": true, "are": true, "been": true}

// datedPredicate returns the search terms of a "when" question's passive predicate: in Russian
// the short participle right after «был/была/было/были» («был распущен», «была основана»; not
// «было устранить» or «был директором»: ruShortParticipleRE), in English the first past
// participle after "was/were/is/are/been" — a word in -ed of five letters or more, an irregular
// form ("paid", "built") or "born" ("When was the fire claim paid in full?"). nil when the
// question has none ("When did she join?": its verb is not marked).
func datedPredicate(question string) []string {
	words := textnorm.Words(question)
	for i, w := range words {
		if !passiveAuxiliaries[strings.ToLower(w.Text)] {
			continue
		}
		if hasCyrillic(w.Text) {
			if i+1 < len(words) && !words[i+1].Upper && ruShortParticipleRE.MatchString(textnorm.FoldString(words[i+1].Text)) {
				return textnorm.SearchTerms(words[i+1].Text)
			}
			continue
		}
		for _, v := range words[i+1:] {
			lv := strings.ToLower(v.Text)
			_, irregular := irregularBase[lv]
			if !v.Upper && (strings.HasSuffix(lv, "ed") && len(lv) >= 5 || irregular && !verbBases[lv] || lv == "born") {
				return textnorm.SearchTerms(v.Text)
			}
		}
	}
	return nil
}

// datesOfOther is factKinds' other check of times: for a "when" question with event terms
// (eventTerms), whether a quote dates only another event (datesOnlyOther); nil when it has none.
func datesOfOther(question string, linked []Linked, lex *lexicon.Lexicon, scope textScope) func(string) bool {
	event := eventTerms(question, linked, lex, scope)
	if event == nil {
		return nil
	}
	qCyr := cyrillicShare(question) > 0.5
	pred := predicateTerms(question, event)
	return func(quote string) bool {
		// The predicate alone decides in the question's language, where other words for it are
		// found by pivoting (datesOnlyOther); across languages a participle's translations are
		// too few ("signed" / «подписан», "postponed" / «перенести»), so every event term counts.
		if pred != nil && cyrillicShare(quote) > 0.5 == qCyr {
			return datesOnlyOther(quote, *pred, qCyr)
		}
		return datesOnlyOther(quote, *event, qCyr)
	}
}

// quotedNameRE is a name in quotation marks: «Белая сова», "Ladoga Treasures".
var quotedNameRE = regexp.MustCompile(`«[^«»]*»|"[^"]*"|“[^“”]*”`)

// isDigit reports whether r is an ASCII digit.
func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// eventlessTerms are the terms of words that a "when" question uses whatever event it dates: the
// asked unit of time, auxiliaries and the light verbs of "get a rating", "become head", «стать
// директором» — the noun after them names the event.
var eventlessTerms = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`when year years date dates month months century decade day days time exactly
		did does do was were is are be been get gets got become became becomes take took taken make made give gave given first
		когда году года год дату дата даты числа число месяце месяца веке века день дня точно впервые
		был была было были стал стала стало стали становился становилась`) {
		for _, t := range textnorm.SearchTerms(w) {
			m[t] = true
		}
	}
	return m
}()

// datesOnlyOther reports whether quote states a time (statesTime) and none of event's terms
// (eventTerms), in its own words or in words of the same language that share a translation with
// one: the time it states is of another event. A quote in the other language than the question
// (questionCyrillic) is judged only when every event term has a translation the lexicon knows;
// otherwise the event may be stated in words the check cannot read.
func datesOnlyOther(quote string, event questionTerms, questionCyrillic bool) bool {
	if !statesTime(quote) || len(event.stated(quote)) > 0 {
		return false
	}
	f := factsOf(event.scope, quote, event.lex)
	if cyrillicShare(quote) > 0.5 == questionCyrillic {
		// A word of the same language with a translation in common may name the event in other
		// words («вступила» and «присоединились» are both "join"): paraphrase by pivoting through
		// the other language (Bannard & Callison-Burch, ACL 2005), over the usual senses only.
		back := f.back[scriptIndex(questionCyrillic)]()
		for _, t := range event.terms {
			tr := event.tr[t]
			if slices.ContainsFunc(tr[:min(len(tr), backTranslations)], func(k string) bool { return slices.Contains(back, k) }) {
				return false
			}
		}
		return true
	}
	keys, back := f.keys(), f.back[scriptIndex(!questionCyrillic)]()
	for _, t := range event.terms {
		if len(event.tr[t]) == 0 {
			return false
		}
		// The dictionary's lemmas of an inflected word are not always the word's own («основана»
		// is read as «основа», "basis"): a translation that shares its first five letters with a
		// word of the quote, either way, may be the event.
		for k := range keys {
			if slices.ContainsFunc(event.tr[t], func(tr string) bool { return sharedStem(tr, k) }) {
				return false
			}
		}
		if slices.ContainsFunc(back, func(k string) bool { return sharedStem(t, k) }) {
			return false
		}
	}
	return true
}

// sharedStem reports whether two match keys are equal or share their first five letters.
func sharedStem(a, b string) bool {
	if a == b {
		return true
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n >= 5
}
