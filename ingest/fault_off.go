//go:build !faultinject

package ingest

// faultPoint marks a place in a run where the reliability suite kills a server. Without the
// faultinject build tag (every production build) it does nothing and is inlined away; see
// fault_on.go for what a `go build -tags faultinject` binary does there.
func faultPoint(string, int) {}
