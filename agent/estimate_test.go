package agent

import (
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func TestEstimatedSum(t *testing.T) {
	for _, tc := range []struct {
		question, quote string
		judged, want    bool
	}{
		{"Сколько Ashgrove выплатила по претензии ASH-CL-26-0042?", "The repairer's estimate of 6,800 euros has been received.", true, true},
		{"Сколько фактически стоила реставрация рамы портрета?", "Предварительная смета реставрации рамы — 180 000 рублей.", true, true},
		{"Сколько фактически стоила реставрация рамы портрета?", "Реставрация обошлась в 212 000 рублей при смете 180 000 рублей; счёт оплачен 3 марта.", true, false}, // paid, against the estimate
		{"How much did the museum pay for the crates?", "The crates cost 14,000 euros.", true, false},                                                                  // no estimate
		{"How much did the museum pay for the crates?", "The budget for crates is 15,000 euros.", true, true},
		{"What was the final cost of the tour?", "The tour's costs are projected at £120,000.", true, true},
		{"What is the estimated cost of the repair?", "The repairer's estimate of 6,800 euros has been received.", false, false}, // asks the estimate
		{"Сколько стоит реставрация рамы?", "Предварительная смета реставрации рамы — 180 000 рублей.", false, false},            // present tense: a price, an estimate answers
		{"How much does the courier charge per day?", "The courier's fee is estimated at €300 per day.", false, false},
	} {
		est := estimatedSum(tc.question)
		if (est != nil) != tc.judged {
			t.Errorf("estimatedSum(%q) judged = %v, want %v", tc.question, est != nil, tc.judged)
			continue
		}
		if est != nil && est(tc.quote) != tc.want {
			t.Errorf("estimatedSum(%q)(%q) = %v, want %v", tc.question, tc.quote, est(tc.quote), tc.want)
		}
	}
}

// A question for what was paid is not answered by an estimate on its subject (two trials' near
// misses); the paid sum answers it.
func TestAnswerEstimateForPaid(t *testing.T) {
	email := ariadne.ScoredChunk{Score: 0.9, Chunk: ariadne.Chunk{ID: "emails/claim#0000-eeeeeeee", DocID: "emails/claim",
		Title: "Claim ASH-CL-26-0042", ACL: []string{"all"},
		Text: "Ashgrove has registered claim ASH-CL-26-0042 for the double bass. The repairer's estimate of 6,800 euros for the double bass has been received."}}
	q := "How much did Ashgrove pay on claim ASH-CL-26-0042 for the double bass?"
	ans := ask(t, answerer(t, TermExtractive{}, AnswerConfig{}, email), q)
	if ans.Status != ariadne.StatusNotFound || ans.Reason != "the question asks for a sum as paid and every verified quote that states one gives an estimate or a plan" {
		t.Errorf("an estimate for what was paid: %s %q (%s)", ans.Status, ans.Answer, ans.Reason)
	}
	paid := email
	paid.Text += " Ashgrove paid 7,150 euros on the claim for the double bass on 3 March."
	if ans := ask(t, answerer(t, TermExtractive{}, AnswerConfig{}, paid), q); ans.Status != ariadne.StatusAnswered || !strings.Contains(ans.Answer, "7,150 euros") {
		t.Errorf("the sum paid: %s %q (%s)", ans.Status, ans.Answer, ans.Reason)
	}
}
