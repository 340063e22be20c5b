package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
)

// testPlaces is a gazetteer of a few cities and their countries, as deploy/gazetteer writes one.
func testPlaces(t *testing.T) *lexicon.Gazetteer {
	t.Helper()
	g, err := lexicon.ReadGazetteer("places.tsv", strings.NewReader(
		"country\tGB\tGB\t66488991\tUnited Kingdom\tВеликобритания\tUK\n"+
			"country\tRU\tRU\t144478050\tRussia\tРоссия\n"+
			"country\tAT\tAT\t8847037\tAustria\tАвстрия\n"+
			"city\t498817\tRU\t5351935\tSaint Petersburg\tSt Petersburg\tSt. Petersburg\tСанкт-Петербург\n"+
			"city\t551487\tRU\t1243500\tKazan\tКазань\n"+
			"city\t2761369\tAT\t1691468\tVienna\tВена\n"+
			"city\t2655603\tGB\t984333\tBirmingham\tБирмингем\n"+
			"country\tZA\tZA\t57779622\tSouth Africa\tЮжно-Африканская Республика\n"+
			"city\t6317397\tBR\t15000\tJuara\n"+ // no Cyrillic name: «ЮАР» is not it
			"city\t687997\tUA\t15000\tPivdenne\tЮжное\n"))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestPlacesOfOther(t *testing.T) {
	g := testPlaces(t)
	for _, tc := range []struct {
		question, quote string
		judged, want    bool
	}{
		{"When did Kenji Morimoto first perform in Kazan?", "He first performed with the Neva Virtuosi in St Petersburg in December 2023.", true, true},
		{"When did Kenji Morimoto first perform in Kazan?", "Он предусматривает три концерта: в Казани 12 мая и в Екатеринбурге 15 мая.", true, false}, // names Kazan, inflected
		{"When did Kenji Morimoto first perform in Kazan?", "He won the first prize at a competition in 2017.", true, false},                           // names no place
		{"When did Kenji Morimoto first perform in Kazan?", "Saint Petersburg's critics praised him in 2023.", true, false},                            // a place, but not where something happened
		{"When did the orchestra play in the UK?", "It played in Birmingham in March 2024.", true, false},                                              // a city of the country
		{"When did the orchestra play in Birmingham?", "In 2024 the orchestra toured in the United Kingdom.", true, false},                             // the country of the city
		{"Когда оркестр выступал в Вене?", "The orchestra played in Vienna in 2019.", true, false},                                                     // one place in two scripts
		{"Когда оркестр выступал в Вене?", "Оркестр выступал в Казани в 2019 году.", true, true},
		{"Когда оркестр выступал в Вене?", "In 2019 the orchestra flew from Vienna to Kazan.", true, false}, // names the asked place too
		{"When was Anna born?", "Anna was born in Kazan in 1990.", false, false},                            // the question places nothing
		{"When did the Vienna office open?", "The office in Kazan opened in 2015.", false, false},           // "Vienna" qualifies a noun: no place of the question's fact
		// Names match in their own script only, and not as a part of a hyphenated word: «в ЮАР» is
		// no "Juara", «Южно» of «Южно-Сахалинске» no «Южное».
		{"Когда было движение против инвестиций в Южно-Африканской Республике?", "Движение в ЮАР началось в 1980-х.", true, false},
		{"Когда было движение против инвестиций в Южно-Африканской Республике?", "В 1985 году студенты протестовали в Южно-Сахалинске.", true, false},
		{"When did the orchestra play in the UK?", "In 2023 it played in Vienna.", true, true}, // an acronym of two letters is a name
	} {
		other := placesOfOther(tc.question, g)
		if (other != nil) != tc.judged {
			t.Errorf("placesOfOther(%q) judged = %v, want %v", tc.question, other != nil, tc.judged)
			continue
		}
		if other != nil && other(tc.quote) != tc.want {
			t.Errorf("placesOfOther(%q)(%q) = %v, want %v", tc.question, tc.quote, other(tc.quote), tc.want)
		}
	}
	if placesOfOther("When did he perform in Kazan?", nil) != nil {
		t.Error("no gazetteer: judged")
	}
}

// A question that places its fact is not answered by a quote that states the fact of another
// place (a trial's near miss: the first concert in St Petersburg for the first one in Kazan); the
// quote that states it of the asked place answers.
func TestAnswerDateAtAnotherPlace(t *testing.T) {
	card := ariadne.ScoredChunk{Score: 0.9, Chunk: ariadne.Chunk{ID: "people/kenji#0000-eeeeeeee", DocID: "people/kenji",
		Title: "Kenji Morimoto", ACL: []string{"all"},
		Text: "Kenji Morimoto is a Japanese cellist who will perform in Kazan. He first performed with the Neva Virtuosi in St Petersburg in December 2023."}}
	q := "When did Kenji Morimoto first perform in Kazan?"
	cfg := AnswerConfig{Lexicon: (*lexicon.Lexicon)(nil).WithGazetteer(testPlaces(t))}
	ans := ask(t, answerer(t, TermExtractive{}, cfg, card), q)
	if ans.Status != ariadne.StatusNotFound || ans.Reason != "the question asks for a time at a place and every verified quote that states one is about another place" {
		t.Errorf("a date at another place: %s %q (%s)", ans.Status, ans.Answer, ans.Reason)
	}
	if ans := ask(t, answerer(t, TermExtractive{}, AnswerConfig{}, card), q); ans.Status != ariadne.StatusAnswered {
		t.Errorf("without a gazetteer the check is off: %s %q (%s)", ans.Status, ans.Answer, ans.Reason)
	}
	kazan := card
	kazan.Text += " He first performed in Kazan on 12 May 2026."
	if ans := ask(t, answerer(t, TermExtractive{}, cfg, kazan), q); ans.Status != ariadne.StatusAnswered || !strings.Contains(ans.Answer, "12 May 2026") {
		t.Errorf("the date in Kazan: %s %q (%s)", ans.Status, ans.Answer, ans.Reason)
	}
}

// quotingScript is a quoting generator behind the Generator interface: each attempt quotes the
// first of its sentences (all in fragment 1) that the attempt does not exclude.
type quotingScript struct{ sentences []string }

func (quotingScript) Name() string     { return "quoting-script" }
func (quotingScript) QuotesOnly() bool { return true }
func (g quotingScript) Generate(_ context.Context, in GenerationInput) (string, error) {
	for _, s := range g.sentences {
		if !slices.Contains(in.Exclude, s) {
			out, err := json.Marshal(map[string]any{"status": "answer", "claims": []any{map[string]any{"text": s,
				"citations": []any{map[string]any{"fragment": 1, "chunk_id": in.Fragments[0].Chunk.ID, "quote": s}}}}})
			return string(out), err
		}
	}
	return `{"status":"not_found","claims":[]}`, nil
}

// A quoting generator whose quote a fact check rejects is asked again without it: the sentence
// that states the fact of the asked place answers; when none is left, the refusal gives the
// check's reason, and the trace shows the rejected attempt.
func TestAnswerRetriesWithoutRejectedQuote(t *testing.T) {
	near := "He first performed with the Neva Virtuosi in St Petersburg in December 2023."
	right := "He first performed in Kazan on 12 May 2026."
	card := ariadne.ScoredChunk{Score: 0.9, Chunk: ariadne.Chunk{ID: "people/kenji#0000-eeeeeeee", DocID: "people/kenji",
		Title: "Kenji Morimoto", ACL: []string{"all"}, Text: "Kenji Morimoto is a cellist. " + near + " " + right}}
	cfg := AnswerConfig{Lexicon: (*lexicon.Lexicon)(nil).WithGazetteer(testPlaces(t))}
	q := "When did Kenji Morimoto first perform in Kazan?"
	ans := ask(t, answerer(t, quotingScript{[]string{near, right}}, cfg, card), q)
	if ans.Status != ariadne.StatusAnswered || ans.Answer == "" || !strings.Contains(ans.Answer, "12 May 2026") || strings.Contains(ans.Answer, "December 2023") {
		t.Errorf("the second attempt: %s %q (%s)", ans.Status, ans.Answer, ans.Reason)
	}
	if at := ans.Trace.Attempts; len(at) != 2 || at[0].Outcome != "rejected" || at[0].Error != "the question asks for a time at a place and every verified quote that states one is about another place" {
		t.Errorf("attempts: %+v", at)
	}
	ans = ask(t, answerer(t, quotingScript{[]string{near}}, cfg, card), q)
	if ans.Status != ariadne.StatusNotFound || ans.Reason != "the question asks for a time at a place and every verified quote that states one is about another place" {
		t.Errorf("nothing left: %s %q (%s)", ans.Status, ans.Answer, ans.Reason)
	}
}

// extractive-v1 does not quote a sentence an earlier attempt's fact check rejected.
func TestTermExtractiveExcludes(t *testing.T) {
	near := "Kenji Morimoto first performed with the orchestra in St Petersburg in December 2023."
	right := "Kenji Morimoto first performed in Kazan on 12 May 2026."
	frags := Fragments([]ariadne.ScoredChunk{{Chunk: ariadne.Chunk{ID: "people/kenji#0000-eeeeeeee", DocID: "people/kenji", ACL: []string{"all"}, Text: near + "\n\n" + right}}})
	in := GenerationInput{Question: "When did Kenji Morimoto first perform in Kazan?", Groups: []string{"all"}, Fragments: frags}
	first, err := TermExtractive{}.Generate(context.Background(), in)
	if err != nil || !strings.Contains(first, "St Petersburg") {
		t.Fatalf("first attempt: %s %v", first, err)
	}
	in.Exclude = []string{near}
	again, err := TermExtractive{}.Generate(context.Background(), in)
	if err != nil || strings.Contains(again, "St Petersburg") || !strings.Contains(again, "12 May 2026") {
		t.Errorf("without the rejected sentence: %s %v", again, err)
	}
}
