package agent

import (
	"regexp"
	"strings"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// relativeMarkers are the words that open a relative clause in English and Russian ("the team
// that delivers X", "the engineer who reloaded …", «клиента, чей сервис …», «в команде человека,
// который руководил …», «тот, кто …»). Lower case.
var relativeMarkers = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`who whom whose which that where
		кто который которая которое которые которого которой которому которым которых которую которыми котором
		чей чья чьё чье чьи чьего чьей чьему чьим чьих чью чьею где куда откуда`) {
		m[w] = true
	}
	return m
}()

// participleRE is a Russian active or passive participle (folded): «пострадавший», «работающего»,
// «указанный», «основанного». After a comma it opens a participial clause, which describes a
// noun as a relative clause does («проект, пострадавший от INC-7»).
var participleRE = regexp.MustCompile(`^[а-я]{3,}(?:вш|ющ|ящ|ущ|ащ|енн|анн)(?:ий|ая|ое|ие|его|ей|ему|им|ими|их|ую|ем|ый|ого|ой|ом|ые|ых|ыми)$`)

// conjunctions join two questions: "Who leads X, and who tests it?" has no relative clause.
var conjunctions = map[string]bool{"and": true, "or": true, "but": true, "а": true, "и": true, "или": true, "но": true}

// opensClause reports whether the word words[i] opens a relative clause: a relative pronoun
// (relativeMarkers) not after a conjunction, or a Russian participle right after a comma
// (participleRE).
func opensClause(question string, words []textnorm.Token, i int) bool {
	w := strings.ToLower(words[i].Text)
	if relativeMarkers[w] {
		return i == 0 || !conjunctions[strings.ToLower(words[i-1].Text)]
	}
	return i > 0 && strings.TrimSpace(question[words[i-1].End:words[i].Start]) == "," && participleRE.MatchString(textnorm.FoldString(w))
}

// mainClauseTerms returns the terms of a question's main clause — its words before the first
// relative clause — when it has one: "Who stands in during vacations for the engineer who
// reloaded the readings after INC-7?" asks {stands, vacations, engineer} of the entity the
// relative clause describes by {reloaded, readings, INC-7}. A marker opens a clause only after
// a word with a term ("In which city …", «Кто …» open the question instead), and so does a
// Russian participle after a comma (opensClause). A term the relative clause repeats is left
// out: it is said of both. Nil without a relative clause.
func mainClauseTerms(question string) map[string]bool {
	words := textnorm.Words(question)
	for i, w := range words {
		if !opensClause(question, words, i) {
			continue
		}
		head := map[string]bool{}
		for _, t := range textnorm.SearchTerms(question[:w.Start]) {
			head[t] = true
		}
		if len(head) == 0 {
			continue
		}
		for _, t := range textnorm.SearchTerms(question[words[i].Start:]) {
			delete(head, t)
		}
		return head
	}
	return nil
}
