package agent_test

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/llm"
)

// TestIntegrationLocalLLMAnswers drives the real local chat model server (deploy/test.sh starts
// it with qwen2.5-1.5b) through the whole answer path over the repository's test corpus: units
// citation mode, the batched support judge on the same model. A question the corpus answers must
// be answered, one about a management-only document asked as a regular employee must not be.
// It is tolerant of the model's wording and strict on the contract: the status, and every quote
// exactly its chunk's text between its offsets, re-read from the graph store.
func TestIntegrationLocalLLMAnswers(t *testing.T) {
	base := cmp.Or(os.Getenv("ARIADNE_LOCAL_LLM_URL"), "http://127.0.0.1:8092/v1")
	testenv.Need(t, "the local chat model server at "+base, testenv.HTTPGet(base+"/models"))
	rig := testrig.New(t, testrig.KB)
	model, err := llm.NewOpenAI(llm.Config{BaseURL: base, Model: servedModel(t, base), Timeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	gen := agent.LLMGenerator{Model: model}
	if gen.CitationMode() != agent.CitationUnits {
		t.Fatalf("citation mode for %s is %s; the local models are small", model.Name(), gen.CitationMode())
	}
	judged := agent.NewAnswerer(newRetriever(rig, agent.RetrievalConfig{}), gen, rig.Vector,
		agent.AnswerConfig{Judge: agent.LLMJudge{Model: model}, Deadline: 12 * time.Minute}, agent.Hooks{}, nil)
	// Gated: the extractive generator decides to answer or refuse, the model writes.
	gated := agent.NewAnswerer(newRetriever(rig, agent.RetrievalConfig{}), gen, rig.Vector,
		agent.AnswerConfig{Judge: agent.LLMJudge{Model: model}, Deadline: 12 * time.Minute, Gate: agent.TermExtractive{}}, agent.Hooks{}, nil)
	ctx := context.Background()

	for _, a := range []*agent.Answerer{judged, gated} {
		answerWithLocalLLM(ctx, t, rig, a)
	}
}

func answerWithLocalLLM(ctx context.Context, t *testing.T, rig *testrig.Rig, a *agent.Answerer) {
	for _, tc := range []struct {
		name     string
		question string
		groups   []string
		answered bool
		docs     []string // an answer must cite one of these documents
	}{
		// A small model may cite the superseded policy (qwen2.5-0.5b did); either leave policy is
		// on topic, and the contract holds.
		{"answerable", "Сколько календарных дней ежегодного оплачиваемого отпуска положено сотруднику?", []string{"all"}, true,
			[]string{"policies/leave", "policies/leave-2022"}},
		{"management-only document, asked by an employee", "Какая зарплатная вилка у грейда P3?", []string{"all"}, false, nil},
	} {
		t.Run(a.Generator()+": "+tc.name, func(t *testing.T) {
			start := time.Now()
			ans, err := a.Answer(ctx, agent.Request{Question: tc.question, Groups: tc.groups, TopK: 8}, nil)
			if err != nil {
				t.Fatal(err)
			}
			trace, _ := json.Marshal(ans.Trace.Attempts)
			t.Logf("%s in %v: %s %q; attempts %s", tc.name, time.Since(start).Round(time.Second), ans.Status, ans.Answer, trace)
			if tc.answered != (ans.Status == ariadne.StatusAnswered) {
				t.Fatalf("status %s (%s), want answered=%v", ans.Status, ans.Reason, tc.answered)
			}
			if !tc.answered {
				if len(ans.Citations) != 0 || len(ans.Claims) != 0 || ans.Answer != "" {
					t.Fatalf("a %s answer carries claims or citations: %+v", ans.Status, ans)
				}
				return
			}
			var ids []string
			for _, c := range ans.Citations {
				ids = append(ids, c.ChunkID)
			}
			stored, err := rig.Graph.Chunks(ctx, ids, tc.groups)
			if err != nil {
				t.Fatal(err)
			}
			text := map[string]string{}
			for _, c := range stored {
				text[c.ID] = c.Text
			}
			cited := false
			for _, c := range ans.Citations {
				chunk, ok := text[c.ChunkID]
				if !ok || !c.Verified || c.Start < 0 || c.End > len(chunk) || c.Start >= c.End || chunk[c.Start:c.End] != c.Quote {
					t.Errorf("citation %+v is not its chunk's text at its offsets", c)
				}
				cited = cited || slices.Contains(tc.docs, c.DocID)
			}
			if !cited {
				t.Errorf("no citation of %v: %+v", tc.docs, ans.Citations)
			}
			// The model was asked (gated or not): it wrote the answer, or the trace says why not.
			if !slices.ContainsFunc(ans.Trace.Attempts, func(at agent.Attempt) bool { return at.Generator == "" || strings.HasPrefix(at.Generator, "llm:") }) {
				t.Errorf("the model was not asked: %s", trace)
			}
		})
	}
}

// servedModel asks the server which model it serves.
func servedModel(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&models); err != nil || len(models.Data) == 0 {
		t.Fatalf("GET %s/models: %v", base, err)
	}
	return strings.TrimSpace(models.Data[0].ID)
}
