package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
)

// candidatesGraph proposes fixed entity candidates; it knows nothing else.
type candidatesGraph struct {
	emptyGraph
	cands []ariadne.EntityCandidate
}

func (g candidatesGraph) EntityCandidates(context.Context, string, []string, int) ([]ariadne.EntityCandidate, error) {
	return g.cands, nil
}

// A question may keep one distinctive word of a name ("the Lipetsky plant", «Зимин»): linked
// as partial when that word names exactly one candidate; never by a person's first name, a
// short generic word, a lower-case word or a word two candidates share; and a whole-name match
// wins.
func TestLinkPartialNames(t *testing.T) {
	cand := func(key, name, typ string, aliases ...string) ariadne.EntityCandidate {
		return ariadne.EntityCandidate{StoredEntity: ariadne.StoredEntity{Entity: ariadne.Entity{Key: key, Name: name, Type: typ, Aliases: aliases}}}
	}
	cands := []ariadne.EntityCandidate{
		cand("clients/lzm", "АО «Липецкий завод металлоконструкций»", "client", "Lipetsky Steel Works", "ЛЗМ"),
		cand("people/petr-zimin", "Пётр Зимин", "person", "Peter Zimin"),
		cand("people/petr-somov", "Пётр Сомов", "person"),
		cand("teams/data", "Data Team", "team", "Команда данных"),
		cand("teams/safety", "Отдел охраны труда", "team", "Safety Office"),
		cand("projects/north-gate", "North Gateway", "project"),
		cand("projects/south-gate", "South Gateway", "project"),
	}
	r := NewRetriever(fakeSearch{}, candidatesGraph{cands: cands}, fixedEmbedder{}, nil, RetrievalConfig{}, nil)
	tests := []struct {
		question string
		want     []string // key:surface, partial marked with *
	}{
		{"Who heads the team that works for the Lipetsky plant?", []string{"clients/lzm:Lipetsky*"}},
		{"Кто такой Зимин?", []string{"people/petr-zimin:Зимин*"}},
		{"Кто такой Пётр?", nil},       // a first name: two Petrs, and never alone
		{"Which Data is stored?", nil}, // short and generic
		{"Who owns the gateway?", nil}, // lower case
		{"Где головной офис, в котором сидит Зимин?", []string{"people/petr-zimin:Зимин*"}}, // «офис» is no "Office"
		{"Who owns the Gateway?", nil}, // two candidates share it
		{"Кто руководит ЛЗМ и работает с Lipetsky Steel Works?", []string{"clients/lzm:ЛЗМ"}}, // whole names win
		{"Where does Peter Zimin sit, and what does Somov do?", []string{"people/petr-zimin:Peter Zimin", "people/petr-somov:Somov*"}},
	}
	for _, tc := range tests {
		linked, err := r.Link(context.Background(), tc.question, []string{"all"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range linked {
			s := l.Key + ":" + l.Surface
			if l.Partial {
				s += "*"
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Link(%q) = %v, want %v", tc.question, got, tc.want)
		}
		if w := wholeLinks(linked); len(w) != len(linked)-countPartial(linked) {
			t.Errorf("wholeLinks(%v) = %v", linked, w)
		}
	}
}

func countPartial(ls []Linked) int {
	n := 0
	for _, l := range ls {
		if l.Partial {
			n++
		}
	}
	return n
}

// idSearch returns hits for a free search and, for a search restricted to chunk ids, the pages'
// chunks among those ids.
type idSearch struct{ hits, pages []ariadne.ScoredChunk }

func (s idSearch) Search(_ context.Context, _ ariadne.SearchMode, q ariadne.SearchQuery) ([]ariadne.ScoredChunk, error) {
	if len(q.ChunkIDs) == 0 {
		return s.hits, nil
	}
	var out []ariadne.ScoredChunk
	for _, c := range s.pages {
		if slices.Contains(q.ChunkIDs, c.ID) {
			out = append(out, c)
		}
	}
	return out, nil
}

// pageGraph is candidatesGraph that also lists a documented entity's page chunks.
type pageGraph struct {
	candidatesGraph
	pages map[string][]string // document id → chunk ids
}

func (g pageGraph) DocumentChunkIDs(_ context.Context, docs, _ []string) ([]string, error) {
	var out []string
	for _, d := range docs {
		out = append(out, g.pages[d]...)
	}
	return out, nil
}

// A question in one script about an entity whose page is in the other: the search's own hits
// state nothing of it, the linked entity's page, fused in, names it — the step's evidence is the
// fused list's, so it is not weak and does not escalate.
func TestLinkedPageCountsAsEvidence(t *testing.T) {
	other := ariadne.ScoredChunk{Score: 0.5, Chunk: ariadne.Chunk{ID: "policies/leave#0000-11111111", DocID: "policies/leave", Title: "Отпуск",
		ACL: []string{"all"}, Text: "Отпуск составляет 28 календарных дней."}}
	page := ariadne.ScoredChunk{Score: 0.4, Chunk: ariadne.Chunk{ID: "people/petr-zimin#0000-22222222", DocID: "people/petr-zimin", Title: "Peter Zimin",
		ACL: []string{"all"}, Text: "Peter Zimin leads the data team."}}
	g := pageGraph{candidatesGraph{cands: []ariadne.EntityCandidate{{StoredEntity: ariadne.StoredEntity{Entity: ariadne.Entity{
		Key: "people/petr-zimin", Name: "Peter Zimin", Type: "person", DocID: "people/petr-zimin", Aliases: []string{"Пётр Зимин"}}}}}},
		map[string][]string{"people/petr-zimin": {page.ID}}}
	r := NewRetriever(idSearch{hits: []ariadne.ScoredChunk{other}, pages: []ariadne.ScoredChunk{page}}, g, fixedEmbedder{}, nil, RetrievalConfig{}, nil)
	res, err := r.Retrieve(context.Background(), Request{Question: "Кто такой Зимин?", Groups: []string{"all"}, Mode: "hybrid"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trace.Steps) != 1 {
		t.Fatalf("steps %+v, want one (no escalation)", res.Trace.Steps)
	}
	if s := res.Trace.Steps[0]; s.Coverage != 1 || s.Weak || res.Evidence.Weak {
		t.Errorf("step %+v, evidence %+v: want coverage 1, not weak", s, res.Evidence)
	}
	if !slices.ContainsFunc(res.Chunks, func(c ariadne.ScoredChunk) bool { return c.ID == page.ID }) {
		t.Errorf("chunks %+v, want the linked page", res.Chunks)
	}
}

// placesGraph answers the question's own search with qcands and a search by a place's names
// (PlaceCandidates) with pcands; it records the texts searched.
type placesGraph struct {
	emptyGraph
	qcands, pcands []ariadne.EntityCandidate
	searched       *[]string
}

func (g placesGraph) EntityCandidates(_ context.Context, text string, _ []string, _ int) ([]ariadne.EntityCandidate, error) {
	*g.searched = append(*g.searched, text)
	if len(*g.searched) == 1 {
		return g.qcands, nil
	}
	return g.pcands, nil
}

// With a gazetteer, a place the question names in one language links the location entity the
// knowledge base names in the other ("Vienna" → «Вена», «в Вене» → "Vienna"); a name two places
// of close size share links nothing, nor does a candidate that is no location.
func TestLinkPlacesByGazetteer(t *testing.T) {
	g, err := lexicon.ReadGazetteer("places.tsv", strings.NewReader(
		"city\t2761369\tAT\t1691468\tVienna\tВена\n"+
			"city\t487928\tRU\t15700\tVenëv\tВенёв\n"+
			"city\t698740\tUA\t1001558\tOdesa\tOdessa\tОдесса\n"+
			"city\t5527554\tUS\t123000\tOdessa\tОдесса\n"+
			"city\t629634\tBY\t340141\tBrest\tБрест\n"+
			"city\t3030300\tFR\t139926\tBrest\tБрест\n"))
	if err != nil {
		t.Fatal(err)
	}
	cand := func(key, name, typ string, aliases ...string) ariadne.EntityCandidate {
		return ariadne.EntityCandidate{StoredEntity: ariadne.StoredEntity{Entity: ariadne.Entity{Key: key, Name: name, Type: typ, Aliases: aliases}}}
	}
	vena := cand("location:vena", "Вена", "location", "Вене")
	brest := cand("location:brest", "Брест", "location")
	for _, tc := range []struct {
		question string
		pcands   []ariadne.EntityCandidate
		want     []string // key:surface
	}{
		{"What happened to the double bass in Vienna?", []ariadne.EntityCandidate{vena}, []string{"location:vena:Vienna"}},
		{"Who flew to Vienna?", []ariadne.EntityCandidate{cand("orgs/vienna-phil", "Wiener Philharmoniker", "organization", "Vienna Phil")}, nil},
		{"Who played in Brest?", []ariadne.EntityCandidate{brest}, nil},                                        // Belarus or France: not chosen
		{"Who played in vienna?", []ariadne.EntityCandidate{vena}, nil},                                        // lower case: no name
		{"Who played in Odessa?", []ariadne.EntityCandidate{cand("location:odesa", "Одеса", "location")}, nil}, // Ukraine's 8 times Texas's: as at ingestion, nobody's
	} {
		var searched []string
		lex := (*lexicon.Lexicon)(nil).WithGazetteer(g)
		r := NewRetriever(fakeSearch{}, placesGraph{pcands: tc.pcands, searched: &searched}, fixedEmbedder{}, nil, RetrievalConfig{Lexicon: lex}, nil)
		linked, err := r.Link(context.Background(), tc.question, []string{"all"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range linked {
			got = append(got, l.Key+":"+l.Surface)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: linked %q, want %q (searched %q)", tc.question, got, tc.want, searched)
		}
	}
	// Russian, inflected, against an entity the knowledge base names in English.
	var searched []string
	vienna := cand("location:viena", "Vienna", "location")
	r := NewRetriever(fakeSearch{}, placesGraph{pcands: []ariadne.EntityCandidate{vienna}, searched: &searched}, fixedEmbedder{},
		nil, RetrievalConfig{Lexicon: (*lexicon.Lexicon)(nil).WithGazetteer(g)}, nil)
	linked, err := r.Link(context.Background(), "Что случилось с контрабасом в Вене?", []string{"all"})
	if err != nil {
		t.Fatal(err)
	}
	if len(linked) != 1 || linked[0].Key != "location:viena" || linked[0].Surface != "Вене" {
		t.Errorf("«в Вене»: linked %+v, want location:viena by «Вене»", linked)
	}
	if len(searched) != 2 || searched[1] != "Vienna Вена" {
		t.Errorf("searched %q, want the question, then the place's names", searched)
	}
	// A name as the gazetteer writes it is that place's, though inflection also finds a bigger one.
	searched = nil
	if _, err := r.Link(context.Background(), "Что случилось в Венёве?", []string{"all"}); err != nil || len(searched) != 2 || searched[1] != "Venëv Венёв" {
		t.Errorf("«в Венёве»: searched %q (err %v), want Venëv's names", searched, err)
	}
	// Without a gazetteer nothing more is searched.
	searched = nil
	r = NewRetriever(fakeSearch{}, placesGraph{pcands: []ariadne.EntityCandidate{vienna}, searched: &searched}, fixedEmbedder{}, nil, RetrievalConfig{}, nil)
	if linked, _ := r.Link(context.Background(), "Что случилось в Вене?", []string{"all"}); len(linked) != 0 || len(searched) != 1 {
		t.Errorf("without a gazetteer: linked %+v after %d searches, want none after 1", linked, len(searched))
	}
}
