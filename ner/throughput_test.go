package ner_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/chunking"
	"github.com/ariadne-graphrag/ariadne/evaluation"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/ner"
)

// TestNERThroughput measures the real sidecar on ~300-token chunks of XQuAD-ru (Russian) and
// MuSiQue (English) paragraphs, and on single sentences, for several batch sizes. It runs only
// with ARIADNE_NER_BENCH=1 (and the datasets in ../../shared/datasets):
//
//	ARIADNE_NER_BENCH=1 go test -count=1 -v -run TestNERThroughput ./ner
func TestNERThroughput(t *testing.T) {
	if os.Getenv("ARIADNE_NER_BENCH") != "1" {
		t.Skip("SKIP: set ARIADNE_NER_BENCH=1 to measure the NER sidecar")
	}
	testenv.Need(t, "the NER sidecar", testenv.HTTPGet(testenv.NERURL()+"/health"))
	ru, _, err := evaluation.LoadXQuAD("../../shared/datasets/xquad_ru.json", "ru")
	if err != nil {
		t.Skip("SKIP: ", err)
	}
	en, _, err := evaluation.LoadMuSiQue("../../shared/datasets/musique_100.json")
	if err != nil {
		t.Skip("SKIP: ", err)
	}
	counter, err := chunking.NewCL100K()
	if err != nil {
		t.Fatal(err)
	}
	chunker, err := chunking.New(chunking.Options{MaxTokens: 300, OverlapTokens: 0}, counter)
	if err != nil {
		t.Fatal(err)
	}
	const n = 256
	for _, set := range []struct {
		lang string
		docs []ariadne.Document
	}{{"ru", ru}, {"en", en}} {
		chunks, tokens := chunksOf(chunker, set.docs, n)
		sentences := sentencesOf(set.docs, n)
		t.Logf("%s: %d chunks of %.0f cl100k tokens on average (%d–%d bytes); %d sentences of %.0f bytes",
			set.lang, len(chunks), float64(tokens)/float64(len(chunks)), minLen(chunks), maxLen(chunks),
			len(sentences), avgLen(sentences))
		for _, kind := range []struct {
			name  string
			texts []string
		}{{"chunks", chunks}, {"sentences", sentences}} {
			for _, b := range []int{1, 8, 32, 64} {
				measure(t, set.lang, kind.name, kind.texts, b)
			}
		}
	}
}

func measure(t *testing.T, lang, kind string, texts []string, batch int) {
	// Every batch size reads the same texts: the sidecar's cache would answer all but the first.
	c, err := ner.New(ner.Config{BaseURL: testenv.NERURL(), BatchSize: batch, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cpu0 := sidecarCPU(t)
	var lat []time.Duration
	mentions := 0
	start := time.Now()
	for i := 0; i < len(texts); i += batch {
		s := time.Now()
		got, err := c.Recognize(ctx, texts[i:min(i+batch, len(texts))], lang)
		if err != nil {
			t.Fatal(err)
		}
		lat = append(lat, time.Since(s))
		for _, ms := range got {
			mentions += len(ms)
		}
	}
	total := time.Since(start)
	cpu := sidecarCPU(t) - cpu0
	slices.Sort(lat)
	// The sidecar's CPU time per text bounds what it can do on an idle machine: 1/cpu per core.
	t.Logf("%s %-9s batch %2d: %6.1f %s/s (wall), latency per batch p50 %4dms p95 %4dms; sidecar CPU %.1fms per text "+
		"→ %.0f/s per busy core; %.1f mentions per text, %d dropped",
		lang, kind, batch, float64(len(texts))/total.Seconds(), kind, lat[len(lat)/2].Milliseconds(),
		lat[len(lat)*95/100].Milliseconds(), 1000*cpu.Seconds()/float64(len(texts)),
		float64(len(texts))/cpu.Seconds(), float64(mentions)/float64(len(texts)), c.Dropped())
}

// sidecarCPU is the user+system CPU time of the sidecar process whose pid deploy/local.sh recorded
// and of its worker processes.
func sidecarCPU(t *testing.T) time.Duration {
	raw, err := os.ReadFile(filepath.Join(testenv.Home(), "run", "ner.pid"))
	if err != nil {
		t.Skip("SKIP: no ner pid file under ARIADNE_HOME: ", err)
	}
	pid := strings.TrimSpace(string(raw))
	pids := []string{pid}
	if kids, err := os.ReadFile("/proc/" + pid + "/task/" + pid + "/children"); err == nil {
		pids = append(pids, strings.Fields(string(kids))...)
	}
	var ticks int
	for _, p := range pids {
		stat, err := os.ReadFile("/proc/" + p + "/stat")
		if err != nil {
			t.Skip("SKIP: ", err)
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		utime, _ := strconv.Atoi(f[11]) // fields 14 and 15 of /proc/pid/stat, in clock ticks (100 Hz)
		stime, _ := strconv.Atoi(f[12])
		ticks += utime + stime
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// chunksOf joins the documents' paragraphs and cuts them into chunks of at most 300 tokens, keeping
// those of at least 250 tokens, up to n.
func chunksOf(chunker *chunking.Chunker, docs []ariadne.Document, n int) ([]string, int) {
	var b strings.Builder
	for _, d := range docs { // the paragraphs without their "# title" lines, so chunks span several
		_, text, _ := strings.Cut(d.Body, "\n")
		b.WriteString(strings.TrimSpace(text))
		b.WriteString("\n\n")
	}
	var out []string
	tokens := 0
	for _, c := range chunker.Split(ariadne.Document{ID: "bench", Body: b.String()}) {
		if c.Tokens >= 250 && len(out) < n {
			out = append(out, c.Text)
			tokens += c.Tokens
		}
	}
	return out, tokens
}

// sentencesOf cuts the paragraphs at ". " into sentences of at least 40 bytes, up to n.
func sentencesOf(docs []ariadne.Document, n int) []string {
	var out []string
	for _, d := range docs {
		for _, s := range strings.Split(d.Body, ". ") {
			if s = strings.TrimSpace(s); len(s) >= 40 && !strings.HasPrefix(s, "#") && len(out) < n {
				out = append(out, s+".")
			}
		}
	}
	return out
}

func minLen(ts []string) int {
	m := len(ts[0])
	for _, s := range ts {
		m = min(m, len(s))
	}
	return m
}

func maxLen(ts []string) int {
	m := 0
	for _, s := range ts {
		m = max(m, len(s))
	}
	return m
}

func avgLen(ts []string) float64 {
	n := 0
	for _, s := range ts {
		n += len(s)
	}
	return float64(n) / float64(len(ts))
}
