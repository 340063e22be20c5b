package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne/internal/loopback"
)

// localSh runs deploy/local.sh with only PATH, HOME, ARIADNE_HOME and the extra variables.
func localSh(t *testing.T, home string, extra []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"local.sh"}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "ARIADNE_HOME=" + home}, extra...)
	out, err := cmd.Output()
	return string(out), err
}

// envKey is the ARIADNE_WEAVIATE_API_KEY that `local.sh env` exports.
func envKey(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^export ARIADNE_WEAVIATE_API_KEY=(\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("local.sh env exports no ARIADNE_WEAVIATE_API_KEY:\n%s", out)
	}
	return m[1]
}

// TestLocalShWeaviateKey: deploy/local.sh generates the Weaviate API key once per ARIADNE_HOME —
// 32 random bytes as hex in <home>/weaviate/api-key, mode 600 — exports it with `env`, prints it
// with `api-key`, and the Go programs read the same key from that file (loopback.WeaviateAPIKey)
// when ARIADNE_WEAVIATE_API_KEY is unset. A key set in ARIADNE_WEAVIATE_API_KEY is used instead
// and leaves the file alone; one with a comma (Weaviate splits its allowed keys at commas) is
// refused.
func TestLocalShWeaviateKey(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("SKIP: no bash")
	}
	home := t.TempDir()
	out, err := localSh(t, home, nil, "env")
	if err != nil {
		t.Fatalf("local.sh env: %v", err)
	}
	key := envKey(t, out)
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(key) {
		t.Errorf("generated key %q, want 64 hex digits", key)
	}
	file := filepath.Join(home, "weaviate", "api-key")
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", file, st.Mode().Perm())
	}
	if b, _ := os.ReadFile(file); strings.TrimSpace(string(b)) != key {
		t.Errorf("the file holds %q, env exports %q", b, key)
	}
	if again, err := localSh(t, home, nil, "env"); err != nil || envKey(t, again) != key {
		t.Errorf("a second env gave another key (or failed: %v)", err)
	}
	if printed, err := localSh(t, home, nil, "api-key"); err != nil || strings.TrimSpace(printed) != key {
		t.Errorf("local.sh api-key = %q, %v; want the key", printed, err)
	}
	if other, _ := localSh(t, t.TempDir(), nil, "env"); envKey(t, other) == key {
		t.Error("two homes got the same key")
	}

	t.Setenv("ARIADNE_HOME", home)
	t.Setenv("ARIADNE_WEAVIATE_API_KEY", "")
	os.Unsetenv("ARIADNE_WEAVIATE_API_KEY")
	if got := loopback.WeaviateAPIKey(); got != key {
		t.Errorf("loopback.WeaviateAPIKey() = %q, want the key local.sh wrote", got)
	}

	given := []string{"ARIADNE_WEAVIATE_API_KEY=operator-chosen-key"}
	if out, err := localSh(t, home, given, "env"); err != nil || envKey(t, out) != "operator-chosen-key" {
		t.Errorf("with ARIADNE_WEAVIATE_API_KEY set, env exported %q (err %v)", out, err)
	}
	if b, _ := os.ReadFile(file); strings.TrimSpace(string(b)) != key {
		t.Errorf("ARIADNE_WEAVIATE_API_KEY changed the key file: %q", b)
	}
	if out, err := localSh(t, home, []string{"ARIADNE_WEAVIATE_API_KEY=a,b"}, "env"); err == nil {
		t.Errorf("a key with a comma was accepted:\n%s", out)
	}
}

// TestLocalShHelp: help prints the whole header comment — the commands and every service, up to
// where ARIADNE_HOME's contents are listed — and nothing of the script after it.
func TestLocalShHelp(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	out, err := localSh(t, t.TempDir(), nil, "help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"deploy/local.sh up", "weaviate (", "embedder (", "ner (", "llm (", "api (", "lexicon (", "ARIADNE_WEAVIATE_API_KEY, when set, is used\ninstead)."} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "set -euo pipefail") || strings.HasPrefix(out, "!/usr/bin") {
		t.Errorf("help prints code:\n%s", out)
	}
}
