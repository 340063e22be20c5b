package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// loadCmd drives a running cmd/api with a closed loop of concurrent clients (vegeta as a
// library: rate 0, a fixed number of workers) asking questions from a file in turn.
type loadCmd struct {
	API       string        `name:"api" default:"http://127.0.0.1:18088" help:"The API under test."`
	Clients   uint64        `name:"clients" default:"40" help:"Concurrent clients (each waits for its answer before asking again)."`
	Duration  time.Duration `name:"duration" default:"30s" help:"How long to attack."`
	Questions string        `name:"questions" default:"cmd/scalebench/testdata/demo-questions.txt" help:"Questions, one per line; asked in turn."`
	Unique    bool          `name:"unique" help:"Make every question's text unique (a counter appended), so no query embedding is ever cached."`
	Mode      string        `name:"mode" default:"auto" help:"Route: auto, simple, hybrid, multi_hop."`
	Label     string        `name:"label" default:"" help:"A name for this run in the output."`
}

func (l loadCmd) Run(out io.Writer) error {
	f, err := os.Open(l.Questions)
	if err != nil {
		return err
	}
	var qs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if q := strings.TrimSpace(sc.Text()); q != "" {
			qs = append(qs, q)
		}
	}
	f.Close()
	if len(qs) == 0 {
		return fmt.Errorf("%s: no questions", l.Questions)
	}
	var n atomic.Uint64
	targeter := func(t *vegeta.Target) error {
		i := n.Add(1) - 1
		q := qs[i%uint64(len(qs))]
		if l.Unique {
			q = fmt.Sprintf("%s (%d)", q, i)
		}
		body, err := json.Marshal(map[string]any{"question": q, "mode": l.Mode})
		if err != nil {
			return err
		}
		t.Method, t.URL, t.Body = http.MethodPost, strings.TrimRight(l.API, "/")+"/v1/query", body
		t.Header = http.Header{"Content-Type": []string{"application/json"}}
		return nil
	}
	atk := vegeta.NewAttacker(vegeta.Workers(l.Clients), vegeta.MaxWorkers(l.Clients), vegeta.Timeout(120*time.Second),
		vegeta.KeepAlive(true), vegeta.Connections(int(l.Clients)))
	var m vegeta.Metrics
	load0 := loadAvg()
	for res := range atk.Attack(targeter, vegeta.Rate{Freq: 0}, l.Duration, "load") {
		m.Add(res)
	}
	m.Close()
	fmt.Fprintf(out, "%s: %d clients, %s, %d requests: %.1f rps (successful), p50 %s p95 %s p99 %s max %s, success %.1f%%, codes %v (load avg %.1f→%.1f)\n",
		l.Label, l.Clients, l.Duration, m.Requests, m.Throughput, m.Latencies.P50.Round(time.Millisecond), m.Latencies.P95.Round(time.Millisecond),
		m.Latencies.P99.Round(time.Millisecond), m.Latencies.Max.Round(time.Millisecond), 100*m.Success, m.StatusCodes, load0, loadAvg())
	return nil
}
