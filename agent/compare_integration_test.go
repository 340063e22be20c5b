package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// A comparison over the real stores: routed to multi_hop, answered with one verified sentence
// about each compared client, each from the client's own page, in the question's order.
func TestIntegrationComparison(t *testing.T) {
	rig := testrig.New(t, testrig.KB)
	r := newRetriever(rig, agent.RetrievalConfig{})
	a := agent.NewAnswerer(r, agent.TermExtractive{}, rig.Vector, agent.AnswerConfig{Chunks: rig.Graph}, agent.Hooks{}, nil)
	var verified []any // each verification event's claim count
	ans, err := a.Answer(context.Background(), agent.Request{Question: "У какой сети больше точек — у «Пекарни Заря» или у «Клиники Орбита»?", Groups: []string{"all"}}, func(e agent.Event) {
		if m, ok := e.Data.(map[string]any); ok && e.Name == "verification" {
			verified = append(verified, m["verified_claims"])
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// The stream's count is the answer's claims (the compared sentences), not the generator's own.
	if len(verified) != 1 || verified[0] != len(ans.Claims) {
		t.Errorf("verification events' verified_claims %v, want [%d]", verified, len(ans.Claims))
	}
	// A quoting generator's answer is the compared sentences alone.
	if ans.Status != ariadne.StatusAnswered || ans.Route != ariadne.RouteMultiHop || len(ans.Compared) != 2 || len(ans.Claims) != 2 {
		t.Fatalf("status %s route %s compared %+v claims %d (answer %q)", ans.Status, ans.Route, ans.Compared, len(ans.Claims), ans.Answer)
	}
	want := []struct{ doc, quote string }{
		{"clients/zarya-bakery", "сеть из 37 пекарен"},
		{"clients/orbita-clinic", "a chain of 12 dental clinics"},
	}
	for i, w := range want {
		c := ans.Compared[i].Citation
		if c.DocID != w.doc || !strings.Contains(c.Quote, w.quote) || !c.Verified {
			t.Errorf("compared %d (%s): %s %q verified=%v, want %s quoting %q", i, ans.Compared[i].Entity, c.DocID, c.Quote, c.Verified, w.doc, w.quote)
		}
		if ans.Claims[i].Citations[0].ChunkID != c.ChunkID {
			t.Errorf("claim %d cites %s, want the compared sentence first", i, ans.Claims[i].Citations[0].ChunkID)
		}
	}
	// One side unstated: the bakery's page names its account manager, nothing names the clinic's.
	// The answer is not_found, its reason naming the clinic, not a quote about the bakery alone.
	ans, err = a.Answer(context.Background(), agent.Request{Question: "У «Пекарни Заря» и у «Клиники Орбита» один и тот же аккаунт-менеджер?", Groups: []string{"all"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Status != ariadne.StatusNotFound || !strings.Contains(ans.Reason, `"Клиники Орбита"`) || len(ans.Claims) != 0 {
		t.Errorf("one side unstated: status %s reason %q claims %d, want not_found naming «Клиники Орбита»", ans.Status, ans.Reason, len(ans.Claims))
	}
}
