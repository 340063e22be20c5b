//go:build faultinject

package ingest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// faultPoint is compiled only into test binaries built with `-tags faultinject` (the
// reliability suite, internal/faults). When ARIADNE_FAULT_AT is "<point>:<batch>" and the run
// reaches that point of that batch (batches count from 1; "before-first-batch" has batch 0), it
// prints "FAULT_POINT <point> <batch>" on stderr and sleeps ARIADNE_FAULT_PAUSE (a Go duration,
// default 4s), so the suite can kill -9 a server at exactly that moment. The points:
//
//	before-first-batch  planning done (both stores read), nothing written yet
//	after-embed         the batch's chunks are embedded, nothing of the batch written
//	after-vectors       the batch's vectors are in Weaviate, its graph transaction not run
//	after-graph         the batch's graph is committed, its stale vectors not deleted yet
func faultPoint(point string, batch int) {
	want, n, ok := strings.Cut(os.Getenv("ARIADNE_FAULT_AT"), ":")
	if !ok || want != point || n != strconv.Itoa(batch) {
		return
	}
	pause := 4 * time.Second
	if d, err := time.ParseDuration(os.Getenv("ARIADNE_FAULT_PAUSE")); err == nil {
		pause = d
	}
	fmt.Fprintf(os.Stderr, "FAULT_POINT %s %d\n", point, batch)
	time.Sleep(pause)
}
