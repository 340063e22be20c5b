// Package faults kills and restarts the local servers of one ARIADNE_HOME for the reliability
// suite (deploy/faults.sh, `make reliability`, and its short version in `make test`). It only
// acts on servers deploy/local.sh started from that home (their pid files under $ARIADNE_HOME/run),
// and only when ARIADNE_FAULTS=1 says that home's servers may be killed: never the servers other
// people use on the default ports.
package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Enabled reports whether this process may kill the servers of ARIADNE_HOME (ARIADNE_FAULTS=1).
func Enabled() bool { return os.Getenv("ARIADNE_FAULTS") == "1" }

// Need skips t unless ARIADNE_FAULTS=1, ARIADNE_HOME is set and each of services has a pid file
// there (deploy/local.sh started it from this home).
func Need(t testing.TB, services ...string) *Servers {
	t.Helper()
	if !Enabled() {
		t.Skip("SKIP: kills servers; runs only under deploy/faults.sh (make reliability, make test), which starts servers of its own (ARIADNE_FAULTS=1)")
	}
	home := os.Getenv("ARIADNE_HOME")
	if home == "" {
		t.Fatal("ARIADNE_FAULTS=1 needs ARIADNE_HOME: the home whose servers may be killed")
	}
	s := &Servers{Home: home}
	for _, svc := range services {
		if _, err := s.pid(svc); err != nil {
			t.Fatalf("ARIADNE_FAULTS=1 but %v (start it with deploy/local.sh up %s from this ARIADNE_HOME)", err, svc)
		}
	}
	return s
}

// Servers are the servers deploy/local.sh runs from Home.
type Servers struct{ Home string }

func (s *Servers) pid(svc string) (int, error) {
	raw, err := os.ReadFile(filepath.Join(s.Home, "run", svc+".pid"))
	if err != nil {
		return 0, fmt.Errorf("%s has no pid file under %s/run: %w", svc, s.Home, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 1 {
		return 0, fmt.Errorf("%s: bad pid file %q", svc, raw)
	}
	return pid, nil
}

// Kill sends SIGKILL to the server's process group (deploy/local.sh starts each with setsid, so
// the group is the server and any workers it forked) and waits until the process is gone.
func (s *Servers) Kill(svc string) error {
	pid, err := s.pid(svc)
	if err != nil {
		return err
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("kill -9 %s (pid %d): %w", svc, pid, err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s (pid %d) still alive 20s after SIGKILL", svc, pid)
}

// Start runs deploy/local.sh up svc for this home and waits until it is ready.
func (s *Servers) Start(ctx context.Context, svc string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(RepoRoot(), "deploy", "local.sh"), "up", svc)
	cmd.Env = append(os.Environ(), "ARIADNE_HOME="+s.Home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("deploy/local.sh up %s: %w\n%s", svc, err, out)
	}
	return nil
}

// RepoRoot is the repository's root directory.
func RepoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("faults: no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Long reports whether the full suite runs (ARIADNE_FAULTS_LONG=1, make reliability) rather than
// the short one of make test.
func Long() bool { return os.Getenv("ARIADNE_FAULTS_LONG") == "1" }

// Pause stops the server's process group with SIGSTOP (a stall: the port stays open, nothing
// answers) and Resume continues it with SIGCONT.
func (s *Servers) Pause(svc string) error { return s.signal(svc, syscall.SIGSTOP) }

// Resume continues a paused server.
func (s *Servers) Resume(svc string) error { return s.signal(svc, syscall.SIGCONT) }

func (s *Servers) signal(svc string, sig syscall.Signal) error {
	pid, err := s.pid(svc)
	if err != nil {
		return err
	}
	if err := syscall.Kill(-pid, sig); err != nil {
		return fmt.Errorf("signal %s to %s (pid %d): %w", sig, svc, pid, err)
	}
	return nil
}
