package evaluation

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
)

func TestAnswerTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"The Quick, brown fox!", []string{"quick", "brown", "fox"}},
		{"«Ёжик» в тумане — 1975 г.", []string{"ежик", "в", "тумане", "1975", "г"}},
		{"an apple a day", []string{"apple", "day"}},
		{"  ", nil},
	}
	for _, tc := range tests {
		if got := AnswerTokens(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("AnswerTokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSQuADMetrics(t *testing.T) {
	tests := []struct {
		name           string
		pred, gold     string
		em, f1, recall float64
	}{
		{"identical after normalization", "The Eiffel Tower.", "eiffel tower", 1, 1, 1},
		{"Russian case and ё", "Пётр Иванов", "петр иванов", 1, 1, 1},
		// pred 6 tokens (support ended on 14 march 2024), gold 3 (14 march 2024): p=3/6, r=1.
		{"sentence around the answer", "Support ended on 14 March 2024.", "14 March 2024", 0, 2 * 0.5 * 1 / 1.5, 1},
		// pred {5,days}, gold {5,working,days}: common 2, p=1, r=2/3, F1=0.8.
		{"partial", "5 days", "5 working days", 0, 0.8, 2.0 / 3},
		{"no overlap", "Berlin", "Paris", 0, 0, 0},
		{"empty gold", "anything", "", 0, 0, 0},
		{"repeated tokens count once each", "day day day", "day", 0, 0.5, 1},
	}
	for _, tc := range tests {
		em, f1, rc := ExactMatch(tc.pred, tc.gold), TokenF1(tc.pred, tc.gold), TokenRecall(tc.pred, tc.gold)
		if em != tc.em || math.Abs(f1-tc.f1) > 1e-12 || math.Abs(rc-tc.recall) > 1e-12 {
			t.Errorf("%s: EM %v F1 %v recall %v, want %v %v %v", tc.name, em, f1, rc, tc.em, tc.f1, tc.recall)
		}
	}
	if f1 := TokenF1("Paris", "Berlin", "Paris"); f1 != 1 {
		t.Errorf("best over gold answers: F1 %v, want 1", f1)
	}
}

// scripted answers each question with the claims in its table, citing the given documents.
type scripted map[string]agent.Answer

func (s scripted) Answer(_ context.Context, req agent.Request, _ func(agent.Event)) (agent.Answer, error) {
	return s[req.Question], nil
}

type chunkTable map[string]ariadne.Chunk

func (c chunkTable) Chunks(_ context.Context, ids []string, _ []string) ([]ariadne.Chunk, error) {
	var out []ariadne.Chunk
	for _, id := range ids {
		if ch, ok := c[id]; ok {
			out = append(out, ch)
		}
	}
	return out, nil
}

func TestRunAnswersCorrectnessFigures(t *testing.T) {
	public := []string{ariadne.PublicGroup}
	chunks := chunkTable{
		"a#0": {ID: "a#0", DocID: "a", Text: "Alice Smith leads Project Orion.", ACL: public},
		"b#0": {ID: "b#0", DocID: "b", Text: "Project Orion is delivered for Acme Corp.", ACL: public},
	}
	cite := func(id string) ariadne.Citation {
		c := chunks[id]
		return ariadne.Citation{ChunkID: id, DocID: c.DocID, Quote: c.Text, Start: 0, End: len(c.Text)}
	}
	answered := func(route ariadne.Route, ids ...string) agent.Answer {
		a := agent.Answer{Status: ariadne.StatusAnswered, Route: route}
		for _, id := range ids {
			a.Claims = append(a.Claims, ariadne.Claim{Text: chunks[id].Text, Citations: []ariadne.Citation{cite(id)}})
			a.Citations = append(a.Citations, cite(id))
		}
		return a
	}
	ans := scripted{
		"who leads orion":           answered(ariadne.RouteSimple, "a#0"),
		"who leads the acme work":   answered(ariadne.RouteMultiHop, "a#0", "b#0"),
		"кто ведёт проект для acme": answered(ariadne.RouteMultiHop, "b#0"),
		"what is the budget":        {Status: ariadne.StatusNotFound, Route: ariadne.RouteSimple, Reason: "too weak"},
		"nothing holds this":        {Status: ariadne.StatusNotFound, Route: ariadne.RouteSimple},
	}
	qs := []Question{
		{ID: "q1", Question: "who leads orion", Lang: "en", Type: "simple", GoldDocs: []string{"a"}, Answer: "Alice Smith", UserGroups: public},
		{ID: "q2", Question: "who leads the acme work", Lang: "en", Type: "multi_hop", GoldDocs: []string{"a", "b"}, Answer: "Alice Smith", UserGroups: public},
		{ID: "q3", Question: "кто ведёт проект для acme", Lang: "ru", Type: "multi_hop", GoldDocs: []string{"a", "b"}, Answer: "Alice Smith", UserGroups: public},
		{ID: "q4", Question: "what is the budget", Lang: "en", Type: "simple", GoldDocs: []string{"a"}, Answer: "10k", UserGroups: public},
		{ID: "q5", Question: "nothing holds this", Lang: "en", Type: "no_answer", UserGroups: public},
	}
	rep, err := RunAnswers(context.Background(), ans, chunks, qs, 8, map[string]string{"a": "en", "b": "en"})
	if err != nil {
		t.Fatal(err)
	}
	// q1: pred "alice smith leads project orion" (5 tokens), gold 2: p=2/5, r=1 → F1 4/7.
	// q2: 5+7=12 tokens, p=2/12 → F1 2/7. q3: no overlap → 0. q4: refused → 0.
	wantF1 := (4.0/7 + 2.0/7) / 4
	if math.Abs(rep.AnswerF1-wantF1) > 1e-12 || rep.AnswerEM != 0 || rep.AnswerScored != 4 {
		t.Errorf("F1 %v EM %v over %d, want %v 0 over 4", rep.AnswerF1, rep.AnswerEM, rep.AnswerScored, wantF1)
	}
	if rep.AnswerRecall != 0.5 {
		t.Errorf("gold-token recall %v, want 0.5 (q1 and q2 contain the answer)", rep.AnswerRecall)
	}
	if rep.MultiHop != 2 || rep.AllGoldCited != 0.5 {
		t.Errorf("all gold cited %v over %d, want 0.5 over 2 (q2 cites a and b, q3 only b)", rep.AllGoldCited, rep.MultiHop)
	}
	cross, same := rep.Groups["cross_language"], rep.Groups["same_language"]
	if cross == nil || cross.Answerable != 1 || cross.FalseRefusals != 0 || cross.AnswerF1 != 0 {
		t.Errorf("cross_language group = %+v", cross)
	}
	if same == nil || same.Answerable != 3 || same.FalseRefusals != 1 {
		t.Errorf("same_language group = %+v", same)
	}
	if rep.FalseRefusals != 1 || rep.AnsweredNoAnswer != 0 || rep.CitationValidity != 1 {
		t.Errorf("false refusals %d, answered no-answer %d, validity %v", rep.FalseRefusals, rep.AnsweredNoAnswer, rep.CitationValidity)
	}
	if len(rep.Questions) != 5 || rep.Questions[3].Correct || rep.Questions[3].Reason != "too weak" || !rep.Questions[2].CrossLanguage ||
		!slices.Equal(rep.Questions[1].CitedDocs, []string{"a", "b"}) {
		t.Errorf("per-question outcomes = %+v", rep.Questions)
	}
}

func TestRunAnswersGoldPrecision(t *testing.T) {
	public := []string{ariadne.PublicGroup}
	chunks := chunkTable{
		"a#0": {ID: "a#0", DocID: "a", Text: "Alice Smith leads Project Orion.", ACL: public},
		"b#0": {ID: "b#0", DocID: "b", Text: "Project Orion is delivered for Acme Corp.", ACL: public},
		"c#0": {ID: "c#0", DocID: "c", Text: "Acme Corp has offices in Oslo.", ACL: public},
	}
	answered := func(ids ...string) agent.Answer {
		a := agent.Answer{Status: ariadne.StatusAnswered, Route: ariadne.RouteMultiHop}
		for _, id := range ids {
			c := chunks[id]
			cit := ariadne.Citation{ChunkID: id, DocID: c.DocID, Quote: c.Text, Start: 0, End: len(c.Text)}
			a.Claims = append(a.Claims, ariadne.Claim{Text: c.Text, Citations: []ariadne.Citation{cit}})
			a.Citations = append(a.Citations, cit)
		}
		return a
	}
	ans := scripted{
		"who leads the acme work": answered("a#0", "b#0", "c#0"), // 2 of 3 cited documents are gold
		"who leads orion":         answered("a#0"),               // 1 of 1
		"where is acme":           {Status: ariadne.StatusNotFound, Route: ariadne.RouteSimple},
	}
	qs := []Question{
		{ID: "q1", Question: "who leads the acme work", Type: "multi_hop", GoldDocs: []string{"a", "b"}, UserGroups: public},
		{ID: "q2", Question: "who leads orion", Type: "simple", GoldDocs: []string{"a"}, UserGroups: public},
		{ID: "q3", Question: "where is acme", Type: "simple", GoldDocs: []string{"c"}, UserGroups: public}, // refused: not averaged
	}
	rep, err := RunAnswers(context.Background(), ans, chunks, qs, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (2.0/3 + 1) / 2; math.Abs(rep.GoldPrecision-want) > 1e-12 {
		t.Errorf("cited gold precision %v, want %v", rep.GoldPrecision, want)
	}
	if rep.AllGoldCited != 1 || rep.AnswerHit != 1 {
		t.Errorf("all gold cited %v, answer hit %v, want 1 and 1", rep.AllGoldCited, rep.AnswerHit)
	}
}

// aclChunks reads only the chunks the given groups may read, as the graph store does.
type aclChunks map[string]ariadne.Chunk

func (c aclChunks) Chunks(_ context.Context, ids []string, groups []string) ([]ariadne.Chunk, error) {
	var out []ariadne.Chunk
	for _, id := range ids {
		if ch, ok := c[id]; ok && ariadne.CanRead(ch.ACL, groups) {
			out = append(out, ch)
		}
	}
	return out, nil
}

// The independent citation check reads with the groups of the set's questions too: a chunk only
// group sre may read is a valid citation for an SRE's question and a leak for anyone else's.
func TestRunAnswersChecksCitationsWithTheSetsGroups(t *testing.T) {
	chunks := aclChunks{"r#0": {ID: "r#0", DocID: "r", Text: "Clean up the disk with the cleanup job.", ACL: []string{"sre"}}}
	c := chunks["r#0"]
	cit := ariadne.Citation{ChunkID: c.ID, DocID: c.DocID, Quote: c.Text, Start: 0, End: len(c.Text)}
	answer := agent.Answer{Status: ariadne.StatusAnswered, Route: ariadne.RouteSimple,
		Claims: []ariadne.Claim{{Text: c.Text, Citations: []ariadne.Citation{cit}}}, Citations: []ariadne.Citation{cit}}
	ans := scripted{"how is the disk cleaned": answer, "how do we clean the disk": answer}
	qs := []Question{
		{ID: "q1", Question: "how is the disk cleaned", Type: "simple", GoldDocs: []string{"r"}, UserGroups: []string{ariadne.PublicGroup, "sre"}},
		{ID: "q2", Question: "how do we clean the disk", Type: "simple", GoldDocs: []string{"r"}, UserGroups: []string{ariadne.PublicGroup}},
	}
	rep, err := RunAnswers(context.Background(), ans, chunks, qs, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Citations != 2 || rep.CitationsValid != 2 || rep.ACLLeaks != 1 {
		t.Errorf("citations %d, valid %d, leaks %d; want 2, 2 and 1 (q2's asker may not read r#0)", rep.Citations, rep.CitationsValid, rep.ACLLeaks)
	}
}
