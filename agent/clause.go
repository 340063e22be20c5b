package agent

import (
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

// mainClauseTerms returns the terms of a question's main clause — its words before the first
// relative clause — when it has one: "Who stands in during vacations for the engineer who
// reloaded the readings after INC-7?" asks {stands, vacations, engineer} of the entity the
// relative clause describes by {reloaded, readings, INC-7}. A marker opens a clause only after
// a word with a term ("In which city …", «Кто …» open the question instead). A term the
// relative clause repeats is left out: it is said of both. Nil without a relative clause.
func mainClauseTerms(question string) map[string]bool {
	words := textnorm.Words(question)
	for i, w := range words {
		if !relativeMarkers[strings.ToLower(w.Text)] {
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
