package agent

import (
	"regexp"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// kindContact is what a question for an e-mail address or a phone number asks for.
const kindContact = "contact"

var (
	// emailQuestionRE names an e-mail address (folded: ё as е): "e-mail", "email", «почта» and its
	// forms with «электронн…», «имейл», «мейл».
	emailQuestionRE = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:e-?mail|электронн[а-я]* (?:почт|адрес)[а-я]*|почт[аыуе]|и?мейл[а-я]*)(?:[^\p{L}]|$)`)
	// phoneQuestionRE names a phone number or an extension.
	phoneQuestionRE = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:phone|telephone|extension|телефон[а-я]*|добавочн[а-я]*)(?:[^\p{L}]|$)`)
	// contactAskRE opens a question for a value: a wh-word (or «как связаться», "how … reach").
	contactAskRE = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:what|which|what's|какой|какая|какое|каков|какова|как связаться|куда|по какому|how (?:can|do|to) [a-z ]*(?:reach|contact|call|write))(?:[^\p{L}]|$)`)
	// emailRE is an e-mail address; phoneDigitsRE three digits or more in a row, or a number
	// written with separators ("+7 (843) 555-01-22", "ext. 4417").
	emailRE       = regexp.MustCompile(`[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+`)
	phoneDigitsRE = regexp.MustCompile(`\d{3,}|\d[\d\s()+-]{4,}\d`)
)

// asksEmail reports whether the question asks for an e-mail address ("What is Anna's e-mail?",
// «Какая почта у Анны?»); a yes/no question ("Does the team read e-mail at night?") asks none.
func asksEmail(question string) bool {
	f := textnorm.FoldString(question)
	return emailQuestionRE.MatchString(f) && contactAskRE.MatchString(f)
}

// asksPhone reports whether the question asks for a phone number or an extension.
func asksPhone(question string) bool {
	f := textnorm.FoldString(question)
	return phoneQuestionRE.MatchString(f) && contactAskRE.MatchString(f) && !asksEmail(question)
}

// statesEmail reports whether s writes an e-mail address: a mail's "From: Pavel Zimin" names its
// sender, not his address (outside tester, stop 58: "What is Pavel Zimin's email?" was answered
// by that header line).
func statesEmail(s string) bool { return emailRE.MatchString(s) }

// statesPhone reports whether s writes a phone number or an extension: digits.
func statesPhone(s string) bool { return phoneDigitsRE.MatchString(s) }
