package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func TestUnknownName(t *testing.T) {
	frag := func(title, text string) Fragment {
		return Fragment{Chunk: ariadne.Chunk{ID: "x#0000-00000000", Title: title, Text: text}}
	}
	agrostep := frag("AgroStep", "AgroStep Holding JSC is an agricultural group. - Marina Lebedeva — our account manager.")
	lex := testLexicon(t)
	lavrovo := frag("Порт Лаврово", "Проект для порта «Лаврова» ведёт команда интеграций.")
	tests := []struct {
		name     string
		question string
		linked   []Linked
		frags    []Fragment
		want     string
	}{
		{"a client no fragment names", "Who is the account manager for Orbita Clinic?", nil, []Fragment{agrostep}, "Orbita Clinic"},
		{"the client the fragments name", "Who is the account manager for AgroStep?", nil, []Fragment{agrostep}, ""},
		{"named in another script and case", "Кто аккаунт-менеджер АгроСтепа?", nil, []Fragment{agrostep}, ""},
		{"inflected", "Какая команда ведёт проект для порта Лаврово?", nil, []Fragment{lavrovo}, ""},
		{"a short name inflected, across scripts", "Кому передадут задачи Ольги Смирновой?", nil,
			[]Fragment{frag("Planning", "Olga Smirnova goes on leave in May.")}, ""},
		{"a namesake is not the person", "Who is Marina Petrova?", nil, []Fragment{agrostep}, "Marina Petrova"},
		{"a made-up client sharing a word with a real one", "Who is the account manager of Nordwind Holding?", nil, []Fragment{agrostep}, "Nordwind Holding"},
		{"every word in one fragment", "Who manages AgroStep Holding?", nil, []Fragment{lavrovo, agrostep}, ""},
		{"capitalized common words are not judged", "What does the Harbour Lighthouse Keeper say?", nil, []Fragment{agrostep}, ""},
		{"with a name's own word they are", "Who runs Orbita Lighthouse?", nil, []Fragment{agrostep}, "Orbita Lighthouse"},
		{"a linked entity is known", "Who leads Kestrel?", []Linked{{Key: "projects/kestrel", Surface: "Kestrel"}}, []Fragment{agrostep}, ""},
		{"not linked and not in the fragments", "Who leads Kestrel?", nil, []Fragment{agrostep}, "Kestrel"},
		{"a sentence's first word is no name", "Tell me more. Who manages AgroStep?", nil, []Fragment{agrostep}, ""},
		{"acronyms and codes are not judged", "What does the SLA of PRJ-2031 say?", nil, []Fragment{agrostep}, ""},
		{"no name", "how many hectares does the group farm?", nil, []Fragment{agrostep}, ""},
		{"a quoted name of dictionary words is judged", `Who runs "Harbour Lighthouse"?`, nil, []Fragment{agrostep}, "Harbour Lighthouse"},
		{"in guillemets too", "Кто отвечает за «Маяк»?", nil, []Fragment{agrostep}, "Маяк"},
		{"a quoted name a fragment gives by a translation", "Кто отвечает за «Маяк»?", nil,
			[]Fragment{agrostep, frag("Projects", "The Lighthouse project is run by the data team.")}, ""},
		{"a quoted name a fragment gives", `Who runs the "Harbour Lighthouse"?`, nil,
			[]Fragment{frag("Ports", "The Harbour Lighthouse is run by the port authority.")}, ""},
		{"a quoted title inflected past TokenMatch, by its stems", `Каково краткое название "Тысячелетней реконструкции температуры"?`, nil,
			[]Fragment{frag("Climate", `Показан график "Тысячелетняя реконструкция температуры" из статьи 1999 года.`)}, ""},
		{"two capitalized Russian dictionary words are a name", "Кто аккаунт-менеджер клиента Гавань Маяк?", nil, []Fragment{agrostep}, "Гавань Маяк"},
		{"one is not judged", "Кто аккаунт-менеджер клиента Маяк?", nil, []Fragment{agrostep}, ""},
		{"nor English title case", "Who approves the Harbour Keeper Allowance?", nil, []Fragment{agrostep}, ""},
		{"a lowercase quote is no name", `What does "as is" mean for AgroStep?`, nil, []Fragment{agrostep}, ""},
		{"a long quote is text, not a name", `What did the note "Harbour keeper built it in a year" say?`, nil, []Fragment{agrostep}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := unknownName(tc.question, tc.linked, tc.frags, lex); got != tc.want {
				t.Errorf("unknownName(%q) = %q, want %q", tc.question, got, tc.want)
			}
		})
	}
}

// TestAnswerUnknownName: asked about a client no readable document names, the answer is
// not_found with the reason, not another client's account manager (the README trial's case).
func TestAnswerUnknownName(t *testing.T) {
	agrostep := ariadne.ScoredChunk{Score: 0.8, Chunk: ariadne.Chunk{ID: "clients/agrostep#0002-16c8571b", DocID: "clients/agrostep",
		Title: "AgroStep", ACL: []string{"all"}, Text: "AgroStep Holding JSC is an agricultural group.\n\n- Marina Lebedeva — our account manager."}}
	a := answerer(t, TermExtractive{}, AnswerConfig{}, agrostep)
	ans := ask(t, a, "Who is the account manager for Orbita Clinic?")
	if ans.Status != ariadne.StatusNotFound || len(ans.Claims) != 0 {
		t.Fatalf("unknown client: %s %+v", ans.Status, ans.Claims)
	}
	if d := ans.Trace.Evidence; d == nil || d.Reason != "a name in the question is in no fragment and names no entity the caller may read" {
		t.Errorf("evidence decision %+v", d)
	}
	if ans = ask(t, a, "Who is the account manager for AgroStep?"); ans.Status != ariadne.StatusAnswered || !strings.Contains(ans.Answer, "Marina Lebedeva") {
		t.Errorf("known client: %s %q", ans.Status, ans.Answer)
	}
}

// nameIndex answers a BM25 search whose text is one of its names with that name's chunks (as
// the caller may read them, like the index), and any other search as search does.
type nameIndex struct {
	fakeSearch
	names map[string][]ariadne.ScoredChunk
}

func (f nameIndex) Search(ctx context.Context, mode ariadne.SearchMode, q ariadne.SearchQuery) ([]ariadne.ScoredChunk, error) {
	if hits, ok := f.names[q.Text]; ok && mode == ariadne.SearchBM25 {
		return fakeSearch{hits}.Search(ctx, mode, q)
	}
	return f.fakeSearch.Search(ctx, mode, q)
}

// TestAnswerNameKnownOutsideFragments: a name the retrieved fragments lack but a readable chunk
// of the index gives (the city of a conference, in a question about a budget rule) does not make
// the answer not_found, and that chunk is not quoted; a chunk the caller may not read does not
// make the name known, nor does a search that finds nothing.
func TestAnswerNameKnownOutsideFragments(t *testing.T) {
	budget := ariadne.ScoredChunk{Score: 0.8, Chunk: ariadne.Chunk{ID: "policies/training#0001-aaaaaaaa", DocID: "policies/training",
		Title: "Training budget", ACL: []string{"all"}, Text: "Conference tickets above 30 000 RUB are approved by the finance director, Vera Lapina."}}
	office := ariadne.ScoredChunk{Score: 3, Chunk: ariadne.Chunk{ID: "notes/offices#0000-bbbbbbbb", DocID: "notes/offices",
		Title: "Offices", ACL: []string{"all"}, Text: "Our Moscow office is on Tverskaya street."}}
	secret := office
	secret.Chunk.ID, secret.Chunk.DocID, secret.Chunk.ACL = "notes/secret#0000-cccccccc", "notes/secret", []string{"management"}
	q := "Who approves a 45 000 RUB ticket to a conference in Moscow?"
	for _, tc := range []struct {
		name  string
		index []ariadne.ScoredChunk
		want  ariadne.Status
	}{
		{"a readable chunk names the city", []ariadne.ScoredChunk{office}, ariadne.StatusAnswered},
		{"only a restricted one does", []ariadne.ScoredChunk{secret}, ariadne.StatusNotFound},
		{"none does", nil, ariadne.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRetriever(nameIndex{fakeSearch{[]ariadne.ScoredChunk{budget}}, map[string][]ariadne.ScoredChunk{"Moscow": tc.index}},
				emptyGraph{}, fixedEmbedder{}, nil, RetrievalConfig{MinCoverage: 0.01}, nil)
			a := NewAnswerer(r, TermExtractive{}, fixedCount(1), AnswerConfig{}, Hooks{}, nil)
			ans := ask(t, a, q)
			if ans.Status != tc.want {
				t.Fatalf("%s %q, want %s", ans.Status, ans.Answer, tc.want)
			}
			if ans.Status == ariadne.StatusAnswered && (!strings.Contains(ans.Answer, "Vera Lapina") || strings.Contains(ans.Answer, "Tverskaya")) {
				t.Errorf("answer %q: want the budget rule, not the office", ans.Answer)
			}
		})
	}
}
