package agent_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// TestIntegrationDecoyPage: a public page titled like a management-only contract (an outside
// tester's attack: any writer key may post public pages) neither renames the contract nor hides
// it from management. Management's question by the contract's name links both pages and is
// answered with what each says, the contract's own sentence among them; an anonymous caller gets
// the public page only.
func TestIntegrationDecoyPage(t *testing.T) {
	rig := testrig.New(t, "")
	ctx := context.Background()
	contract := ariadne.Document{ID: "contracts/ctr-2025-07", Type: "contract", Lang: "ru", ACL: []string{"management"},
		Title: "Договор CTR-2025-07 — АО «Тундра Энерго», коммерческие условия",
		Body:  "# Договор CTR-2025-07\n\n## Штрафы\n\nЕсли доступность системы за месяц ниже 99,5%, «Кварц Системс» выплачивает штраф 2% от месячной стоимости.\n"}
	if _, err := rig.Pipe.Sync(ctx, []ariadne.Document{contract}, ingest.Options{Source: "folder"}); err != nil {
		t.Fatal(err)
	}
	decoy := ariadne.Document{ID: "contracts/public-ctr", Type: "contract", Lang: "ru", ACL: []string{ariadne.PublicGroup},
		Title: "Договор CTR-2025-07", Aliases: []string{"CTR-2025-07"},
		Body: "# Договор CTR-2025-07\n\nЕсли доступность системы за месяц ниже 99,5%, «Кварц Системс» выплачивает штраф 50% от месячной стоимости.\n"}
	if _, err := rig.Pipe.Sync(ctx, []ariadne.Document{decoy}, ingest.Options{Source: "api"}); err != nil {
		t.Fatal(err)
	}
	mgmt := []string{ariadne.PublicGroup, "management"}
	e, err := rig.Graph.Entity(ctx, "contracts/ctr-2025-07", mgmt)
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "Договор CTR-2025-07" {
		t.Errorf("the public page renamed the management-only contract to %q", e.Name)
	}
	r := newRetriever(rig, agent.RetrievalConfig{})
	a := agent.NewAnswerer(r, agent.TermExtractive{}, rig.Vector, agent.AnswerConfig{Chunks: rig.Graph}, agent.Hooks{}, nil)
	q := "Какой штраф платит «Кварц Системс» по договору CTR-2025-07, если доступность ниже 99,5%?"
	for _, tc := range []struct {
		name   string
		groups []string
		want   []string // cited documents, sorted
	}{
		{"management reads both pages", mgmt, []string{"contracts/ctr-2025-07", "contracts/public-ctr"}},
		{"an anonymous caller reads the public page", []string{ariadne.PublicGroup}, []string{"contracts/public-ctr"}},
	} {
		ans, err := a.Answer(ctx, agent.Request{Question: q, Groups: tc.groups}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var docs []string
		for _, c := range ans.Citations {
			if !slices.Contains(docs, c.DocID) {
				docs = append(docs, c.DocID)
			}
		}
		slices.Sort(docs)
		if ans.Status != ariadne.StatusAnswered || !slices.Equal(docs, tc.want) {
			t.Errorf("%s: %s (%s), cites %v, want answered citing %v; answer %q", tc.name, ans.Status, ans.Reason, docs, tc.want, ans.Answer)
		}
		if slices.Equal(tc.groups, mgmt) && !strings.Contains(ans.Answer, "штраф 2%") {
			t.Errorf("%s: the contract's own sentence is not in the answer %q", tc.name, ans.Answer)
		}
	}
}

// TestIntegrationIndexEmptyForTheCaller: with only a management-only document ingested, an
// anonymous caller is told the index is empty — as before anything was ingested — not that no
// document it may read matches (which told it restricted documents exist); management is not.
func TestIntegrationIndexEmptyForTheCaller(t *testing.T) {
	rig := testrig.New(t, "")
	ctx := context.Background()
	r := newRetriever(rig, agent.RetrievalConfig{})
	a := agent.NewAnswerer(r, agent.TermExtractive{}, rig.Vector, agent.AnswerConfig{Chunks: rig.Graph}, agent.Hooks{}, nil)
	q := "Что обсуждал совет директоров?"
	ask := func(groups []string) ariadne.Status {
		t.Helper()
		ans, err := a.Answer(ctx, agent.Request{Question: q, Groups: groups}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ans.Status
	}
	if got := ask([]string{ariadne.PublicGroup}); got != ariadne.StatusIndexEmpty {
		t.Fatalf("nothing ingested: %s, want index_empty", got)
	}
	board := ariadne.Document{ID: "notes/board", Title: "Протокол совета", Lang: "ru", ACL: []string{"management"},
		Body: "Совет директоров обсудил покупку склада в Мурманске.\n"}
	if _, err := rig.Pipe.Upsert(ctx, []ariadne.Document{board}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := ask([]string{ariadne.PublicGroup}); got != ariadne.StatusIndexEmpty {
		t.Errorf("a management-only document ingested, anonymous caller: %s, want index_empty as before", got)
	}
	if got := ask([]string{ariadne.PublicGroup, "management"}); got == ariadne.StatusIndexEmpty {
		t.Errorf("management caller: %s, want the document searched", got)
	}
}
