package agent

import (
	"regexp"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// A question for what was actually paid or spent ("How much did Ashgrove pay on the claim?",
// «Сколько фактически стоила реставрация рамы?») is not answered by a sum the quote gives as an
// estimate, a budget or a plan: "The repairer's estimate of 6,800 euros has been received" and
// «Предварительная смета реставрации — 180 000 рублей» state a sum on the subject and miss the
// fact (two trials' near misses, written independently, passed the money check that way). It is
// the money check of amount.go one level finer, as dated.go is for times: the question must mark
// the sum as actual — a past verb of paying or costing, "actually", «фактически», «в итоге» —
// and not ask about an estimate itself; the quote must mark its sum as estimated or planned and
// not also as paid.

// actualSumRE finds, in a folded question, the words that ask for a sum as it turned out: a past
// verb of paying, spending or costing, "actual(ly)", "final(ly)", "in the end", «фактически»,
// «в итоге», «выплатил(а)», «заплатил(а)», «потратил(а)», «оплатил(а)», «обошлось», «стоила».
var actualSumRE = regexp.MustCompile(`(?:^|[^\p{L}])(?:paid|spent|actual|actually|final|finally|in the end|did (?:[\p{L}'-]+ ){0,6}(?:cost|pay|spend)|` +
	`фактическ[а-я]*|в итоге|выплатил[а-я]*|заплатил[а-я]*|потратил[а-я]*|оплатил[а-я]*|обошл[а-я]+|стоил[аои]?)(?:[^\p{L}]|$)`)

// estimateRE finds the words that give a sum as expected rather than paid: estimate, budget,
// plan, forecast, preliminary, approximate; «смета», «оценка», «предварительный», «ориентировочно»,
// «планируется», «бюджет», «прогноз», «ожидаемый».
var estimateRE = regexp.MustCompile(`(?:^|[^\p{L}])(?:estimat[a-z]*|budget(?:s|ed)?|planned|projected|expected|forecast[a-z]*|preliminary|tentative|approximate(?:ly)?|` +
	`смет[а-я]*|оценк[а-я]*|оценочн[а-я]*|оценен[а-я]*|оцениваетс[а-я]*|предварительн[а-я]*|ориентировочн[а-я]*|планиру[а-я]*|запланирован[а-я]*|` +
	`планов[а-я]*|ожидаем[а-я]*|прогноз[а-я]*|бюджет[а-я]*)(?:[^\p{L}]|$)`)

// paidRE finds the words that give a sum as paid or final: the quote "paid €7,200 against the
// estimate of €6,800" states the actual sum.
var paidRE = regexp.MustCompile(`(?:^|[^\p{L}])(?:paid|spent|actual|actually|final|settled|invoiced|` +
	`фактическ[а-я]*|выплачен[а-я]*|выплатил[а-я]*|оплачен[а-я]*|оплатил[а-я]*|заплатил[а-я]*|потрачен[а-я]*|итогов[а-я]*)(?:[^\p{L}]|$)`)

// estimatedSum returns, for a question that asks for a sum as it turned out (actualSumRE) and not
// about an estimate (estimateRE), whether a quote gives its sum only as an estimate or a plan:
// it has estimateRE's words and none of paidRE's. Nil when the question does not ask that way.
func estimatedSum(question string) func(quote string) bool {
	q := textnorm.FoldString(question)
	if !actualSumRE.MatchString(q) || estimateRE.MatchString(q) {
		return nil
	}
	return func(quote string) bool {
		f := textnorm.FoldString(quote)
		return estimateRE.MatchString(f) && !paidRE.MatchString(f)
	}
}
