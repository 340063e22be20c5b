// Command ask sends questions to a running Ariadne API (POST /v1/query) and prints each answer
// with its status, route, verified citations, the multi-hop chain and graph paths.
//
//	ask [--url http://127.0.0.1:8088] [--key KEY] [--mode auto] "question" ["question" ...]
//
// Exit codes: 0 every question got an answer (answered, not_found, refused or index_empty), 1 a
// request failed or the service was unavailable, 2 bad flags.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/httpapi"
	"github.com/ariadne-graphrag/ariadne/internal/loopback"
)

type cli struct {
	URL       string        `name:"url" env:"ARIADNE_API_URL" default:"${api_url}" help:"Base URL of the Ariadne API."`
	Key       string        `name:"key" env:"ARIADNE_API_KEY" help:"API key (sent as a bearer token)."`
	Mode      string        `name:"mode" default:"auto" enum:"auto,simple,hybrid,multi_hop" help:"Retrieval mode."`
	Timeout   time.Duration `name:"timeout" default:"120s" help:"Per question."`
	Questions []string      `arg:"" name:"question" help:"Questions to ask."`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code, err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ask:", err)
	}
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	vars, err := loopback.Vars()
	if err != nil {
		return 2, err
	}
	var c cli
	exited := -1
	parser, err := kong.New(&c, kong.Vars(vars), kong.Name("ask"), kong.Writers(stdout, stderr),
		kong.Description("Ask a running Ariadne API and print verified answers."), kong.Exit(func(code int) { exited = code }))
	if err != nil {
		return 2, err
	}
	_, perr := parser.Parse(args)
	switch {
	case exited == 0:
		return 0, nil
	case exited > 0:
		return 2, nil
	case perr != nil:
		parser.Errorf("%s", perr)
		return 2, nil
	}
	client := &http.Client{Timeout: c.Timeout}
	failed := false
	for _, q := range c.Questions {
		if err := ask(ctx, client, c, q, stdout); err != nil {
			if !errors.Is(err, errUnavailable) {
				fmt.Fprintf(stdout, "Q: %s\n   error: %v\n\n", q, err)
			}
			failed = true
		}
	}
	if failed {
		return 1, errors.New("some questions failed")
	}
	return 0, nil
}

func ask(ctx context.Context, client *http.Client, c cli, question string, w io.Writer) error {
	body, _ := json.Marshal(httpapi.QueryRequest{Question: question, Mode: c.Mode})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.URL, "/")+"/v1/query", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("no API answers at %s (%w): start it (`go run ./cmd/api` over your index; `make demo` indexes the demo corpus and starts one), or point --url (ARIADNE_API_URL) at it (the default port moves with ARIADNE_PORT_OFFSET)", c.URL, err)
		}
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var qr httpapi.QueryResponse
	if err := json.Unmarshal(raw, &qr); err != nil || qr.Status == "" {
		var e httpapi.ErrorBody
		if json.Unmarshal(raw, &e) == nil && e.Error.Code != "" {
			return fmt.Errorf("HTTP %d %s: %s", resp.StatusCode, e.Error.Code, e.Error.Message)
		}
		return fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, raw)
	}
	Print(w, question, qr, time.Since(start))
	if qr.Status == ariadne.StatusUnavailable {
		return errUnavailable // printed with its reason; the exit status says so (README trial)
	}
	return nil
}

// errUnavailable is a question the service answered "unavailable" (a store or model was down).
var errUnavailable = errors.New("the service could not answer")

// Print renders one answer for a terminal.
func Print(w io.Writer, question string, qr httpapi.QueryResponse, took time.Duration) {
	fmt.Fprintf(w, "Q: %s\n", question)
	route := string(qr.Route)
	if route == "" {
		route = "–"
	}
	fmt.Fprintf(w, "   status: %s · route: %s · %d ms\n", qr.Status, route, took.Milliseconds())
	if qr.Reason != "" {
		fmt.Fprintf(w, "   reason: %s\n", qr.Reason)
	}
	for _, cl := range qr.Claims {
		fmt.Fprintf(w, "   ▸ %s\n", oneLine(cl.Text))
		for _, cit := range cl.Citations {
			mark := "✗"
			if cit.Verified {
				mark = "✓ verified"
			}
			fmt.Fprintf(w, "       [%s] «%s» bytes %d–%d of the chunk, %s\n", cit.ChunkID, oneLine(cit.Quote), cit.Start, cit.End, mark)
		}
	}
	for i, h := range qr.Chain {
		fmt.Fprintf(w, "   chain %d/%d: %s -[%s]-> %s  [%s]\n", i+1, len(qr.Chain), h.From, h.Type, h.To, h.Citation.ChunkID)
	}
	for _, c := range qr.Compared {
		value := ""
		if c.Value != "" {
			value = " (" + c.Value + ")"
		}
		fmt.Fprintf(w, "   compared: %s%s — «%s»  [%s]\n", c.Entity, value, oneLine(c.Citation.Quote), c.Citation.ChunkID)
	}
	if o := qr.ComparedOutcome; o != nil && o.Entity == "" {
		fmt.Fprintf(w, "   → %s (from the quotes above)\n", o.By)
	} else if o != nil {
		fmt.Fprintf(w, "   → %s (%s, from the quotes above)\n", o.Entity, o.By)
	}
	for i, p := range qr.Paths {
		if i == 3 {
			fmt.Fprintf(w, "   … %d more paths\n", len(qr.Paths)-3)
			break
		}
		var b strings.Builder
		for j, n := range p.Nodes {
			b.WriteString(n.Name)
			if j < len(p.Edges) {
				e := p.Edges[j]
				arrow := " -[" + e.Type + "]-> "
				if e.To == n.Key {
					arrow = " <-[" + e.Type + "]- "
				}
				b.WriteString(arrow)
			}
		}
		fmt.Fprintf(w, "   path: %s\n", b.String())
	}
	fmt.Fprintln(w)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
