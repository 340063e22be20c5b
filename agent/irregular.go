package agent

import (
	"strings"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// irregularVerbs are common English verbs whose past forms do not extend their base: base first,
// then its other forms. "find"/"found" and "bear"/"born" are left out: "found" and "born" are
// verbs and adjectives of their own ("founded", "was born").
const irregularVerbs = `lead led
pay paid
build built
make made
hold held
win won
run ran
buy bought
sell sold
teach taught
bring brought
write wrote written
begin began begun
give gave given
take took taken
leave left
meet met
send sent
spend spent
lose lost
keep kept
tell told
know knew known
choose chose chosen
drive drove driven
fly flew flown
grow grew grown
draw drew drawn
show shown
stand stood
understand understood
think thought
seek sought
fight fought
catch caught
hear heard
lend lent
rise rose risen
fall fell fallen
speak spoke spoken
break broke broken
wear wore worn
shoot shot
sleep slept
deal dealt
mean meant
feed fed
flee fled
forget forgot forgotten
freeze froze frozen
hide hid hidden
ride rode ridden
sing sang sung
strike struck
throw threw thrown
oversee oversaw overseen
undertake undertook undertaken
withdraw withdrew withdrawn
overtake overtook overtaken
shake shook shaken
sink sank sunk
steal stole stolen`

// irregularBase maps each form of an irregular verb (its search term) to its base's; verbBases
// holds the bases.
var irregularBase, verbBases = func() (map[string]string, map[string]bool) {
	forms, bases := map[string]string{}, map[string]bool{}
	for _, line := range strings.Split(irregularVerbs, "\n") {
		f := strings.Fields(line)
		base := textnorm.Latin(f[0])
		bases[base] = true
		for _, w := range f[1:] {
			forms[textnorm.Latin(w)] = base
		}
	}
	return forms, bases
}()

// verbBase returns the base of an English irregular verb's form (a search term): "led", "leads"
// and "leading" are "lead"; "" for any other term.
func verbBase(t string) string {
	if b, ok := irregularBase[t]; ok {
		return b
	}
	if verbBases[t] {
		return t
	}
	for _, suffix := range []string{"ing", "es", "s"} {
		if b, ok := strings.CutSuffix(t, suffix); ok && verbBases[b] {
			return b
		}
	}
	return ""
}

// irregularFormOf reports whether two English search terms are two forms of one irregular verb,
// one of them an irregular form ("leads" and "led": "is led by Karin Nyberg" states who leads;
// outside tester, stop 60). Regular forms of a short base ("pay" / "pays") are not matched: the
// other rules leave words of fewer than five letters as they are (inflectionOf); matching them
// ("heads" / "headed") was measured and not kept (docs/evaluation.md, "Stop 64").
func irregularFormOf(a, b string) bool {
	if a == b {
		return false
	}
	_, ia := irregularBase[a]
	_, ib := irregularBase[b]
	base := verbBase(a)
	return (ia || ib) && base != "" && base == verbBase(b)
}
