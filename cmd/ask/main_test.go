package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/httpapi"
)

func TestPrintChain(t *testing.T) {
	cit := func(id, quote string) ariadne.Citation {
		return ariadne.Citation{ChunkID: id, Quote: quote, Start: 0, End: len(quote), Verified: true}
	}
	qr := httpapi.QueryResponse{Status: ariadne.StatusAnswered, Route: ariadne.RouteMultiHop,
		Claims: []ariadne.Claim{{Text: "Аккаунт-менеджер — Ольга Стрельцова.", Citations: []ariadne.Citation{cit("clients/vega#0001-22222222", "Аккаунт-менеджер — Ольга Стрельцова.")}}},
		Chain: []agent.ChainHop{
			{From: "INC-1", To: "Вега-Транс", Type: "AFFECTS", Citation: cit("incidents/inc-1#0000-11111111", "Инцидент INC-1 затронул сервис клиента «Вега-Транс».")},
			{From: "Вега-Транс", To: "Ольга Стрельцова", Type: "CONTACT", Citation: cit("clients/vega#0001-22222222", "Аккаунт-менеджер — Ольга Стрельцова.")},
		}}
	var b bytes.Buffer
	Print(&b, "Кто аккаунт-менеджер клиента, чей сервис затронул INC-1?", qr, 1500*time.Millisecond)
	for _, want := range []string{
		"status: answered · route: multi_hop · 1500 ms",
		"[clients/vega#0001-22222222] «Аккаунт-менеджер — Ольга Стрельцова.» bytes 0–", // the claim's citation
		"chain 1/2: INC-1 -[AFFECTS]-> Вега-Транс  [incidents/inc-1#0000-11111111]",
		"chain 2/2: Вега-Транс -[CONTACT]-> Ольга Стрельцова  [clients/vega#0001-22222222]",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}

// TestNoAPIHint: with nothing listening at the URL the error says how to start the API (it said
// only "connection refused": outside tester).
func TestNoAPIHint(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	var out bytes.Buffer
	code, _ := run(context.Background(), []string{"--url", url, "Сколько дней отпуска?"}, &out, io.Discard)
	if code != 1 || !strings.Contains(out.String(), "no API answers at "+url) || !strings.Contains(out.String(), "go run ./cmd/api") {
		t.Errorf("exit %d, output %q", code, out.String())
	}
}

// TestUnavailableExitsNonZero: an answer "unavailable" (a store or model down) is printed with its
// reason and makes the exit status 1, so a script can tell (README trial: it exited 0).
func TestUnavailableExitsNonZero(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"status":"unavailable","answer":"","reason":"the embedder is unavailable; retry later","claims":[],"citations":[],"paths":[],"request_id":"r"}`)
	}))
	defer srv.Close()
	var out bytes.Buffer
	code, _ := run(context.Background(), []string{"--url", srv.URL, "Сколько дней отпуска?"}, &out, io.Discard)
	if code != 1 || !strings.Contains(out.String(), "status: unavailable") || !strings.Contains(out.String(), "the embedder is unavailable") ||
		strings.Contains(out.String(), "error:") {
		t.Errorf("exit %d, output %q", code, out.String())
	}
}
