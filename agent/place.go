package agent

import (
	"regexp"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// placeQuestionRE finds, in a folded question, the words that ask for a place: "where" or «где»,
// «откуда», «куда» opening it, or "which/what" and «какой» in any case before a noun for a
// place (city, town, country, state, region, province, village, capital; «город», «страна»,
// «регион», «область», «село», «столица» in any case).
var placeQuestionRE = regexp.MustCompile(`^(?:where|где|откуда|куда)(?:[^\p{L}]|$)|(?:^|[^\p{L}])(?:(?:which|what) (?:city|cities|town|towns|country|countries|state|states|region|regions|province|provinces|village|villages|capital)|` +
	`как(?:ой|ая|ое|ие|ого|ом|ую|их|им|ими) (?:город|стран|регион|област|сел|столиц)[а-я]*)(?:[^\p{L}]|$)`)

// asksPlace reports whether the question asks for a named place ("Where is X headquartered?",
// "In which city …", «Где находится …», «В какой стране …»; placeQuestionRE). A "where" inside
// the question ("the city where the festival is held") describes a thing and asks nothing.
func asksPlace(question string) bool {
	return placeQuestionRE.MatchString(textnorm.FoldString(question))
}

// placePhraseRE is a named place after a locative or directional preposition: "headquartered in
// Antofagasta", "based at Tarvessa", «находится в Вологде», «из Тамбова», «во Владивостоке». Lenient
// on purpose, as timeWordRE: «пришёл в Kestrelwave» counts too; it only tells a sentence that
// names some place from one that names none.
var placePhraseRE = regexp.MustCompile(`(?:^|[^\p{L}])(?:[Ii]n|[Aa]t|[Ff]rom|[Nn]ear|[Вв]|[Вв]о|[Ии]з|[Нн]а|[Пп]од|[Оо]коло|[Вв]озле)\s+(?:the\s+)?[«"]?(\p{Lu}\p{Ll}+)`)

// notPlaceEN are capitalized English words a preposition puts before a time, not a place ("in
// March", "on Monday" is no locative anyway, "at Christmas").
var notPlaceEN = map[string]bool{"January": true, "February": true, "March": true, "April": true, "May": true, "June": true,
	"July": true, "August": true, "September": true, "October": true, "November": true, "December": true, "Monday": true,
	"Tuesday": true, "Wednesday": true, "Thursday": true, "Friday": true, "Saturday": true, "Sunday": true, "Christmas": true, "Easter": true}

// statesPlace reports whether s names a place after a preposition (placePhraseRE), not a month or
// a weekday.
func statesPlace(s string) bool {
	for _, m := range placePhraseRE.FindAllStringSubmatch(s, -1) {
		if !notPlaceEN[m[1]] {
			return true
		}
	}
	return false
}

// askedKind returns how to tell that a quote states the kind of fact the question asks for — a
// count, a time or a place (factKinds, asksPlace) — or nil when it asks for none of them.
func askedKind(question string) func(string) bool {
	for _, k := range factKinds {
		if k.asks(question) {
			return k.states
		}
	}
	if asksPlace(question) {
		return statesPlace
	}
	return nil
}
