package agent

import (
	"regexp"
	"slices"
	"strings"
)

// A qualifier is a name the question qualifies with a number — a product and its major version
// ("Grafana 11", "Python 3.12"), a model or a generation ("iPhone 15", "Windows 11") — so that the
// name alone does not say which thing is asked about. A unit that names the same thing only with
// another number ("the upgrade to Grafana 10 is planned for March") is about something else: a near
// miss (right subject, wrong fact) that term coverage cannot tell from an answer, since every term
// but one digit matches. Versions of three or more parts are exact terms already (versionRE).
type qualifier struct {
	name   string         // lower case
	number string         // as written: "26", "3.12"
	re     *regexp.Regexp // the name followed by a number, in any case
}

// qualifierRE finds "Name N" in a question: a Latin word that starts with a capital letter (or
// has one inside: iPhone) followed by a number of one to three digits, optionally with decimal
// parts. questionQualifiers drops a number followed by a digit group ("38 500 RUB") and one of
// three or more parts (an exact term already).
var qualifierRE = regexp.MustCompile(`\b([A-Z][A-Za-z]+|[a-z]+[A-Z][A-Za-z]*)\s+v?(\d+(?:\.\d+)*)\b`)

// digitGroupRE: what follows the number of "38 500" — a space and three digits.
var digitGroupRE = regexp.MustCompile(`^[\s\x{00a0}\x{202f}]\d{3}\b`)

// qualifierStop are capitalized words that start a clause or name a month or a day rather than a
// thing with versions ("In 12 days", "May 5", "Is 3 …").
var qualifierStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the in on at by for from to of since until till after before during within about
		over under per up top is are was were be do does did has have had can could will would should may must
		how what when which who whom whose where why and or but if than then
		january february march april may june july august september october november december
		jan feb mar apr jun jul aug sep sept oct nov dec
		monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun
		page pages chapter section item step day days week weeks month months year years hour hours`) {
		qualifierStop[w] = true
	}
}

// questionQualifiers returns the qualifiers a question names, each once.
func questionQualifiers(question string) []qualifier {
	var out []qualifier
	for _, m := range qualifierRE.FindAllStringSubmatchIndex(question, -1) {
		name, number := strings.ToLower(question[m[2]:m[3]]), question[m[4]:m[5]]
		parts := strings.Split(number, ".")
		if qualifierStop[name] || len(parts) > 2 || len(parts[0]) > 3 || digitGroupRE.MatchString(question[m[1]:]) {
			continue
		}
		if !slices.ContainsFunc(out, func(x qualifier) bool { return x.name == name && x.number == number }) {
			out = append(out, qualifier{name: name, number: number,
				re: regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(name) + `\s*(?:v|version\s+|версии\s+|версия\s+)?(\d+(?:\.\d+)*)`)})
		}
	}
	return out
}

// contradicts reports whether text names q's name with numbers and never with q's own: it states
// another version of the thing asked about. Numbers match when one is the other's prefix by parts
// (a question about "Grafana 11" matches "Grafana 11.0.5"). Text that does not name the thing
// with a number does not contradict.
func (q qualifier) contradicts(text string) bool {
	found := false
	for _, m := range q.re.FindAllStringSubmatch(text, -1) {
		found = true
		if sameVersion(q.number, m[1]) {
			return false
		}
	}
	return found
}

// sameVersion reports whether a and b agree part by part over the shorter of the two ("26" and
// "26.0.5" do; "3.12" and "3.11" do not).
func sameVersion(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < min(len(pa), len(pb)); i++ {
		if strings.TrimLeft(pa[i], "0") != strings.TrimLeft(pb[i], "0") {
			return false
		}
	}
	return true
}

// contradictsAny reports whether text contradicts one of the qualifiers.
func contradictsAny(text string, qs []qualifier) bool {
	for _, q := range qs {
		if q.contradicts(text) {
			return true
		}
	}
	return false
}

// dropOtherVersions applies the question's qualifiers to its units, ranked best first: when the
// best unit names another version of what the question asks about, the evidence is about that
// version and none is left (the question is not answered from whatever ranks next); otherwise the
// units that name only another version are dropped and the rest keep their order.
func dropOtherVersions[U any](question string, units []U, text func(U) string) []U {
	qs := questionQualifiers(question)
	if len(qs) == 0 || len(units) == 0 {
		return units
	}
	if contradictsAny(text(units[0]), qs) {
		return nil
	}
	out := units[:0:0]
	for _, u := range units {
		if !contradictsAny(text(u), qs) {
			out = append(out, u)
		}
	}
	return out
}
