package agent

import (
	"slices"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// A definition question asks what or who a named thing is — "Who is X?", "What is X?", "Tell me
// about X", «Кто такой X?», «Что такое X?», «Чем занимается X?», «Расскажи о X» — the
// "definition" class of TREC's question-answering track (Voorhees 2003). It has no term of its
// own beyond the name, so term coverage cannot choose among the sentences that name the thing,
// and a frame word such as «занимается» is stated by none of them. The answer is the opening
// of the thing's own page: a documented entity's page begins by saying what it is.

// definitionFrameTerms are the search terms (textnorm.SearchTerms) of the words that frame a
// definition question beyond the stop words: the frame asks, it names nothing.
var definitionFrameTerms = func() map[string]bool {
	out := map[string]bool{}
	for _, t := range textnorm.SearchTerms("занимается занимаются заниматься расскажи расскажите рассказать известно " +
		"представляет собой tell describe about known") {
		out[t] = true
	}
	return out
}()

// definitionLeadUnits is how many units of the page's opening a definition answer quotes.
const definitionLeadUnits = 2

// definitionLead returns the opening units of the page of the one documented entity a definition
// question names: the first definitionLeadUnits units (chunkUnits) of the page's first chunk,
// when that chunk is among frags, and the fragment they come from. ok is false when the question
// is no definition question (a term beyond the entity's words and the frame, or not exactly one
// linked entity with a page) or its page's first chunk is not among the fragments.
func definitionLead(question string, linked []Linked, frags []Fragment) (Fragment, []string, bool) {
	if len(linked) != 1 || !strings.Contains(linked[0].Key, "/") { // a documented entity is keyed by its document id
		return Fragment{}, nil, false
	}
	doc := linked[0]
	name := map[string]bool{}
	for _, t := range textnorm.SearchTerms(doc.Surface) {
		name[t] = true
	}
	terms := textnorm.SearchTerms(question)
	if len(terms) == 0 {
		return Fragment{}, nil, false
	}
	for _, t := range terms {
		if !name[t] && !definitionFrameTerms[t] {
			return Fragment{}, nil, false
		}
	}
	for _, f := range frags {
		if f.Chunk.DocID != doc.Key || ariadne.ChunkPosition(f.Chunk.ID) != 0 {
			continue
		}
		units := chunkUnits(f.Chunk)
		units = units[:min(len(units), definitionLeadUnits)]
		units = slices.DeleteFunc(units, func(u string) bool { return planted(u, f.Chunk.ACL) })
		if len(units) == 0 {
			return Fragment{}, nil, false
		}
		return f, units, true
	}
	return Fragment{}, nil, false
}

// definitionAnswer is a quoting generator's answer to a definition question (definitionLead):
// the opening units of the named entity's page, quoted; ok is false for any other question. The
// decision records the page's first unit as the evidence (value 1: the page is about the thing
// asked).
func definitionAnswer(in GenerationInput) (string, bool) {
	f, lead, ok := definitionLead(in.Question, in.Linked, in.Fragments)
	if !ok {
		return "", false
	}
	if in.Decision != nil {
		*in.Decision = EvidenceDecision{ChunkID: f.Chunk.ID, Unit: lead[0], UnitScore: 1, Value: 1, Answered: true,
			Reason: "a definition question: the opening of the named entity's own page"}
	}
	out := make([]quoted, 0, len(lead))
	for _, u := range lead {
		out = append(out, quoted{frag: f, text: u})
	}
	answer, err := quoteClaims(out)
	return answer, err == nil
}
