package agent

import (
	"regexp"
	"slices"
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

// interrogatives are the words that ask a question in English and Russian (lower case); the
// first of them in a question is its own, not a relative clause's.
var interrogatives = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`who whom whose which what where when why how
		кто кого кому кем ком что чего чему чем какой какая какое какие какого какому каким каком каких какую
		чей чья чьё чье чьи чьего чьей чьему чьим чьих чью сколько где куда откуда когда почему зачем как ли`) {
		m[w] = true
	}
	return m
}()

// auxiliaries open an English yes/no question ("Is the engineer who … on call?"): its first word
// asks, so a later "who" opens a relative clause.
var auxiliaries = map[string]bool{"is": true, "are": true, "was": true, "were": true, "do": true, "does": true,
	"did": true, "has": true, "have": true, "had": true, "can": true, "could": true, "will": true, "would": true,
	"should": true, "may": true, "might": true, "must": true}

// mainClauseTerms returns the terms of a question's main clause when a clause describes the entity
// it asks about: "Who stands in during vacations for the engineer who reloaded the readings after
// INC-7?" asks {stands, vacations, engineer} of the entity the relative clause describes by
// {reloaded, readings, INC-7}. The main clause starts at the question's own interrogative (the
// first of interrogatives, or the first word of a question opened by an auxiliary) and ends where a
// relative clause opens after it (opensClause: a relative pronoun, or a Russian participle after a
// comma); a phrase put before the interrogative describes too ("At the client hit by the ingestion
// lag, who approves changes to the alerts?" asks {approve, changes, alerts}). Without an
// interrogative, a marker opens a clause only after a word with a term. A term the describing
// parts repeat is left out: it is said of both. Nil when nothing describes the asked entity.
func mainClauseTerms(question string) map[string]bool {
	words := textnorm.Words(question)
	q, start := -1, 0 // the interrogative's index; where the main clause starts
	for i, w := range words {
		lw := strings.ToLower(w.Text)
		if i == 0 && auxiliaries[lw] || interrogatives[lw] {
			q = i
			if len(textnorm.SearchTerms(question[:w.Start])) > 0 {
				start = w.Start // a fronted phrase describes
			}
			break
		}
	}
	main := func(end int) map[string]bool {
		head := map[string]bool{}
		for _, t := range textnorm.SearchTerms(question[start:end]) {
			head[t] = true
		}
		for _, t := range textnorm.SearchTerms(question[:start] + " " + question[end:]) {
			delete(head, t)
		}
		return head
	}
	for i, w := range words {
		if i <= q || !opensClause(question, words, i) {
			continue
		}
		if head := main(w.Start); len(head) > 0 {
			return head
		}
	}
	if start > 0 {
		if head := main(len(question)); len(head) > 0 {
			return head
		}
	}
	return nil
}

// roleDeterminers open an English noun phrase whose head names a role ("the underwriter of …",
// "their agent for …").
var roleDeterminers = map[string]bool{"the": true, "a": true, "an": true, "its": true, "their": true, "his": true, "her": true}

// rolePrepositions join a role to the entity it is a role of: "the underwriter of policy X", "the
// agent for Clara Whitfield", "the accountant at the agency".
var rolePrepositions = map[string]bool{"of": true, "for": true, "at": true}

// roleTerms returns the terms of the words that name the asked entity by its relation to an
// entity the question names (linked): the head of "the underwriter of policy ASH-7", "the
// principal conductor of the Neva Virtuosi" — a determiner, at most three words, a preposition of
// rolePrepositions, the name. Those words are what leads from the named entity to the asked one,
// so a chain must state them on its way — in a hop's sentence — not only in the end's own page,
// whose sentence about something else may share a word with them («в страховой компании» of an
// accountant's previous job shares "underwriter"'s translation «страховая компания»). Russian
// questions give none: a noun before a name there is as often the name's own kind («авария
// INC-2371», «версия routekit») or a verbal noun («руководил устранением INC-2371») as a role
// («андеррайтер полиса»), and treating those as roles moved chains off their path (fitkb,
// measured). Nil when no linked name is governed that way.
func roleTerms(question string, linked []Linked) map[string]bool {
	words := textnorm.Words(question)
	var out map[string]bool
	add := func(ws []textnorm.Token) {
		for _, w := range ws {
			for _, t := range textnorm.SearchTerms(w.Text) {
				if out == nil {
					out = map[string]bool{}
				}
				out[t] = true
			}
		}
	}
	for _, l := range linked {
		at := strings.Index(question, l.Surface)
		if at < 0 || l.Surface == "" {
			continue
		}
		i := slices.IndexFunc(words, func(w textnorm.Token) bool { return w.Start >= at })
		if i <= 0 {
			continue
		}
		j := i - 1
		if strings.EqualFold(words[j].Text, "the") {
			j--
		}
		if j >= 2 && !words[j].Upper && !rolePrepositions[strings.ToLower(words[j].Text)] && rolePrepositions[strings.ToLower(words[j-1].Text)] {
			j-- // the name's kind, outside the linked surface: "of policy ASH-7"
		}
		if j >= 1 && rolePrepositions[strings.ToLower(words[j].Text)] {
			k := j - 1
			for k >= 0 && j-k <= 3 && !roleDeterminers[strings.ToLower(words[k].Text)] && !interrogatives[strings.ToLower(words[k].Text)] {
				k--
			}
			if k >= 0 && k < j-1 && roleDeterminers[strings.ToLower(words[k].Text)] {
				add(words[k+1 : j])
			}
		}
	}
	return out
}
