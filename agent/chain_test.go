package agent

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/resolution"
)

func TestNamesEntity(t *testing.T) {
	tests := []struct {
		text, name string
		want       bool
	}{
		{"Аккаунт-менеджер клиента — Ольга Стрельцова.", "Ольга Стрельцова", true},
		{"Аккаунт-менеджера Ольгу Стрельцову зовут на встречу.", "Ольга Стрельцова", true}, // inflected
		{"The account is managed by Olga Streltsova.", "Ольга Стрельцова", true},           // other script
		{"Ольга ведёт аккаунт.", "Ольга Стрельцова", false},                                // one token of two
		{"Аккаунт-менеджер — О. Стрельцова.", "Ольга Стрельцова", true},                    // initial
		{"Аккаунт-менеджер — О. С.", "Ольга Стрельцова", false},                            // initials only
		{"ООО «Вега-Транс» — заказчик.", "Vega Trans", true},
		{"Incident INC-7702 was led by K. Dymov.", "INC-7702", true},
		{"Incident INC-7701 was led by K. Dymov.", "INC-7702", false},
		{"anything", "", false},
	}
	for _, tc := range tests {
		if got := namesEntity(tc.text, tc.name); got != tc.want {
			t.Errorf("namesEntity(%q, %q) = %v, want %v", tc.text, tc.name, got, tc.want)
		}
	}
}

// memChunks is an in-memory ChunkReader that filters by ACL as graph.Store does.
type memChunks []ariadne.Chunk

func (m memChunks) Chunks(_ context.Context, ids, groups []string) ([]ariadne.Chunk, error) {
	var out []ariadne.Chunk
	for _, c := range m {
		if containsString(ids, c.ID) && ariadne.CanRead(c.ACL, groups) {
			out = append(out, c)
		}
	}
	return out, nil
}

// claimChain plans the chain as Answer does and verifies its claims.
func claimChain(a *Answerer, req Request, paths []ariadne.Path, frags []Fragment) ([]ariadne.Claim, []ChainHop, error) {
	plan, err := a.planChain(context.Background(), req, nil, paths, false, frags, newTrace())
	if err != nil {
		return nil, nil, err
	}
	return chainClaims(context.Background(), plan, withChain(frags, plan))
}

func TestChainClaims(t *testing.T) {
	inc := pageChunk("incidents/inc-1#0000-11111111", "INC-1",
		"Инцидент INC-1 затронул сервис клиента «Вега-Транс». Руководитель инцидента — К. Дымов.")
	client := ariadne.Chunk{ID: "clients/vega#0001-22222222", DocID: "clients/vega", Title: "ООО «Вега-Транс»", ACL: []string{"all"},
		Heading: []string{"Контакты"}, Text: "Клиент с 2019 года. Аккаунт-менеджер — Ольга Стрельцова."}
	secret := ariadne.Chunk{ID: "clients/vega#0002-33333333", DocID: "clients/vega", Title: "ООО «Вега-Транс»", ACL: []string{"management"},
		Text: "Ольга Стрельцова согласовала скидку для «Вега-Транс»."}
	nodes := []ariadne.PathNode{{Key: "incident:inc 1", Name: "INC-1"}, {Key: "client:vega", Name: "Вега-Транс"}, {Key: "person:streltsova", Name: "Ольга Стрельцова"}}
	path := ariadne.Path{Nodes: nodes, Edges: []ariadne.PathEdge{
		{From: "incident:inc 1", To: "client:vega", Type: "AFFECTED", ChunkIDs: []string{inc.ID}},
		{From: "person:streltsova", To: "client:vega", Type: "ACCOUNT_MANAGER_OF", ChunkIDs: []string{client.ID}},
	}}
	frags := Fragments([]ariadne.ScoredChunk{{Chunk: inc}})
	a := &Answerer{cfg: AnswerConfig{Chunks: memChunks{inc, client, secret}}}
	req := Request{Groups: []string{"all"}}
	claims, chain, err := claimChain(a, req, []ariadne.Path{path}, frags)
	if err != nil {
		t.Fatal(err)
	}
	if len(chain) != 2 || len(claims) != 2 {
		t.Fatalf("chain %+v, claims %+v", chain, claims)
	}
	want := []struct{ from, to, chunk, quote string }{
		{"INC-1", "Вега-Транс", inc.ID, "Инцидент INC-1 затронул сервис клиента «Вега-Транс»."},
		// the client is named by the chunk's title, the person by the sentence
		{"Ольга Стрельцова", "Вега-Транс", client.ID, "Аккаунт-менеджер — Ольга Стрельцова."},
	}
	for i, w := range want {
		c := chain[i].Citation
		if chain[i].From != w.from || chain[i].To != w.to || c.ChunkID != w.chunk || c.Quote != w.quote || !c.Verified {
			t.Errorf("hop %d = %+v, want %+v", i, chain[i], w)
		}
		chunkText := inc.Text
		if i == 1 {
			chunkText = client.Text
		}
		if chunkText[c.Start:c.End] != w.quote {
			t.Errorf("hop %d offsets %d..%d do not hold the quote", i, c.Start, c.End)
		}
	}
	// The second hop's only sentence is in a chunk the caller may not read: no chain is claimed.
	path.Edges[1].ChunkIDs = []string{secret.ID}
	_, chain, err = claimChain(a, req, []ariadne.Path{path}, frags)
	if err != nil || len(chain) != 0 {
		t.Errorf("a hop without a readable sentence: chain %+v, err %v", chain, err)
	}
	// Without a chunk reader only the fragments are searched: the first hop alone is a 1-hop chain.
	one := ariadne.Path{Nodes: nodes[:2], Edges: path.Edges[:1]}
	a.cfg.Chunks = nil
	_, chain, _ = claimChain(a, req, []ariadne.Path{path, one}, frags)
	if len(chain) != 1 || chain[0].Citation.ChunkID != inc.ID {
		t.Errorf("fragments only: %+v", chain)
	}
}

// The chain follows the question: of two claimable paths, the one whose sentences cover more of
// the question's terms is cited even when it is longer, and its chunks join the fragments.
func TestPlanChainFollowsQuestion(t *testing.T) {
	inc := pageChunk("incidents/inc-1#0000-11111111", "INC-1",
		"Инцидент INC-1 затронул сервис клиента «Вега-Транс». Руководитель инцидента — К. Дымов.")
	client := ariadne.Chunk{ID: "clients/vega#0001-22222222", DocID: "clients/vega", Title: "ООО «Вега-Транс»", ACL: []string{"all"},
		Heading: []string{"Контакты"}, Text: "Клиент с 2019 года. Аккаунт-менеджер — Ольга Стрельцова."}
	inc1, vega, streltsova, dymov := ariadne.PathNode{Key: "incident:inc 1", Name: "INC-1"}, ariadne.PathNode{Key: "client:vega", Name: "Вега-Транс"},
		ariadne.PathNode{Key: "person:streltsova", Name: "Ольга Стрельцова"}, ariadne.PathNode{Key: "person:dymov", Name: "К. Дымов"}
	short := ariadne.Path{Nodes: []ariadne.PathNode{inc1, dymov}, Edges: []ariadne.PathEdge{
		{From: inc1.Key, To: dymov.Key, Type: "HANDLED_BY", ChunkIDs: []string{inc.ID}},
	}}
	long := ariadne.Path{Nodes: []ariadne.PathNode{inc1, vega, streltsova}, Edges: []ariadne.PathEdge{
		{From: inc1.Key, To: vega.Key, Type: "AFFECTS", ChunkIDs: []string{inc.ID}},
		{From: vega.Key, To: streltsova.Key, Type: "CONTACT", ChunkIDs: []string{client.ID}},
	}}
	frags := Fragments([]ariadne.ScoredChunk{{Chunk: inc}})
	a := &Answerer{cfg: AnswerConfig{Chunks: memChunks{inc, client}}}
	req := Request{Question: "Кто аккаунт-менеджер клиента, чей сервис затронул INC-1?", Groups: []string{"all"}}
	plan, err := a.planChain(context.Background(), req, nil, []ariadne.Path{short, long}, false, frags, newTrace())
	if err != nil {
		t.Fatal(err)
	}
	if plan.path.Hops() != 2 || len(plan.hops) != 2 || plan.hops[1].quote != "Аккаунт-менеджер — Ольга Стрельцова." {
		t.Fatalf("plan = %+v, want the 2-hop path through the client", plan)
	}
	all := withChain(frags, plan)
	if len(all) != 2 || all[1].N != 2 || all[1].Chunk.ID != client.ID {
		t.Fatalf("fragments with the chain = %+v, want the client's chunk as fragment 2", all)
	}
	// Asked about the incident's commander, the short path covers more and is chosen.
	req.Question = "Кто был руководителем инцидента INC-1?"
	if plan, _ = a.planChain(context.Background(), req, nil, []ariadne.Path{long, short}, false, frags, newTrace()); plan.path.Hops() != 1 {
		t.Errorf("commander question: plan %+v, want the 1-hop path", plan)
	}
}

// memPages is memChunks that also lists a document's chunks (DocumentChunkReader).
type memPages struct{ memChunks }

func (m memPages) DocumentChunkIDs(_ context.Context, docIDs, groups []string) ([]string, error) {
	var out []string
	for _, c := range m.memChunks {
		if containsString(docIDs, c.DocID) && ariadne.CanRead(c.ACL, groups) {
			out = append(out, c.ID)
		}
	}
	return out, nil
}

// A question about the chain's last entity ("the office of the account manager of X") is answered
// from that entity's own page: the unit that states the term the hops leave unstated is claimed
// after the hops — across scripts through a cognate («офисе» / "Office"), never from a chunk the
// caller may not read, and never a table's header row.
func TestPlanChainLastEntityFact(t *testing.T) {
	client := ariadne.Chunk{ID: "clients/vega#0001-22222222", DocID: "clients/vega", Title: "ООО «Вега-Транс»", ACL: []string{"all"},
		Heading: []string{"Контакты"}, Text: "Клиент с 2019 года. Аккаунт-менеджер — Ольга Стрельцова."}
	bio := pageChunk("people/streltsova#0000-44444444", "Olga Streltsova",
		"Olga Streltsova is an account manager in the Sales department. She joined in 2020.")
	contacts := ariadne.Chunk{ID: "people/streltsova#0001-55555555", DocID: "people/streltsova", Title: "Olga Streltsova", ACL: []string{"all"},
		Heading: []string{"Contacts"}, Text: "| Field | Office |\n|---|---|\n| Desk | 4th floor |\n\n- E-mail: o.streltsova@example.org\n- Office: Kazan"}
	secret := ariadne.Chunk{ID: "people/streltsova#0002-66666666", DocID: "people/streltsova", Title: "Olga Streltsova", ACL: []string{"hr"},
		Text: "From March her office is in Kestrov."}
	vega := ariadne.PathNode{Key: "client:vega", Name: "Вега-Транс", DocID: "clients/vega"}
	streltsova := ariadne.PathNode{Key: "person:streltsova", Name: "Ольга Стрельцова", DocID: "people/streltsova"}
	path := ariadne.Path{Nodes: []ariadne.PathNode{vega, streltsova}, Edges: []ariadne.PathEdge{
		{From: vega.Key, To: streltsova.Key, Type: "CONTACT", ChunkIDs: []string{client.ID}},
	}}
	frags := Fragments([]ariadne.ScoredChunk{{Chunk: client}})
	lex := testLexicon(t)
	a := &Answerer{cfg: AnswerConfig{Chunks: memPages{memChunks{client, bio, contacts, secret}}, Lexicon: lex}}
	req := Request{Question: "В каком офисе сидит аккаунт-менеджер «Вега-Транса»?", Groups: []string{"all"}}
	claims, chain, err := claimChain(a, req, []ariadne.Path{path}, frags)
	if err != nil {
		t.Fatal(err)
	}
	if len(chain) != 1 || len(claims) != 2 {
		t.Fatalf("chain %+v, claims %+v; want one hop and the office", chain, claims)
	}
	if c := claims[1].Citations[0]; c.ChunkID != contacts.ID || c.Quote != "- Office: Kazan" || contacts.Text[c.Start:c.End] != c.Quote {
		t.Errorf("last claim cites %s %q at %d..%d, want the contacts chunk's office line", c.ChunkID, c.Quote, c.Start, c.End)
	}
	// A caller who may read nothing of the page but a chunk of another group gets the hop alone.
	a.cfg.Chunks = memPages{memChunks{client, secret}}
	claims, chain, _ = claimChain(a, req, []ariadne.Path{path}, frags)
	if len(chain) != 1 || len(claims) != 1 {
		t.Errorf("page unreadable: chain %+v, claims %+v; want the hop alone", chain, claims)
	}
	// A question the hop answers in full needs no fact from the page.
	a.cfg.Chunks = memPages{memChunks{client, bio, contacts}}
	req.Question = "Кто аккаунт-менеджер «Вега-Транса»?"
	if claims, _, _ = claimChain(a, req, []ariadne.Path{path}, frags); len(claims) != 1 {
		t.Errorf("role question: claims %+v, want the hop alone", claims)
	}
}

// memAliases is memPages that also gives entities' other names (EntityAliasReader).
type memAliases struct {
	memPages
	aliases map[string][]string
}

func (m memAliases) EntityAliases(_ context.Context, keys, _ []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, k := range keys {
		if a, ok := m.aliases[k]; ok {
			out[k] = a
		}
	}
	return out, nil
}

// A hop's sentence may name an end only by an alias in the other language: the project's page
// says "the Data Integration team", the entity is «Команда интеграции данных».
func TestPlanChainMatchesEndsByAlias(t *testing.T) {
	project := pageChunk("projects/meter#0000-66666666", "MeterBridge",
		"The project is run by the Data Integration team. Billing exports run monthly.")
	meter := ariadne.PathNode{Key: "project:meterbridge", Name: "MeterBridge", DocID: "projects/meter"}
	team := ariadne.PathNode{Key: "team:data integration", Name: "Команда интеграции данных", DocID: "teams/data"}
	path := ariadne.Path{Nodes: []ariadne.PathNode{meter, team}, Edges: []ariadne.PathEdge{
		{From: meter.Key, To: team.Key, Type: "DELIVERED_BY", ChunkIDs: []string{project.ID}},
	}}
	frags := Fragments([]ariadne.ScoredChunk{{Chunk: project}})
	req := Request{Question: "Which team runs MeterBridge?", Groups: []string{"all"}}
	pages := memPages{memChunks{project}}
	a := &Answerer{cfg: AnswerConfig{Chunks: pages}}
	if plan, err := a.planChain(context.Background(), req, nil, []ariadne.Path{path}, false, frags, newTrace()); err != nil || len(plan.hops) != 0 {
		t.Fatalf("without aliases: plan %+v, %v; want no chain (the sentence names the team in English only)", plan, err)
	}
	a.cfg.Chunks = memAliases{pages, map[string][]string{team.Key: {"Data Integration team", "DI"}}}
	plan, err := a.planChain(context.Background(), req, nil, []ariadne.Path{path}, false, frags, newTrace())
	if err != nil || len(plan.hops) != 1 || plan.hops[0].quote != "The project is run by the Data Integration team." {
		t.Fatalf("with aliases: plan %+v, %v; want the project page's sentence", plan, err)
	}
}

// A path that leaves the entity the question names for another one's page is no answer when that
// entity's own page states as much of the question: no chain is claimed, and the page's sentence
// joins the fragments. Without such a sentence on its page the path is the chain.
func TestPlanChainPrefersTheNamedEntitysOwnPage(t *testing.T) {
	varin := pageChunk("people/varin#0000-11111111", "Oleg Varin",
		"Oleg Varin is an engineer at Northwind. He has led the platform team since 2021.")
	meeting := pageChunk("notes/review#0000-22222222", "Delivery review",
		"Oleg Varin reminded everyone about the update. Vera Lutsk owns the planner migration.")
	lutsk := pageChunk("people/lutsk#0000-33333333", "Vera Lutsk",
		"Vera Lutsk joined in 2017. She has led the mobile team since 2021.")
	p, m, s := ariadne.PathNode{Key: "person:varin", Name: "Oleg Varin", DocID: varin.DocID},
		ariadne.PathNode{Key: "meeting:review", Name: "Delivery review", DocID: meeting.DocID},
		ariadne.PathNode{Key: "person:lutsk", Name: "Vera Lutsk", DocID: lutsk.DocID}
	detour := ariadne.Path{Nodes: []ariadne.PathNode{p, m, s}, Edges: []ariadne.PathEdge{
		{From: m.Key, To: p.Key, Type: "ATTENDED_BY", ChunkIDs: []string{meeting.ID}},
		{From: m.Key, To: s.Key, Type: "ATTENDED_BY", ChunkIDs: []string{meeting.ID}},
	}}
	req := Request{Question: "Since when has O. Varin led the team?", Groups: []string{"all"}}
	linked := []Linked{{Key: p.Key, Name: p.Name, Surface: "O. Varin"}}
	frags := Fragments([]ariadne.ScoredChunk{{Chunk: meeting}})
	a := &Answerer{cfg: AnswerConfig{Chunks: memPages{memChunks{varin, meeting, lutsk}}}}
	plan, err := a.planChain(context.Background(), req, linked, []ariadne.Path{detour}, false, frags, newTrace())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.hops) != 0 || plan.last.quote != "He has led the platform team since 2021." {
		t.Fatalf("plan = %+v, want no hops and Varin's own sentence", plan)
	}
	if all := withChain(frags, plan); len(all) != 2 || all[1].Chunk.ID != varin.ID {
		t.Errorf("fragments = %+v, want Varin's page after the meeting", all)
	}
	// A page the caller may not read is no candidate.
	secret := varin
	secret.ACL = []string{"hr"}
	a.cfg.Chunks = memPages{memChunks{secret, meeting, lutsk}}
	if plan, _ = a.planChain(context.Background(), req, linked, []ariadne.Path{detour}, false, frags, newTrace()); len(plan.hops) != 2 {
		t.Errorf("unreadable page: plan = %+v, want the 2-hop path", plan)
	}
	// His page says nothing of it: the detour is all there is (and the question's «D.» is no
	// term a hop must state: the initial names him).
	a.cfg.Chunks = memPages{memChunks{meeting, lutsk}}
	if plan, _ = a.planChain(context.Background(), req, linked, []ariadne.Path{detour}, false, frags, newTrace()); len(plan.hops) != 2 || plan.last.quote != "She has led the mobile team since 2021." {
		t.Errorf("no page of his: plan = %+v, want the 2-hop path and her sentence", plan)
	}
}

// hubChains is an incident with two paths to a client's account manager: through the library
// geokit (12 relationships) and through the service tracker (2), each as long and as covering.
func hubChains() (pages memPages, viaHub, viaService ariadne.Path, frags []Fragment, req Request) {
	inc := pageChunk("incidents/inc-1#0000-11111111", "INC-1",
		"Инцидент INC-1 остановил сервис tracker. Причиной стала библиотека geokit.")
	alpha := pageChunk("projects/alpha#0000-22222222", "Alpha",
		"Alpha использует библиотеку geokit. Клиент проекта — ООО «Вега».")
	beta := pageChunk("projects/beta#0000-33333333", "Beta",
		"Beta включает сервис tracker. Клиент проекта — ООО «Орион».")
	vega := pageChunk("clients/vega#0000-44444444", "Вега",
		"Аккаунт-менеджер — Ольга Стрельцова.")
	orion := pageChunk("clients/orion#0000-55555555", "Орион",
		"Аккаунт-менеджер — Пётр Зимин.")
	i1 := pathNode("incident:inc 1", "INC-1", "", inc.DocID, 3)
	geokit, a, v := pathNode("library:geokit", "geokit", "", "", 12), pathNode("project:alpha", "Alpha", "", alpha.DocID, 3), pathNode("client:vega", "Вега", "", vega.DocID, 2)
	tracker, b, o := pathNode("service:tracker", "tracker", "", "", 2), pathNode("project:beta", "Beta", "", beta.DocID, 3), pathNode("client:orion", "Орион", "", orion.DocID, 2)
	viaHub = relatedPath([]ariadne.PathNode{i1, geokit, a, v}, inc.ID, alpha.ID, alpha.ID)
	viaService = relatedPath([]ariadne.PathNode{i1, tracker, b, o}, inc.ID, beta.ID, beta.ID)
	frags = Fragments([]ariadne.ScoredChunk{{Chunk: inc}})
	req = Request{Question: "Кто аккаунт-менеджер клиента, связанного с INC-1?", Groups: []string{"all"}}
	return memPages{memChunks{inc, alpha, beta, vega, orion}}, viaHub, viaService, frags, req
}

// Two paths that state the question equally: the one through a hub (a library every project
// uses) loses to the one through specific entities, whatever their order; with no degrees read
// the first wins, as before.
func TestPlanChainAvoidsHubs(t *testing.T) {
	// No types: the walk's odds alone break the tie.
	pages, viaHub, viaService, frags, req := hubChains()
	geokit, tracker := viaHub.Nodes[1], viaService.Nodes[1]
	ans := &Answerer{cfg: AnswerConfig{Chunks: pages}}
	for _, paths := range [][]ariadne.Path{{viaHub, viaService}, {viaService, viaHub}} {
		plan, err := ans.planChain(context.Background(), req, nil, paths, false, frags, newTrace())
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.hops) != 3 || plan.path.Nodes[1].Key != tracker.Key || plan.last.quote != "Аккаунт-менеджер — Пётр Зимин." {
			t.Fatalf("plan = %+v, want the path through the service and Orion's account manager", plan)
		}
	}
	// No degrees read: a tie, and the first path is the chain.
	for _, p := range []ariadne.Path{viaHub, viaService} {
		for i := range p.Nodes {
			p.Nodes[i].Degree = 0
		}
	}
	plan, _ := ans.planChain(context.Background(), req, nil, []ariadne.Path{viaHub, viaService}, false, frags, newTrace())
	if len(plan.hops) != 3 || plan.path.Nodes[1].Key != geokit.Key {
		t.Errorf("no degrees: plan = %+v, want the first path", plan)
	}
}

// memDegrees is memPages that also gives entities' degrees as the caller sees them
// (EntityDegreeReader).
type memDegrees struct {
	memPages
	degrees map[string]int
}

func (m memDegrees) EntityDegrees(_ context.Context, keys, _ []string) (map[string]int, error) {
	out := map[string]int{}
	for _, k := range keys {
		if d, ok := m.degrees[k]; ok {
			out[k] = d
		}
	}
	return out, nil
}

// TestPlanChainRanksByTheCallersDegrees: the degrees the edges carry count every relationship;
// the chain ranks its paths by the caller's (EntityDegreeReader). The library geokit has 12
// relationships in all but 1 its caller may read, the service tracker 2: the path through
// geokit is then the likelier walk, as a graph without the restricted documents gives.
func TestPlanChainRanksByTheCallersDegrees(t *testing.T) {
	pages, viaHub, viaService, frags, req := hubChains()
	geokit, tracker := viaHub.Nodes[1], viaService.Nodes[1]
	for _, c := range []struct {
		degrees map[string]int
		via     string
	}{
		{nil, tracker.Key}, // the edges' degrees: geokit is a hub
		{map[string]int{geokit.Key: 1}, geokit.Key},
	} {
		ans := &Answerer{cfg: AnswerConfig{Chunks: memDegrees{pages, c.degrees}}}
		plan, err := ans.planChain(context.Background(), req, nil, []ariadne.Path{viaService, viaHub}, false, frags, newTrace())
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.hops) != 3 || plan.path.Nodes[1].Key != c.via {
			t.Errorf("degrees %v: chain through %s, want %s", c.degrees, plan.path.Nodes[1].Key, c.via)
		}
	}
	if viaHub.Nodes[1].Degree != 12 {
		t.Errorf("planChain changed its caller's path: geokit degree %d", viaHub.Nodes[1].Degree)
	}
}

func TestWalkOdds(t *testing.T) {
	n := func(deg int) ariadne.PathNode { return ariadne.PathNode{Degree: deg} }
	tests := []struct {
		nodes []ariadne.PathNode
		want  float64
	}{
		{nil, 0},
		{[]ariadne.PathNode{n(4)}, 0},
		{[]ariadne.PathNode{n(4), n(100)}, -math.Log(4)},              // the last entity's degree does not count
		{[]ariadne.PathNode{n(4), n(12), n(3), n(2)}, -math.Log(144)}, // 1/4 · 1/12 · 1/3
		{[]ariadne.PathNode{n(0), n(2), n(9)}, -math.Log(2)},          // not read: 1
	}
	for _, tc := range tests {
		if got := walkOdds(ariadne.Path{Nodes: tc.nodes}); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("walkOdds(%v) = %v, want %v", tc.nodes, got, tc.want)
		}
	}
}

// An entity a path passes through states its type: "the client connected to INC-1" is stated by
// a path through a client entity as much as by a sentence with the word «клиент», so the path
// through the client ties the one whose last sentence has the word, and the likelier walk wins.
// The last entity's type counts for nothing: the question asks about it.
func TestPlanChainCreditsIntermediateTypes(t *testing.T) {
	inc := pageChunk("incidents/inc-1#0000-11111111", "INC-1",
		"Инцидент INC-1 остановил сервис tracker. Руководитель инцидента — Кирилл Дымов.")
	dymov := pageChunk("people/dymov#0000-22222222", "Кирилл Дымов",
		"Кирилл Дымов работает над проектом Beta.")
	beta := pageChunk("projects/beta#0000-33333333", "Beta",
		"Проект Beta ведёт Пётр Зимин.")
	zimin := pageChunk("people/zimin#0000-44444444", "Пётр Зимин",
		"Пётр Зимин — аккаунт-менеджер клиента «Орион».")
	vega := pageChunk("clients/vega#0000-55555555", "Вега",
		"Сервис tracker работает для «Веги». Аккаунт-менеджер — Ольга Стрельцова.")
	i1 := pathNode("incident:inc 1", "INC-1", "incident", inc.DocID, 3)
	d, b, z := pathNode("person:dymov", "Кирилл Дымов", "person", dymov.DocID, 6), pathNode("project:beta", "Beta", "project", beta.DocID, 8),
		pathNode("person:zimin", "Пётр Зимин", "person", zimin.DocID, 4)
	tr, v, s := pathNode("service:tracker", "tracker", "service", "", 2), pathNode("client:vega", "Вега", "client", vega.DocID, 3),
		pathNode("person:streltsova", "Ольга Стрельцова", "person", "", 2)
	viaPeople := relatedPath([]ariadne.PathNode{i1, d, b, z}, inc.ID, dymov.ID, beta.ID)
	viaClient := relatedPath([]ariadne.PathNode{i1, tr, v, s}, inc.ID, vega.ID, vega.ID)
	pages := []ariadne.Chunk{inc, dymov, beta, zimin, vega}
	const question = "Кто аккаунт-менеджер клиента, связанного с INC-1?"
	plan := planOver(t, question, pages, viaPeople, viaClient)
	if len(plan.hops) != 3 || plan.path.Nodes[2].Key != v.Key || plan.hops[2].quote != "Аккаунт-менеджер — Ольга Стрельцова." {
		t.Fatalf("plan = %+v, want the path through the client", plan)
	}
	// Typed as a project, the same entity states no «клиент»: the path through the people wins.
	viaClient.Nodes[2].Type = "project"
	if plan = planOver(t, question, pages, viaPeople, viaClient); plan.path.Nodes[2].Key != b.Key {
		t.Errorf("no client on the path: plan = %+v, want the path through the people", plan)
	}
}

// What the main clause asks is said of the chain's end: "Who signs the invoices for the engineer
// who restarted the tracker?" is not answered by a path whose middle hop says that every engineer
// signs invoices and whose end says nothing of invoices, but by the engineer's own page.
func TestPlanChainMainClauseAtTheEnd(t *testing.T) {
	inc := pageChunk("incidents/inc-1#0000-11111111", "INC-1",
		"After INC-1 Kirill Dymov restarted the tracker.")
	dymov := pageChunk("people/dymov#0000-22222222", "Kirill Dymov",
		"Anna Li signs the invoices of Kirill Dymov.")
	review := pageChunk("meetings/review#0000-33333333", "Vendor review",
		"Kirill Dymov reminded the review that every engineer signs the invoices of his vendors. Peter Zimin attended the review.")
	zimin := pageChunk("people/zimin#0000-44444444", "Peter Zimin",
		"Peter Zimin leads the Beta team.")
	i1 := pathNode("incident:inc 1", "INC-1", "incident", inc.DocID, 3)
	d, m, z := pathNode("person:dymov", "Kirill Dymov", "person", dymov.DocID, 3), pathNode("meeting:review", "Vendor review", "meeting", review.DocID, 3),
		pathNode("person:zimin", "Peter Zimin", "person", zimin.DocID, 3)
	direct := relatedPath([]ariadne.PathNode{i1, d}, inc.ID)
	viaReview := relatedPath([]ariadne.PathNode{i1, d, m, z}, inc.ID, review.ID, review.ID)
	pages := []ariadne.Chunk{inc, dymov, review, zimin}
	plan := planOver(t, "Who signs the invoices for the engineer who restarted the tracker after INC-1?", pages, viaReview, direct)
	if len(plan.hops) != 1 || plan.last.quote != "Anna Li signs the invoices of Kirill Dymov." {
		t.Fatalf("plan = %+v, want the engineer's page", plan)
	}
	// Without the relative clause every term may be stated anywhere on the path: the review's
	// sentence states more of the question, and the longer path wins.
	if plan = planOver(t, "Who signs the invoices for the engineer of INC-1 and the tracker's restart?", pages, viaReview, direct); len(plan.hops) != 3 {
		t.Errorf("no relative clause: plan = %+v, want the path through the review", plan)
	}
}

// A question that names no entity gets paths from where the walk ranked best: here from another
// elevator, through the one that burnt, to the fire. The question's chain runs the other way,
// from the fire to the burnt elevator's page, which states the capacity; only a stretch of the
// walk's path read backwards says so.
func TestPlanChainWalkRootedTriesStretches(t *testing.T) {
	north := pageChunk("elevators/north#0000-11111111", "North Elevator",
		"North Elevator stores grain next to South Elevator.")
	south := pageChunk("elevators/south#0000-22222222", "South Elevator",
		"South Elevator has a storage capacity of 85,000 tonnes.")
	fire := pageChunk("incidents/inc-9#0000-33333333", "INC-9",
		"In September a grain dryer caught fire at South Elevator.")
	n := pathNode("elevator:north", "North Elevator", "elevator", north.DocID, 2)
	s := pathNode("elevator:south", "South Elevator", "elevator", south.DocID, 2)
	i := pathNode("incident:inc 9", "INC-9", "incident", fire.DocID, 1)
	walked := relatedPath([]ariadne.PathNode{n, s, i}, north.ID, fire.ID)
	pages := []ariadne.Chunk{north, south, fire}
	const question = "What is the storage capacity of the elevator where a grain dryer caught fire in September?"
	plan := planFrom(t, question, true, pages, walked)
	if got := plan.path.Nodes; len(got) != 2 || got[0].Key != i.Key || got[1].Key != s.Key || plan.last.quote != "South Elevator has a storage capacity of 85,000 tonnes." {
		t.Fatalf("plan = %+v, want INC-9 → South Elevator and its capacity", plan)
	}
	// Paths from the entities the question names are taken as they are.
	if plan = planFrom(t, question, false, pages, walked); len(plan.path.Nodes) != 3 {
		t.Errorf("named roots: plan = %+v, want the walk's path", plan)
	}
}

func TestSubPaths(t *testing.T) {
	a, b, c := pathNode("a", "A", "", "", 1), pathNode("b", "B", "", "", 1), pathNode("c", "C", "", "", 1)
	abc := relatedPath([]ariadne.PathNode{a, b, c}, "x#1", "y#2")
	var got []string
	for _, p := range subPaths([]ariadne.Path{abc}) {
		var ks []string
		for _, n := range p.Nodes {
			ks = append(ks, n.Key)
		}
		var es []string
		for _, e := range p.Edges {
			es = append(es, e.ChunkIDs[0])
		}
		got = append(got, strings.Join(ks, "")+":"+strings.Join(es, ","))
	}
	want := []string{"abc:x#1,y#2", "ab:x#1", "ba:x#1", "cba:y#2,x#1", "bc:y#2", "cb:y#2"}
	if !slices.Equal(got, want) {
		t.Errorf("subPaths = %v, want %v", got, want)
	}
}

// With a relative clause, the own page of the path's first entity answers only if it states
// something the main clause asks: the client's page saying where its warehouse is describes the
// client the question means, and the chain to its project's manager is the answer.
func TestPlanChainOwnPageStatesTheMainClause(t *testing.T) {
	vega := pageChunk("clients/vega#0000-11111111", "Vega",
		"The central warehouse of Vega is in Kestrov and ships twelve thousand items to the shops every night. Vega orders the Stock project.")
	stock := pageChunk("projects/stock#0000-22222222", "Stock",
		"Olga Lee manages the project.")
	v, st := pathNode("client:vega", "Vega", "client", vega.DocID, 2), pathNode("project:stock", "Stock", "project", stock.DocID, 2)
	path := relatedPath([]ariadne.PathNode{v, st}, vega.ID)
	pages := []ariadne.Chunk{vega, stock}
	plan := planOver(t, "Who manages the project of the client whose central warehouse ships twelve thousand items every night from Kestrov?", pages, path)
	if len(plan.hops) != 1 || plan.last.quote != "Olga Lee manages the project." {
		t.Fatalf("plan = %+v, want the chain to the project's manager", plan)
	}
	// Asked without a relative clause, the client's own sentence states more of the question.
	if plan = planOver(t, "Who manages the project of the client with a central warehouse shipping twelve thousand items every night from Kestrov?", pages, path); len(plan.hops) != 0 {
		t.Errorf("no relative clause: plan = %+v, want the client's own sentence", plan)
	}
}

// The chain's end page states where the client is in a sentence that shares no word with the
// question; asked for the city, the plan adds it after the last unit, and asked for nothing of
// that kind, it does not.
func TestPlanChainQuotesTheAskedKindFromTheEndPage(t *testing.T) {
	inc := pageChunk("incidents/inc-77#0000-11111111", "INC-77", "INC-77 stopped the Harrow dashboard for two hours.")
	harrow := pageChunk("projects/harrow#0000-22222222", "Harrow", "Harrow is a fleet dashboard built for Quillmoor Salt.")
	client := pageChunk("clients/quillmoor#0000-33333333", "Quillmoor Salt",
		"Quillmoor Salt is a salt mining company headquartered in Tarvessa. It has been our client since 2021.")
	i, h, c := pathNode("incident:inc-77", "INC-77", "incident", inc.DocID, 1), pathNode("project:harrow", "Harrow", "project", harrow.DocID, 2),
		pathNode("client:quillmoor", "Quillmoor Salt", "client", client.DocID, 1)
	path := relatedPath([]ariadne.PathNode{i, h, c}, inc.ID, harrow.ID)
	pages := []ariadne.Chunk{inc, harrow, client}
	plan := planOver(t, "In which city is the client of the project affected by INC-77 headquartered?", pages, path)
	if len(plan.hops) != 2 || plan.last.quote != "It has been our client since 2021." ||
		plan.kind.quote != "Quillmoor Salt is a salt mining company headquartered in Tarvessa." {
		t.Fatalf("plan: last %q, kind %q, want the client sentence and then the one that says where", plan.last.quote, plan.kind.quote)
	}
	if got := plan.units(); len(got) != 4 || got[3].quote != plan.kind.quote {
		t.Errorf("units %+v, want the hops, the last unit and the place", got)
	}
	if plan = planOver(t, "Who is the client of the project affected by INC-77?", pages, path); plan.kind.quote != "" {
		t.Errorf("a question that asks no place: kind %q", plan.kind.quote)
	}
}

// The fact a plan states of its end is its last unit, or without one its last hop's sentence: a
// date in an earlier hop ("approved by O. on 20 November") is a link's, not the end's.
func TestChainPlanEndFact(t *testing.T) {
	hop := func(q string) hopUnit { return hopUnit{quote: q} }
	for _, tc := range []struct {
		plan chainPlan
		want string
	}{
		{chainPlan{hops: []hopUnit{hop("approved by Ona Vell on 20 November 2023."), hop("Ona Vell leads the depot.")}}, "Ona Vell leads the depot."},
		{chainPlan{hops: []hopUnit{hop("approved by Ona Vell on 20 November 2023.")}, last: hop("She keeps the licence.")}, "She keeps the licence."},
		{chainPlan{last: hop("The depot is in Tarvessa.")}, "The depot is in Tarvessa."},
		{chainPlan{}, ""},
	} {
		if got := tc.plan.endFact().quote; got != tc.want {
			t.Errorf("endFact = %q, want %q", got, tc.want)
		}
	}
}

// relatedPath walks ns by RELATED edges; hop i's sentence is in chunks[i].
func relatedPath(ns []ariadne.PathNode, chunks ...string) ariadne.Path {
	p := ariadne.Path{Nodes: ns}
	for i, id := range chunks {
		p.Edges = append(p.Edges, ariadne.PathEdge{From: ns[i].Key, To: ns[i+1].Key, Type: "RELATED", ChunkIDs: []string{id}})
	}
	return p
}

// A multi-hop answer leads with its chain; a quoting generator's further quote from the page of
// another thing of the asked kind (another incident's cause) is left out, one from the asked
// incident's page or naming it stays, and a model's claims all stay.
func TestWithChainClaims(t *testing.T) {
	reg := resolution.NewRegistry(nil)
	reg.Load(ariadne.Entity{Key: "incidents/inc-7701", Name: "INC-7701", Type: "incident", Aliases: []string{"INC-7701"}}, "", nil)
	linked := []Linked{{Key: "incidents/inc-7701", Name: "INC-7701", Type: "incident", Surface: "INC-7701", names: reg.Matcher()}}
	chunk := func(id, typ, text string) ariadne.Chunk {
		return ariadne.Chunk{ID: id, DocID: ariadne.DocIDOfChunk(id), DocType: typ, Title: ariadne.DocIDOfChunk(id), Text: text, ACL: []string{"all"}}
	}
	inc1 := chunk("incidents/inc-7701#0000-11111111", "incident", "INC-7701 stopped the tracker. The commander was K. Dymov.")
	inc2 := chunk("incidents/inc-7702#0000-22222222", "incident", "INC-7702 was caused by geokit 1.2. It followed INC-7701 by a week.")
	client := chunk("clients/vega#0000-33333333", "client", "The account manager is Olga Streltsova.")
	frags := Fragments([]ariadne.ScoredChunk{{Chunk: inc1}, {Chunk: inc2}, {Chunk: client}})
	claim := func(c ariadne.Chunk, quote string) ariadne.Claim {
		i := strings.Index(c.Text, quote)
		return ariadne.Claim{Text: quote, Citations: []ariadne.Citation{{ChunkID: c.ID, Quote: quote, Start: i, End: i + len(quote)}}}
	}
	chain := []ariadne.Claim{claim(inc1, "INC-7701 stopped the tracker."), claim(client, "The account manager is Olga Streltsova.")}
	generated := []ariadne.Claim{
		claim(client, "The account manager is Olga Streltsova."), // a hop again: merged away
		claim(inc2, "INC-7702 was caused by geokit 1.2."),        // another incident's page
		claim(inc1, "The commander was K. Dymov."),               // the asked incident's page
		claim(inc2, "It followed INC-7701 by a week."),           // another page that names it
	}
	texts := func(cs []ariadne.Claim) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Text)
		}
		return out
	}
	want := []string{"INC-7701 stopped the tracker.", "The account manager is Olga Streltsova.", "The commander was K. Dymov.", "It followed INC-7701 by a week."}
	if got := texts(withChainClaims(chain, generated, true, linked, frags, sameType)); !slices.Equal(got, want) {
		t.Errorf("quoting generator: %q, want %q", got, want)
	}
	want = []string{"INC-7701 stopped the tracker.", "The account manager is Olga Streltsova.", "INC-7702 was caused by geokit 1.2.", "The commander was K. Dymov.", "It followed INC-7701 by a week."}
	if got := texts(withChainClaims(chain, generated, false, linked, frags, sameType)); !slices.Equal(got, want) {
		t.Errorf("model: %q, want %q", got, want)
	}
}

// planOver plans the chain of question over paths for a caller of group all: the fragments are
// the first page's chunk, and every page may be read.
func planOver(t *testing.T, question string, pages []ariadne.Chunk, paths ...ariadne.Path) chainPlan {
	t.Helper()
	return planFrom(t, question, false, pages, paths...)
}

// planFrom is planOver with the paths starting where the walk ranked best (walkRooted) or not.
func planFrom(t *testing.T, question string, walkRooted bool, pages []ariadne.Chunk, paths ...ariadne.Path) chainPlan {
	t.Helper()
	a := &Answerer{cfg: AnswerConfig{Chunks: memPages{memChunks(pages)}}}
	req := Request{Question: question, Groups: []string{"all"}}
	plan, err := a.planChain(context.Background(), req, nil, paths, walkRooted, Fragments([]ariadne.ScoredChunk{{Chunk: pages[0]}}), newTrace())
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// pageChunk is a chunk readable by group all, of the document its id names.
func pageChunk(id, title, text string) ariadne.Chunk {
	return ariadne.Chunk{ID: id, DocID: ariadne.DocIDOfChunk(id), Title: title, Text: text, ACL: []string{"all"}}
}

// pathNode is a path entity with its type, page and degree.
func pathNode(key, name, typ, doc string, deg int) ariadne.PathNode {
	return ariadne.PathNode{Key: key, Name: name, Type: typ, DocID: doc, Degree: deg}
}
