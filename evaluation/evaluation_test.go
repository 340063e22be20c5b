package evaluation

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func TestRankingMetrics(t *testing.T) {
	c := func(doc string) ariadne.ScoredChunk { return ariadne.ScoredChunk{Chunk: ariadne.Chunk{DocID: doc}} }
	ranked := DocRanking([]ariadne.ScoredChunk{c("a"), c("a"), c("b"), c("c"), c("a"), c("d")})
	if !slices.Equal(ranked, []string{"a", "b", "c", "d"}) {
		t.Fatalf("DocRanking = %v", ranked)
	}
	gold := []string{"c", "d", "z"}
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"hit@1", HitAt(ranked, gold, 1), 0},
		{"hit@3", HitAt(ranked, gold, 3), 1},
		{"recall@3", RecallAt(ranked, gold, 3), 1.0 / 3},
		{"recall@10", RecallAt(ranked, gold, 10), 2.0 / 3},
		{"mrr@10", MRRAt(ranked, gold, 10), 1.0 / 3},
		{"mrr@2", MRRAt(ranked, gold, 2), 0},
		{"recall no gold", RecallAt(ranked, nil, 5), 0},
	}
	for _, tc := range tests {
		if math.Abs(tc.got-tc.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if p := Percentile([]float64{5, 1, 4, 2, 3}, 50); p != 3 {
		t.Errorf("p50 = %v", p)
	}
	if p := Percentile([]float64{5, 1, 4, 2, 3}, 95); p != 5 {
		t.Errorf("p95 = %v", p)
	}
	if !math.IsNaN(Percentile(nil, 50)) || !math.IsNaN((Mean{}).Value()) {
		t.Error("empty statistics must be NaN")
	}
}

func TestEvidenceCoverage(t *testing.T) {
	cits := []ariadne.Citation{{Quote: "Отпуск — 28 календарных дней. Перенос согласуется."}, {Quote: "| Москва | 9 000 ₽ |"}}
	ev := []string{"отпуск - 28 календарных дней.", "| Москва | 9 000 ₽ | 7 000 ₽ |", "Не процитировано."}
	if got := evidenceCoverage(ev, cits); math.Abs(got-2.0/3) > 1e-12 {
		t.Fatalf("coverage = %v, want 2/3", got)
	}
}

func TestLoadGoldenAndDatasets(t *testing.T) {
	dir := t.TempDir()
	golden := filepath.Join(dir, "g.jsonl")
	os.WriteFile(golden, []byte(`{"id":"q1","question":"Q?","type":"simple","gold_docs":["a"]}`+"\n\n"+`{"id":"q2","question":"R?","type":"acl","user_groups":["all","sales"]}`+"\n"+
		`{"id":"q3","question":"S?","type":"simple","user_groups":["sre"]}`+"\n"), 0o644)
	qs, err := LoadGolden(golden)
	if err != nil || len(qs) != 3 || !slices.Equal(qs[0].UserGroups, []string{"all"}) || !slices.Equal(qs[1].UserGroups, []string{"all", "sales"}) ||
		!slices.Equal(qs[2].UserGroups, []string{"all", "sre"}) {
		t.Fatalf("LoadGolden = %+v, %v", qs, err)
	}
	os.WriteFile(golden, []byte(`{"id":"q1"}`+"\n"), 0o644)
	if _, err := LoadGolden(golden); err == nil {
		t.Error("a line without a question was accepted")
	}
	// "groups", the keys file's word, reads as user_groups; both, different, is an error
	os.WriteFile(golden, []byte(`{"id":"q1","question":"Q?","groups":["quality"]}`+"\n"+`{"id":"q2","question":"R?","groups":["x"],"user_groups":["x"]}`+"\n"), 0o644)
	if qs, err := LoadGolden(golden); err != nil || !slices.Equal(qs[0].UserGroups, []string{"all", "quality"}) || !slices.Equal(qs[1].UserGroups, []string{"all", "x"}) {
		t.Errorf("groups: LoadGolden = %+v, %v", qs, err)
	}
	os.WriteFile(golden, []byte(`{"id":"q1","question":"Q?","groups":["quality"],"user_groups":["sales"]}`+"\n"), 0o644)
	if _, err := LoadGolden(golden); err == nil || !strings.Contains(err.Error(), "give one") {
		t.Errorf("groups and user_groups that differ: %v", err)
	}

	mu := filepath.Join(dir, "m.json")
	os.WriteFile(mu, []byte(`[{"id":"2hop__1_2","question":"Who?","answer":"X","paragraphs":[
		{"idx":0,"title":"A","paragraph_text":"A is in B.","is_supporting":true},
		{"idx":1,"title":"C","paragraph_text":"C is far.","is_supporting":false},
		{"idx":2,"title":"B","paragraph_text":"B was founded by X.","is_supporting":true}]},
		{"id":"2hop__3_4","question":"Where?","answer":"Y","paragraphs":[
		{"idx":0,"title":"A","paragraph_text":"A is in B.","is_supporting":false}]}]`), 0o644)
	docs, mqs, err := LoadMuSiQue(mu)
	if err != nil || len(docs) != 3 || len(mqs) != 2 || len(mqs[0].GoldDocs) != 2 || mqs[0].Type != "multi_hop" || docs[0].Type != "article" {
		t.Fatalf("LoadMuSiQue: %d docs, %+v, %v", len(docs), mqs, err)
	}
	if docs[0].ID != mqs[0].GoldDocs[0] || docs[0].Body != "# A\n\nA is in B.\n" {
		t.Errorf("passage document %+v", docs[0])
	}

	xq := filepath.Join(dir, "x.json")
	os.WriteFile(xq, []byte(`{"data":[{"title":"T","paragraphs":[{"context":"Первое предложение. Ответ здесь: 42 года. Третье.","qas":[{"id":"x1","question":"Сколько?","answers":[{"text":"42 года","answer_start":33}]}]}]}]}`), 0o644)
	xdocs, xqs, err := LoadXQuAD(xq, "ru")
	if err != nil || len(xdocs) != 1 || len(xqs) != 1 || xqs[0].Evidence[0] != "Ответ здесь: 42 года." || xqs[0].GoldDocs[0] != xdocs[0].ID {
		t.Fatalf("LoadXQuAD: %+v %+v %v", xdocs, xqs, err)
	}
}

// MatchGoldDocs reads a gold document written as a file name as the corpus's document id and
// says which gold documents are no document at all.
func TestMatchGoldDocs(t *testing.T) {
	qs := []Question{{ID: "q1", GoldDocs: []string{"breweries/vyborg.md", "people/belov"}}, {ID: "q2", GoldDocs: []string{"notes/missing.md", "x.json"}}}
	notes := MatchGoldDocs(qs, map[string]bool{"breweries/vyborg": true, "people/belov": true})
	if !slices.Equal(qs[0].GoldDocs, []string{"breweries/vyborg", "people/belov"}) || !slices.Equal(qs[1].GoldDocs, []string{"notes/missing.md", "x.json"}) {
		t.Errorf("gold docs %q %q", qs[0].GoldDocs, qs[1].GoldDocs)
	}
	want := []string{
		"question q1: gold document breweries/vyborg.md read as the document id breweries/vyborg",
		"question q2: gold document notes/missing.md is no document id of the corpus (ids are the front matter's id:)",
		"question q2: gold document x.json is no document id of the corpus (ids are the front matter's id:)",
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
}

// The report lists the answers whose status is right but whose text may not be: no gold document
// cited, or less than half of the golden answer's tokens — fewest first; right answers (a long
// sentence holding the answer too) and refusals are not listed.
func TestAnswersToRead(t *testing.T) {
	qs := []QuestionOutcome{
		{ID: "good", Status: "answered", Correct: true, F1: 0.1, Recall: 1, GoldAnswer: "Kazan", GoldDocs: []string{"a"}, CitedDocs: []string{"a"}, Answer: "The office is in Kazan, on Lenin Street, since 2019."},
		{ID: "offdoc", Status: "answered", Correct: true, F1: 0.5, Recall: 1, GoldAnswer: "Kazan", GoldDocs: []string{"a"}, CitedDocs: []string{"b"}, Answer: "Kazan."},
		{ID: "lowf1", Status: "answered", Correct: true, Recall: 0, GoldAnswer: "Kazan", GoldDocs: []string{"a"}, CitedDocs: []string{"a"}, Answer: "It is in the city."},
		{ID: "refused", Status: "not_found", Correct: false, GoldDocs: []string{"a"}},
		{ID: "noanswer", Status: "not_found", Correct: true},
	}
	var b strings.Builder
	answersToRead(&b, qs)
	var ids []string
	for _, l := range strings.Split(b.String(), "\n") {
		if f := strings.Split(l, " | "); strings.HasPrefix(l, "| ") && len(f) > 1 && f[0] != "| id" && !strings.HasPrefix(l, "|---") {
			ids = append(ids, strings.TrimPrefix(f[0], "| "))
		}
	}
	if !slices.Equal(ids, []string{"lowf1", "offdoc"}) || !strings.Contains(b.String(), "Answers to read (2)") {
		t.Errorf("listed %q in\n%s", ids, b.String())
	}
}
