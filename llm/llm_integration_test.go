package llm

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

	"github.com/ariadne-graphrag/ariadne/internal/testenv"
)

// localLLMURL is the local chat model server (deploy/local.sh up llm; deploy/test.sh starts it
// with the smallest model).
func localLLMURL() string {
	return cmp.Or(os.Getenv("ARIADNE_LOCAL_LLM_URL"), "http://127.0.0.1:8092/v1")
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
		t.Fatalf("GET %s/models: %v (%d models)", base, err, len(models.Data))
	}
	return models.Data[0].ID
}

// TestIntegrationLocalLLMJSONSchema: the real local server answers a chat with a JSON schema with
// JSON that parses and conforms (required fields present, enum respected), in auto mode (which
// must find a form the server takes) and with the GBNF grammar compiled from the schema.
func TestIntegrationLocalLLMJSONSchema(t *testing.T) {
	base := localLLMURL()
	testenv.Need(t, "the local chat model server at "+base+" (deploy/local.sh up llm)", testenv.HTTPGet(base+"/models"))
	model := servedModel(t, base)
	schema := &Schema{Name: "route", Schema: json.RawMessage(`{"type":"object","additionalProperties":false,
"required":["route","documents"],
"properties":{"route":{"type":"string","enum":["simple","hybrid","multi_hop"]},"documents":{"type":"integer"}}}`)}
	msgs := []Message{
		{Role: "system", Content: "Classify a question to a company knowledge base by how it must be searched. " +
			"simple: one fact one document states. hybrid: exact codes or ids. multi_hop: facts from several documents chained through entities. " +
			`Answer JSON {"route": one of simple|hybrid|multi_hop, "documents": how many documents are needed}.`},
		{Role: "user", Content: "Which team owns the library used by the project that Tundra Energo ordered?"},
	}
	for _, mode := range []JSONMode{JSONAuto, JSONModeGrammar} {
		t.Run(string(mode), func(t *testing.T) {
			var prompt, completion int
			c, err := NewOpenAI(Config{BaseURL: base, Model: model, JSONMode: mode, Timeout: 5 * time.Minute,
				OnUsage: func(_ string, p, c int) { prompt, completion = p, c }})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			start := time.Now()
			out, err := c.Chat(ctx, Request{Messages: msgs, JSON: schema, MaxTokens: 64})
			if err != nil {
				t.Fatalf("Chat (%s): %v", model, err)
			}
			t.Logf("%s, mode %s → %s: %q in %v; usage %d prompt + %d completion tokens",
				model, mode, c.JSONMode(), out, time.Since(start).Round(time.Millisecond), prompt, completion)
			var raw map[string]json.RawMessage
			if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &raw); err != nil {
				t.Fatalf("answer is not a JSON object: %v: %q", err, out)
			}
			var route string
			if err := json.Unmarshal(raw["route"], &route); err != nil || !slices.Contains([]string{"simple", "hybrid", "multi_hop"}, route) {
				t.Errorf("route %s is not one of the enum (%v)", raw["route"], err)
			}
			var docs int
			if err := json.Unmarshal(raw["documents"], &docs); err != nil {
				t.Errorf("documents %s is not an integer (%v)", raw["documents"], err)
			}
			for k := range raw {
				if k != "route" && k != "documents" {
					t.Errorf("unexpected property %q (additionalProperties is false)", k)
				}
			}
			if mode == JSONAuto && c.JSONMode() == JSONAuto {
				t.Errorf("auto detection remembered no mode")
			}
			if prompt <= 0 || completion <= 0 {
				t.Errorf("usage not counted: %d prompt, %d completion tokens", prompt, completion)
			}
		})
	}
}
