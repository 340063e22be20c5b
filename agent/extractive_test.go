package agent

import (
	"context"
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// A code or a version number the question names must be in the evidence: a sentence about another
// release is not an answer (both offline generators).
func TestExtractiveExactTerms(t *testing.T) {
	frags := Fragments([]ariadne.ScoredChunk{{Chunk: ariadne.Chunk{ID: "technologies/tern#0001-aaaaaaaa", DocID: "technologies/tern", Title: "Tern",
		Text: "Tern 3.2.4 with the fix was released on 9 April 2025. Incident INC-2344 was caused by Tern 3.2.3."}}})
	tests := []struct {
		q      string
		answer bool
	}{
		{"When was Tern 3.2.4 released?", true},
		{"When was Tern 3.2.2 released?", false},
		{"Which Tern version caused INC-2344?", true},
		{"Which Tern version caused INC-2345?", false},
	}
	// The term-coverage generator wants a version in the answer itself: the fragment names 3.2.3,
	// but the only release date is 3.2.4's.
	if raw, _ := (TermExtractive{}).Generate(context.Background(), GenerationInput{Question: "When was Tern 3.2.3 released?", Fragments: frags, Route: ariadne.RouteHybrid}); raw != `{"status":"not_found","claims":[]}` {
		t.Errorf("release date of another version: %s", raw)
	}
	for _, tc := range tests {
		for _, g := range []Generator{TermExtractive{}, Extractive{}} {
			raw, err := g.Generate(context.Background(), GenerationInput{Question: tc.q, Fragments: frags, Route: ariadne.RouteHybrid})
			if err != nil {
				t.Fatal(err)
			}
			out, err := ParseOutput(raw)
			if err != nil {
				t.Fatal(err)
			}
			if tc.answer == out.NotFound || !tc.answer && len(out.Claims) > 0 {
				t.Errorf("%s, %q: not_found=%v claims=%d, want answered=%v", g.Name(), tc.q, out.NotFound, len(out.Claims), tc.answer)
			}
		}
	}
}

// The second sentence of a passage that states the answer in two (a rule and its exception) is
// quoted too: greedy cover alone skips it, since it adds no question term the first lacks. A
// sentence of the same passage that states too little of the question is not.
func TestTermExtractiveQuotesTheSiblingSentence(t *testing.T) {
	frags := Fragments([]ariadne.ScoredChunk{{Chunk: ariadne.Chunk{ID: "policies/leave#0000-aaaaaaaa", DocID: "policies/leave", Title: "Leave",
		Text: "Every employee gets 20 days of paid leave a year. Employees with more than three years of service get 3 extra days of leave. Leave requests go to the team lead."}}})
	in := GenerationInput{Question: "How many days of paid leave does an employee get?", Fragments: frags, Route: ariadne.RouteSimple}
	quotes := func(g TermExtractive) []string {
		raw, err := g.Generate(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		out, err := ParseOutput(raw)
		if err != nil {
			t.Fatal(err)
		}
		var qs []string
		for _, c := range out.Claims {
			qs = append(qs, c.Citations[0].Quote)
		}
		return qs
	}
	want := []string{"Every employee gets 20 days of paid leave a year.", "Employees with more than three years of service get 3 extra days of leave."}
	if got := quotes(TermExtractive{}); !slices.Equal(got, want) {
		t.Errorf("default bars: quotes %q, want %q", got, want)
	}
	noSibling := DefaultTermBars
	noSibling.Sibling = 0
	if got := quotes(TermExtractive{Bars: noSibling}); !slices.Equal(got, want[:1]) {
		t.Errorf("Sibling 0: quotes %q, want %q", got, want[:1])
	}
}

// TestSplitUnitsOverlapTail: a chunk that begins inside a sentence (the chunker's overlap copies
// the previous chunk's tail) does not offer that tail as a quotable sentence.
func TestSplitUnitsOverlapTail(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"team reviewed the ailing conveyor belts in March. The warehouse manager signed the plan.",
			[]string{"The warehouse manager signed the plan."}},
		{"The warehouse team reviewed the ailing conveyor belts in March. The manager signed the plan.",
			[]string{"The warehouse team reviewed the ailing conveyor belts in March.", "The manager signed the plan."}},
		{"- item one of the list, written in lower case\n- item two of the list, also lower case",
			[]string{"- item one of the list, written in lower case", "- item two of the list, also lower case"}},
		{"\nсотрудник получает компенсацию за обучение. Руководитель согласует заявку в течение недели.",
			[]string{"Руководитель согласует заявку в течение недели."}},
	}
	for _, tc := range tests {
		if got := splitUnits(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("splitUnits(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// The codes a question names must be in the evidence: as written, or in the other script; a
// number of a document with a slash is one code (outside tester, stop 61: "NMT-2024/0094" was
// read as NMT-2024 and answered with NMT-2024/0093's budget).
func TestMissingExactTerm(t *testing.T) {
	for _, tc := range []struct{ question, text, want string }{
		{"What is the budget of grant NMT-2024/0094?", "Grant NMT-2024/0093 has a budget of EUR 310 000.", "NMT-2024/0094"},
		{"What is the budget of grant NMT-2024/0093?", "Grant NMT-2024/0093 has a budget of EUR 310 000.", ""},
		{"Когда доставят оборудование по договору 118/ПТУ-2025?", "Delivery under contract 118/PTU-2025 is due in May.", ""},
		{"Когда доставят оборудование по договору 119/ПТУ-2025?", "Delivery under contract 118/PTU-2025 is due in May.", "119/ПТУ-2025"},
		{"What is the budget of grant 23-11/046?", "Грант № 23-11/045 — 15 000 000 ₽.", "23-11/046"},
		{"What does INC-2318 say about the harbour?", "INC-2319 closed the harbour.", "INC-2318"},
		{"When was Tern 3.2.2 released?", "Tern 3.2.2 was released in May.", ""},
	} {
		if got := missingExactTerm(tc.question, tc.text); got != tc.want {
			t.Errorf("missingExactTerm(%q, %q) = %q, want %q", tc.question, tc.text, got, tc.want)
		}
	}
}
