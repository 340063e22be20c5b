package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ariadne-graphrag/ariadne/httpapi"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// The demo's questions (deploy/demo.sh) and a string only the management-only contract holds.
const (
	// Its citations start mid-chunk after Cyrillic text: byte and UTF-16 offsets differ.
	qRussian  = "Какая команда владеет библиотекой, которая стала причиной INC-812?"
	qMultiHop = "Who is the account manager of the client whose refrigerated trucks were hit by the delayed SMS alerts of INC-845?"
	qACL      = "Какой штраф платит «Кварц Системс» по договору CTR-2025-07, если доступность ниже 99,5%?"
	// qMidChunk's answer is the second sentence of a Russian chunk: its quote starts after
	// multi-byte text, so the page's byte → UTF-16 offset conversion is exercised end to end.
	qMidChunk = "Какой минимальной длины должна быть одна из частей отпуска?"
	aclCanary = "2% от месячной стоимости"
	mgmtKey   = "demo-management-key"
)

// chromium finds a Chromium or Chrome binary: $ARIADNE_CHROME, else the Debian package's name.
func chromium() (string, error) {
	if p := os.Getenv("ARIADNE_CHROME"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no chromium on PATH (apt-get install chromium; deploy/test.sh does)")
}

// browserLog records what the page did: requests, bytes transferred, console errors.
type browserLog struct {
	mu       sync.Mutex
	urls     []string
	bytes    float64
	problems []string
}

func (b *browserLog) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		b.urls = append(b.urls, ev.Request.URL)
	case *network.EventLoadingFinished:
		b.bytes += ev.EncodedDataLength
	case *network.EventLoadingFailed:
		if !ev.Canceled {
			b.problems = append(b.problems, "loading failed: "+ev.ErrorText)
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeWarning {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			b.problems = append(b.problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
		}
	case *runtime.EventExceptionThrown:
		b.problems = append(b.problems, "exception: "+ev.ExceptionDetails.Error())
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.LevelError || ev.Entry.Level == log.LevelWarning {
			b.problems = append(b.problems, fmt.Sprintf("log %s (%s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		}
	}
}

func (b *browserLog) snapshot() (urls []string, bytes float64, problems []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.urls), b.bytes, slices.Clone(b.problems)
}

// TestIntegrationAnalystPage drives the page in headless Chromium against the real API (run, in
// process), over the demo corpus indexed into the real Neo4j and Weaviate: it asks, checks every
// highlighted quote against the citation and the chunk's bytes, the permission filter, the graph
// view, the explorer and the documents, and that the page talks to nobody but its own origin.
// ARIADNE_UI_SCREENSHOTS=DIR saves screenshots of the main states (docs/ui holds the README's).
func TestIntegrationAnalystPage(t *testing.T) {
	chrome, chromeErr := chromium()
	testenv.Need(t, "Chromium", func(context.Context) error { return chromeErr })
	rig := testrig.New(t, "../../demo/corpus")
	addr := startAPI(t, rig.Vector.Class(), rig.Graph.Namespace())
	base := "http://" + addr

	// Chromium's helper processes may still write into its profile for a moment after it is
	// stopped, which t.TempDir's cleanup reports as an error: remove it with a few retries.
	profile, err := os.MkdirTemp("", "ariadne-ui-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 20 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
	})
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chrome), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(profile),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true), chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("metrics-recording-only", true), chromedp.Flag("no-pings", true),
		chromedp.WindowSize(1280, 800))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 4*time.Minute)
	defer cancelT()
	var bl browserLog
	chromedp.ListenTarget(ctx, bl.listen)
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		start := time.Now()
		defer func() {
			if d := time.Since(start); d > 3*time.Second {
				t.Logf("%s took %s", what, d.Round(time.Millisecond))
			}
		}()
		if err := chromedp.Run(ctx, actions...); err != nil {
			_, _, problems := bl.snapshot()
			t.Fatalf("%s: %v\nbrowser problems: %v", what, err, problems)
		}
	}
	shots := os.Getenv("ARIADNE_UI_SCREENSHOTS")
	if shots != "" && !filepath.IsAbs(shots) {
		shots = filepath.Join("..", "..", shots) // relative to the repository
	}
	shot := func(name string) {
		t.Helper()
		if shots == "" {
			return
		}
		var png []byte
		run("screenshot "+name, chromedp.Sleep(300*time.Millisecond), chromedp.CaptureScreenshot(&png))
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// First load: / redirects to /ui/; page weight is what the network transferred until ready.
	run("open", network.Enable(), log.Enable(), runtime.Enable(),
		chromedp.EmulateViewport(1280, 800),
		chromedp.Navigate(base+"/"), chromedp.WaitVisible("#question", chromedp.ByID),
		chromedp.Poll(`document.documentElement.dataset.ready === "1"`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Sleep(500*time.Millisecond))
	_, weight, _ := bl.snapshot()
	t.Logf("page weight on first load: %.1f KB transferred", weight/1024)
	var loc string
	run("location", chromedp.Location(&loc))
	if !strings.HasSuffix(loc, "/ui/") {
		t.Fatalf("/ did not land on /ui/: %s", loc)
	}

	// Ask with the keyboard: type, Enter.
	ask := func(q string, debug bool) string {
		t.Helper()
		var status string
		run("ask "+q,
			chromedp.Evaluate(`document.getElementById("question").value = ""`, nil),
			chromedp.Focus("#question", chromedp.ByID),
			chromedp.Evaluate(fmt.Sprintf(`document.getElementById("debug").checked = %v`, debug), nil),
			chromedp.SendKeys("#question", q, chromedp.ByID),
			chromedp.SendKeys("#question", "\r", chromedp.ByID),
			chromedp.Poll(`(() => { const s = document.getElementById("result").dataset.status; return s && s !== "pending" ? s : null })()`,
				&status, chromedp.WithPollingTimeout(90*time.Second)))
		return status
	}

	// 1. A demo question: answered, every chip's highlight is the quote and the chunk's bytes.
	if s := ask(qRussian, false); s != "answered" {
		t.Fatalf("%q: status %s", qRussian, s)
	}
	var stagesDone int
	run("stages", chromedp.Evaluate(`document.querySelectorAll("#stages .stage.done").length`, &stagesDone))
	if stagesDone != 4 {
		t.Errorf("want the four stages done, got %d", stagesDone)
	}
	want := queryJSON(t, base, qRussian, "")
	checkHighlights(t, ctx, run, base, "", want)
	if s := ask(qMidChunk, false); s != "answered" {
		t.Fatalf("%q: status %s", qMidChunk, s)
	}
	mid := queryJSON(t, base, qMidChunk, "")
	checkHighlights(t, ctx, run, base, "", mid)
	midChunk := false
	for _, c := range append(want.Citations, mid.Citations...) {
		text := chunkText(t, base, "", c.ChunkID)
		midChunk = midChunk || (c.Start > 0 && len(text[:c.Start]) != len([]rune(text[:c.Start])))
	}
	if !midChunk {
		t.Errorf("no citation starts after multi-byte text; the offset conversion is untested")
	}
	ask(qRussian, false) // the screenshots below show the first question's answer
	// The screenshot shows the first citation: a quote after Cyrillic text.
	run("first chip", chromedp.Click("#result button.cite", chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("chunk-panel").dataset.state === "ready"`, nil, chromedp.WithPollingTimeout(10*time.Second)))
	shot("answered-chunk")
	run("close panel", chromedp.KeyEvent("\x1b"))
	shot("answered")

	// 2. The management-only document: without a key not_found and none of its text anywhere in
	// the DOM; with the management key (kept in sessionStorage only) answered.
	if s := ask(qACL, false); s != "not_found" {
		t.Fatalf("without a key: status %s", s)
	}
	var html string
	run("dom", chromedp.OuterHTML("html", &html, chromedp.ByQuery))
	if strings.Contains(html, aclCanary) || strings.Contains(html, "24 500 000") {
		t.Fatalf("restricted text in the DOM without a key")
	}
	shot("not-found")
	run("key", chromedp.SendKeys("#api-key", mgmtKey, chromedp.ByID))
	if s := ask(qACL, false); s != "answered" {
		t.Fatalf("with the management key: status %s", s)
	}
	run("dom", chromedp.OuterHTML("html", &html, chromedp.ByQuery))
	if !strings.Contains(html, aclCanary) {
		t.Errorf("the management answer does not show %q", aclCanary)
	}
	checkHighlights(t, ctx, run, base, mgmtKey, queryJSON(t, base, qACL, mgmtKey))
	run("close panel", chromedp.KeyEvent("\x1b"))
	var stored struct{ Session, Local string }
	run("storage", chromedp.Evaluate(`({Session: sessionStorage.getItem("ariadne.apiKey") || "", Local: JSON.stringify(localStorage)})`, &stored))
	if stored.Session != mgmtKey || strings.Contains(stored.Local, mgmtKey) {
		t.Errorf("the key must live in sessionStorage only: %+v", stored)
	}
	// A wrong key is a 401 the page explains.
	run("wrong key", chromedp.Click("#key-clear", chromedp.ByID), chromedp.SendKeys("#api-key", "not-a-key", chromedp.ByID))
	if s := ask(qRussian, false); s != "error" {
		t.Errorf("with a wrong key: status %s", s)
	}
	var errText string
	run("401", chromedp.Text("#result", &errText, chromedp.ByID))
	if !strings.Contains(errText, "401") {
		t.Errorf("the 401 is not explained: %q", errText)
	}
	run("clear key", chromedp.Click("#key-clear", chromedp.ByID))

	// 3. Multi-hop: the evidence graph shows the paths' nodes; an edge lists its chunks; trace on.
	if s := ask(qMultiHop, true); s != "answered" {
		t.Fatalf("%q: status %s", qMultiHop, s)
	}
	mh := queryJSON(t, base, qMultiHop, "")
	if len(mh.Paths) == 0 {
		t.Fatalf("the API returned no path for the multi-hop question")
	}
	// The answer follows the chain from the incident through its component and project to the
	// client (with e5 one hop further, to the account manager; which paths retrieval yields
	// depends on the embedder), each hop a verified sentence.
	reaches := false
	for _, h := range mh.Chain {
		reaches = reaches || h.From == "Helio Pharma" || h.To == "Helio Pharma"
		if !h.Citation.Verified {
			t.Errorf("chain hop not verified: %+v", h)
		}
	}
	if len(mh.Chain) < 3 || mh.Chain[0].From != "INC-845" || !reaches {
		t.Errorf("multi-hop chain: %+v", mh.Chain)
	}
	// The demo's comparison: one verified sentence about each incident, the one with its date.
	cmp := queryJSON(t, base, "Какой инцидент случился раньше: INC-812 или INC-845?", "")
	if len(cmp.Compared) != 2 || cmp.Compared[0].Citation.DocID != "incidents/inc-812" || cmp.Compared[1].Citation.DocID != "incidents/inc-845" ||
		!strings.Contains(cmp.Compared[0].Citation.Quote, "12 февраля 2025") || !strings.Contains(cmp.Compared[1].Citation.Quote, "1 March 2025") {
		t.Errorf("comparison: compared %+v", cmp.Compared)
	}
	// Code concludes the order from the two dates: INC-812 (12 February) before INC-845 (1 March).
	if o := cmp.ComparedOutcome; len(cmp.Compared) != 2 || cmp.Compared[0].Value != "2025-02-12" || cmp.Compared[1].Value != "2025-03-01" ||
		o == nil || o.Entity != cmp.Compared[0].Entity || o.By != "earliest date" {
		t.Errorf("comparison outcome: %+v from %+v", o, cmp.Compared)
	}
	wantKeys := map[string]bool{}
	for _, p := range mh.Paths {
		for _, n := range p.Nodes {
			wantKeys[n.Key] = true
		}
	}
	var graph struct {
		Nodes    string
		Canvases int
		Keys     []string
		Trace    bool
		Link     string
	}
	run("graph", chromedp.Poll(`(() => { const g = document.querySelector("#path-graph .graph"); return g && g.dataset.nodes ? {
		Nodes: g.dataset.nodes, Canvases: g.querySelectorAll("canvas").length,
		Keys: [...document.querySelectorAll("#path-graph .nodes li")].map(li => li.dataset.key),
		Trace: !!document.querySelector("#result .trace"), Link: document.querySelector("#path-graph a.neo4j")?.href || "" } : null })()`,
		&graph, chromedp.WithPollingTimeout(10*time.Second)))
	if graph.Nodes != fmt.Sprint(len(wantKeys)) || graph.Canvases == 0 || len(graph.Keys) != len(wantKeys) {
		t.Errorf("graph: %+v, want %d nodes %v", graph, len(wantKeys), wantKeys)
	}
	for _, k := range graph.Keys {
		if !wantKeys[k] {
			t.Errorf("graph node %s is not on the API's paths", k)
		}
	}
	if !graph.Trace {
		t.Errorf("no trace panel with debug on")
	}
	if u, err := url.Parse(graph.Link); err != nil || u.Query().Get("cmd") != "edit" || !strings.Contains(u.Query().Get("arg"), "MATCH") {
		t.Errorf("Neo4j Browser link %q", graph.Link)
	}
	run("edge", chromedp.Click("#path-graph button.edge", chromedp.ByQuery),
		chromedp.WaitVisible("#path-graph .edge-support button.chip", chromedp.ByQuery),
		chromedp.Click("#path-graph .edge-support button.chip", chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("chunk-panel").dataset.state === "ready"`, nil, chromedp.WithPollingTimeout(10*time.Second)))
	run("close panel", chromedp.KeyEvent("\x1b"), chromedp.Evaluate(`document.getElementById("path-graph").scrollIntoView()`, nil))
	shot("multi-hop-graph")
	run("top", chromedp.Evaluate(`window.scrollTo(0, 0)`, nil))

	// 4. Narrow window: the answer is readable without horizontal scrolling.
	run("narrow", chromedp.EmulateViewport(390, 844))
	var overflow bool
	run("overflow", chromedp.Sleep(300*time.Millisecond), chromedp.Evaluate(`document.documentElement.scrollWidth > window.innerWidth + 1`, &overflow))
	if overflow {
		t.Errorf("the page scrolls sideways at 390px")
	}
	shot("narrow-answered")
	run("wide", chromedp.EmulateViewport(1280, 800))

	// 5. Entities in any script, and a neighbourhood graph.
	var nbNodes string
	run("entities", chromedp.Click("#tab-explore", chromedp.ByID), chromedp.WaitVisible("#entity-q", chromedp.ByID),
		chromedp.SendKeys("#entity-q", "тундра энерго\r", chromedp.ByID),
		chromedp.WaitVisible("#entity-results a.entity", chromedp.ByQuery),
		chromedp.Click("#entity-results a.entity", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector("#entity-view .graph")?.dataset.nodes || null`, &nbNodes, chromedp.WithPollingTimeout(15*time.Second)))
	if nbNodes == "" || nbNodes == "1" {
		t.Errorf("neighbourhood graph nodes: %q", nbNodes)
	}
	shot("entity")

	// 6. Documents: the list shows what the caller may read; a document shows its chunks.
	var docs struct {
		Rows int
		Text string
	}
	run("documents", chromedp.Click("#tab-documents", chromedp.ByID),
		chromedp.Poll(`(() => { const r = document.querySelectorAll("#doc-list tbody tr").length; return r ? {Rows: r, Text: document.getElementById("doc-list").textContent} : null })()`,
			&docs, chromedp.WithPollingTimeout(15*time.Second)))
	if strings.Contains(docs.Text, "ctr-2025-07") {
		t.Errorf("the management-only contract is listed without a key")
	}
	var docView string
	run("document", chromedp.Click("#doc-list tbody a", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector("#doc-view .doc-chunk, #doc-view .error") ? document.getElementById("doc-view").textContent : null`,
			&docView, chromedp.WithPollingTimeout(15*time.Second)))
	if strings.Contains(docView, "not exist") || strings.Contains(docView, "could not") || !strings.Contains(docView, "Readable by") {
		t.Errorf("document view: %.300s", docView)
	}
	shot("documents")

	// Nothing went wrong in the browser (but the 401 asked for above), and nothing left 127.0.0.1.
	urls, total, all := bl.snapshot()
	var problems []string
	for _, p := range all {
		if !strings.Contains(p, "status of 401 (Unauthorized) "+base+"/v1/query") {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		t.Errorf("browser problems:\n%s", strings.Join(problems, "\n"))
	}
	for _, u := range urls {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "data" && p.Hostname() != "127.0.0.1") {
			t.Errorf("a request left 127.0.0.1: %s", u)
		}
	}
	t.Logf("%d requests, %.1f KB transferred in all", len(urls), total/1024)
}

// checkHighlights opens every citation chip of the answer and checks that the highlighted span is
// the citation's quote and the chunk's text between the byte offsets (GET /v1/chunks/{id}).
func checkHighlights(t *testing.T, ctx context.Context, run func(string, ...chromedp.Action), base, key string, want httpapi.QueryResponse) {
	t.Helper()
	var cites []ariadneCitation
	for _, c := range want.Claims {
		for _, ct := range c.Citations {
			cites = append(cites, ariadneCitation{ct.ChunkID, ct.Quote, ct.Start, ct.End})
		}
	}
	var nodes []*cdp.Node
	run("chips", chromedp.Nodes("#result button.cite", &nodes, chromedp.ByQueryAll))
	if len(nodes) != len(cites) || len(cites) == 0 {
		t.Fatalf("%d citation chips on the page, %d citations in the answer", len(nodes), len(cites))
	}
	for i, n := range nodes {
		c := cites[i]
		if n.AttributeValue("data-chunk-id") != c.ChunkID || n.AttributeValue("data-start") != fmt.Sprint(c.Start) || n.AttributeValue("data-end") != fmt.Sprint(c.End) {
			t.Fatalf("chip %d: %v, want %+v", i, n.Attributes, c)
		}
		var mark string
		if i > 0 {
			// The open panel covers the right of the page, where a later chip of a long claim
			// can sit: close it first, as a reader would.
			run("close panel", chromedp.KeyEvent("\x1b"),
				chromedp.WaitNotVisible("#chunk-panel", chromedp.ByID))
		}
		run("open chip", chromedp.MouseClickNode(n),
			chromedp.Poll(fmt.Sprintf(`(() => { const p = document.getElementById("chunk-panel"); const m = p.querySelector("mark.quote");
				return p.dataset.state === "ready" && p.dataset.chunkId === %q && m && m.dataset.start === "%d" ? m.textContent : null })()`, c.ChunkID, c.Start),
				&mark, chromedp.WithPollingTimeout(10*time.Second)))
		text := chunkText(t, base, key, c.ChunkID)
		if c.End > len(text) || mark != c.Quote || mark != text[c.Start:c.End] {
			t.Errorf("chip %d (%s %d–%d): highlighted %q, quote %q, chunk bytes %q", i, c.ChunkID, c.Start, c.End, mark, c.Quote, text[min(c.Start, len(text)):min(c.End, len(text))])
		}
	}
}

type ariadneCitation struct {
	ChunkID, Quote string
	Start, End     int
}

func startAPI(t *testing.T, class, namespace string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	var logs bytes.Buffer
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--embedder", "lexical", "--weaviate-class", class,
			"--neo4j-namespace", namespace,
			"--keys-file", "../../demo/api-keys.yaml", "--neo4j-password", testenv.Neo4jPassword(), "--log-level", "warn"}, io.Discard, &logs, ready)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("the API did not shut down")
		}
	})
	select {
	case addr := <-ready:
		return addr
	case err := <-done:
		t.Fatalf("run ended early: %v\n%s", err, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("not listening after 30s")
	}
	return ""
}

func apiDo(t *testing.T, method, u, key string, body any, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, u, rd)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", method, u, resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
}

func queryJSON(t *testing.T, base, q, key string) httpapi.QueryResponse {
	t.Helper()
	var r httpapi.QueryResponse
	apiDo(t, "POST", base+"/v1/query", key, map[string]any{"question": q}, &r)
	return r
}

func chunkText(t *testing.T, base, key, id string) string {
	t.Helper()
	var r struct {
		Chunk struct {
			Text string `json:"text"`
		} `json:"chunk"`
	}
	apiDo(t, "GET", base+"/v1/chunks/"+url.PathEscape(id), key, nil, &r)
	return r.Chunk.Text
}
