package agent

import (
	"regexp"
	"slices"

	"github.com/ariadne-graphrag/ariadne/lexicon"
)

// A question that places what it asks ("When did Kenji Morimoto first perform in Kazan?", «Сколько
// концертов прошло в Вене?») is not answered by a quote that states the asked kind of fact of the
// same subject somewhere else: "He first performed with the Neva Virtuosi in St Petersburg in
// December 2023" dates a first performance, not the first one in Kazan (a trial's near miss that
// passed the time check). This is the place-level twin of dated.go's event check: a quote that
// names, after a locative or directional preposition, a place that is none of the question's and
// neither within one of them nor containing one, and that names none of the question's places, is
// about another place. Places are the gazetteer's (lexicon.Gazetteer: cities and countries in
// English and Russian), so "Vienna" and «в Вене» are one place, and a city is within its country.
// It refuses only when it can tell: a question without such a place, or without a gazetteer, is
// not judged, and a quote that names no place is not judged either.

// locativeBeforeRE matches the end of the text before a place name when a locative or directional
// preposition introduces it: "in (the) Kazan", "at", "from", "to", "near", «в», «во», «из», «на»,
// «под», «около», «возле», «до», with an opening quotation mark allowed.
var locativeBeforeRE = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:in|at|from|to|near|в|во|из|на|под|около|возле|до)\s+(?:the\s+)?[«"“]?$`)

// locatedPlaces returns the places of text (placesIn) that a locative or directional preposition
// introduces (located).
func locatedPlaces(g *lexicon.Gazetteer, text string) []lexicon.Place {
	var out []lexicon.Place
	for _, m := range placesIn(g, text) {
		if located(text, m) {
			out = append(out, m.Place)
		}
	}
	return out
}

// located reports whether a locative or directional preposition introduces the place text names
// at m (locativeBeforeRE).
func located(text string, m placeMention) bool {
	return locativeBeforeRE.MatchString(text[:m.Start])
}

// samePlaceArea reports whether a and b are one place or one lies within the other (a city and
// its country). A region of the CLDR ("Europe") has no members here, so it is never told apart.
func samePlaceArea(a, b lexicon.Place) bool {
	if a.ID == b.ID || a.Kind == "region" || b.Kind == "region" {
		return true
	}
	return a.Kind == "city" && b.Kind != "city" && a.Country == b.ID ||
		b.Kind == "city" && a.Kind != "city" && b.Country == a.ID
}

// placesOfOther returns, for a question that names a place after a locative or directional
// preposition (locatedPlaces), whether a quote is about another place: it names, after such a
// preposition, a place outside every place of the question (samePlaceArea), and names none of the
// question's places anywhere. Nil when the question names no such place or g is nil.
func placesOfOther(question string, g *lexicon.Gazetteer) func(quote string) bool {
	asked := locatedPlaces(g, question)
	if len(asked) == 0 {
		return nil
	}
	inAsked := func(p lexicon.Place) bool {
		return slices.ContainsFunc(asked, func(a lexicon.Place) bool { return samePlaceArea(a, p) })
	}
	return func(quote string) bool {
		other := false
		for _, m := range placesIn(g, quote) {
			if inAsked(m.Place) {
				return false
			}
			other = other || located(quote, m)
		}
		return other
	}
}
