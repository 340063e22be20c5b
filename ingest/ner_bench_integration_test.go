package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/evaluation"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/ner"
)

// BenchmarkIngestMuSiQueNER measures ingestion of the MuSiQue-100 corpus of ../shared/datasets
// (1 890 distinct English paragraphs, one document each; skipped with the reason when ../shared
// is not here) with the lexical embedder and the dictionary extractor, with entity recognition by
// the real NER sidecar on and off: chunks/s (wall, Weaviate and Neo4j writes included), the
// graph's entities and entity–entity relations per chunk, and CPU milliseconds per chunk of this
// process and of the sidecar (its server and worker processes, from /proc). CPU time per chunk
// depends on load too on this machine kind (the sidecar's 4.7–4.9 ms per MuSiQue chunk quiet
// against 15.1 ms at load average 22–25; docs/evaluation.md), so the load average at the start is
// reported with them. The sidecar is asked not to use its cache of recent texts, so every run pays
// the model.
func BenchmarkIngestMuSiQueNER(b *testing.B) {
	docs, _, err := evaluation.LoadMuSiQue(testrig.SharedOrSkip(b, "datasets/musique_100.json"))
	if err != nil {
		b.Fatal(err)
	}
	benchIngestNER(b, docs)
}

// BenchmarkIngestXQuADRuNER is BenchmarkIngestMuSiQueNER on Russian text: the 240 XQuAD-ru
// paragraphs of ../shared/datasets (longer than MuSiQue's: 1.5 KB on average, ~7.6 recognized
// names each), where the sidecar also gives every mention its normal form (pymorphy3).
func BenchmarkIngestXQuADRuNER(b *testing.B) {
	docs, _, err := evaluation.LoadXQuAD(testrig.SharedOrSkip(b, "datasets/xquad_ru.json"), "ru")
	if err != nil {
		b.Fatal(err)
	}
	benchIngestNER(b, docs)
}

// benchIngestNER ingests docs with recognition off and on (see BenchmarkIngestMuSiQueNER).
func benchIngestNER(b *testing.B, docs []ariadne.Document) {
	for _, mode := range []string{"off", "on"} {
		b.Run("ner="+mode, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				b.StopTimer()
				var rig *testrig.Rig
				if mode == "on" {
					// Uncached: the sidecar remembers the texts of earlier runs (deploy/ner).
					rig = testrig.NewWithNERConfig(b, "", ner.Config{NoCache: true})
				} else {
					rig = testrig.New(b, "")
				}
				load := loadAverage()
				nerBefore := sidecarCPU(b)
				selfBefore := selfCPU()
				b.StartTimer()
				sum, err := rig.Pipe.Sync(ctx, docs, ingest.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				n := float64(sum.Chunks)
				counts, err := rig.Graph.Count(ctx)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(n/sum.Elapsed.Seconds(), "chunks/s")
				b.ReportMetric(float64(counts.Entities)/n, "entities/chunk")
				b.ReportMetric(float64(counts.Relations)/n, "relations/chunk")
				b.ReportMetric(float64(counts.Mentions)/n, "mentions/chunk")
				b.ReportMetric((selfCPU()-selfBefore).Seconds()*1000/n, "go-cpu-ms/chunk")
				if mode == "on" {
					b.ReportMetric((sidecarCPU(b)-nerBefore).Seconds()*1000/n, "ner-cpu-ms/chunk")
				}
				b.ReportMetric(load, "loadavg")
				b.StartTimer()
			}
		})
	}
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func loadAverage() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(raw))[0], 64)
	return f
}

// sidecarCPU is the user+system CPU time of the NER sidecar deploy/local.sh started (pid file
// $ARIADNE_HOME/run/ner.pid) and of its worker processes, from /proc; 0 when it cannot be read.
func sidecarCPU(b *testing.B) time.Duration {
	raw, err := os.ReadFile(filepath.Join(testenv.Home(), "run", "ner.pid"))
	if err != nil {
		b.Logf("no sidecar pid file: %v", err)
		return 0
	}
	pid := strings.TrimSpace(string(raw))
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var ticks int64
	for _, p := range procs {
		st, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid … utime(14) stime(15): fields after the command's closing paren.
		s := string(st)
		rest := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(rest) < 13 {
			continue
		}
		self := strings.Fields(s)[0]
		if self != pid && rest[1] != pid {
			continue
		}
		u, _ := strconv.ParseInt(rest[11], 10, 64)
		sy, _ := strconv.ParseInt(rest[12], 10, 64)
		ticks += u + sy
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}
