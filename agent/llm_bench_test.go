package agent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/llm"
)

// TestLocalLLMBench measures the local chat model server (deploy/local.sh up llm) on the
// generator's real prompt — BuildPrompt over six demo documents (about 1,000 prompt tokens) with
// the cited-answer schema — once per JSON mode: prompt and generation tokens/s (from the
// server's own llama.cpp timings in its log), wall time, and whether the answer is JSON that
// conforms to the schema. It runs only when asked:
//
//	ARIADNE_LLM_BENCH=1 go test -count=1 -v -run TestLocalLLMBench ./agent
//
// ARIADNE_LLM_BENCH_LOG is the server's log (default $ARIADNE_HOME/logs/llm.log);
// ARIADNE_LLM_BENCH_MODES a comma-separated subset of the modes (default all four).
func TestLocalLLMBench(t *testing.T) {
	if os.Getenv("ARIADNE_LLM_BENCH") != "1" {
		t.Skip("set ARIADNE_LLM_BENCH=1 to measure the local chat model server")
	}
	base := cmp.Or(os.Getenv("ARIADNE_LOCAL_LLM_URL"), "http://127.0.0.1:8092/v1")
	testenv.Need(t, "the local chat model server at "+base, testenv.HTTPGet(base+"/models"))
	logPath := cmp.Or(os.Getenv("ARIADNE_LLM_BENCH_LOG"), filepath.Join(testenv.Home(), "logs", "llm.log"))
	model := benchServedModel(t, base)

	var frags []Fragment
	for i, doc := range []string{"projects/tundra-telemetry", "clients/tundra-energo", "teams/data",
		"technologies/geolink", "people/igor-lazarev", "projects/coldtrack"} {
		raw, err := os.ReadFile(filepath.Join("..", "demo", "corpus", doc+".md"))
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		if _, body, ok := strings.Cut(strings.TrimPrefix(text, "---\n"), "\n---\n"); ok {
			text = body
		}
		frags = append(frags, Fragment{N: i + 1, Chunk: ariadne.Chunk{ID: fmt.Sprintf("%s#%d", doc, 0), DocID: doc,
			Title: doc, Text: strings.TrimSpace(text), Updated: "2025-01-25"}})
	}
	question := "Какая команда ведёт проект для клиента «Тундра Энерго» и кто его руководитель?"

	fmt.Printf("| model | JSON mode | HTTP | prompt tokens | prompt tok/s | completion tokens | gen tok/s | wall | schema-valid JSON |\n|---|---|---|---|---|---|---|---|---|\n")
	modes := []llm.JSONMode{llm.JSONModeSchema, llm.JSONModeObject, llm.JSONModeGrammar, llm.JSONModeNone}
	if v := os.Getenv("ARIADNE_LLM_BENCH_MODES"); v != "" { // e.g. "json_object,grammar"
		modes = nil
		for _, m := range strings.Split(v, ",") {
			mode, err := llm.ParseJSONMode(m)
			if err != nil {
				t.Fatal(err)
			}
			modes = append(modes, mode)
		}
	}
	for i, mode := range modes {
		var prompt, completion int
		c, err := llm.NewOpenAI(llm.Config{BaseURL: base, Model: model, JSONMode: mode, Timeout: 10 * time.Minute,
			OnUsage: func(_ string, p, c int) { prompt, completion = p, c }})
		if err != nil {
			t.Fatal(err)
		}
		msgs := BuildPrompt(question, frags)
		// A different first line each time: llama-cpp-python reuses the KV cache of a common prefix.
		msgs[0].Content = fmt.Sprintf("Request %d.\n", i+1) + msgs[0].Content
		logStart := fileSize(logPath)
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		out, err := c.Chat(ctx, llm.Request{Messages: msgs, JSON: &llm.Schema{Name: "cited_answer", Schema: answerSchema}, MaxTokens: 256})
		cancel()
		wall := time.Since(start)
		status, valid := "200", ""
		if err != nil {
			status = "error"
			var rej *llm.RejectedError
			if errors.As(err, &rej) {
				status = strconv.Itoa(rej.Status.StatusCode) + " (rejected)"
			}
			valid = "—"
			t.Logf("%s: %v", mode, err)
		} else {
			valid = conformsAnswer(out)
			t.Logf("%s answer: %s", mode, out)
		}
		pps, gps := perfSince(logPath, logStart)
		fmt.Printf("| %s | %s | %s | %d | %s | %d | %s | %.1fs | %s |\n", model, mode, status, prompt, pps, completion, gps, wall.Seconds(), valid)
	}
}

func benchServedModel(t *testing.T, base string) string {
	resp, err := http.Get(base + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || len(m.Data) == 0 {
		t.Fatalf("models: %v", err)
	}
	return m.Data[0].ID
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

var (
	promptPerf = regexp.MustCompile(`prompt eval time =\s*([0-9.]+) ms /\s*([0-9]+) tokens`)
	evalPerf   = regexp.MustCompile(`\s eval time =\s*([0-9.]+) ms /\s*([0-9]+) runs`)
)

// perfSince reads llama.cpp's timings that the server logged after offset.
func perfSince(path string, offset int64) (promptTPS, genTPS string) {
	raw, err := os.ReadFile(path)
	if err != nil || int64(len(raw)) < offset {
		return "?", "?"
	}
	raw = raw[offset:]
	rate := func(re *regexp.Regexp) string {
		m := re.FindAllSubmatch(raw, -1)
		if len(m) == 0 {
			return "?"
		}
		last := m[len(m)-1]
		ms, _ := strconv.ParseFloat(string(last[1]), 64)
		n, _ := strconv.Atoi(string(last[2]))
		if ms <= 0 {
			return "?"
		}
		return fmt.Sprintf("%.1f (%d in %.1fs)", float64(n)/(ms/1000), n, ms/1000)
	}
	return rate(promptPerf), rate(evalPerf)
}

// conformsAnswer checks the answer against answerSchema by hand: an object with exactly status
// (answer|not_found) and claims, each claim exactly text and citations (at least one), each
// citation exactly fragment (integer), chunk_id and quote (strings).
func conformsAnswer(out string) string {
	dec := json.NewDecoder(bytes.NewReader([]byte(strings.TrimSpace(out))))
	dec.DisallowUnknownFields()
	var a struct {
		Status *string `json:"status"`
		Claims *[]struct {
			Text      *string `json:"text"`
			Citations *[]struct {
				Fragment *int    `json:"fragment"`
				ChunkID  *string `json:"chunk_id"`
				Quote    *string `json:"quote"`
			} `json:"citations"`
		} `json:"claims"`
	}
	if err := dec.Decode(&a); err != nil {
		return "no: " + strings.ReplaceAll(err.Error(), "|", "/")
	}
	if a.Status == nil || a.Claims == nil || (*a.Status != "answer" && *a.Status != "not_found") {
		return "no: status or claims missing or out of the enum"
	}
	for _, c := range *a.Claims {
		if c.Text == nil || c.Citations == nil || len(*c.Citations) == 0 {
			return "no: a claim without text or citations"
		}
		for _, ct := range *c.Citations {
			if ct.Fragment == nil || ct.ChunkID == nil || ct.Quote == nil {
				return "no: a citation misses a field"
			}
		}
	}
	return fmt.Sprintf("yes (%s, %d claims)", *a.Status, len(*a.Claims))
}
