package loopback

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// unsetenv unsets a variable for one test and restores it afterwards.
func unsetenv(t *testing.T, key string) {
	t.Setenv(key, "")
	os.Unsetenv(key)
}

func TestVarsAndDefault(t *testing.T) {
	for _, a := range Addresses {
		unsetenv(t, a.Env)
	}
	t.Setenv("ARIADNE_PORT_OFFSET", "10000")
	t.Setenv("ARIADNE_WEAVIATE_URL", "http://weaviate.internal:8080") // set by the user: kept by Default
	vars, err := Vars()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ARIADNE_NEO4J_URI":     "bolt://127.0.0.1:17687",
		"ARIADNE_NEO4J_HTTP":    "http://127.0.0.1:17474",
		"ARIADNE_WEAVIATE_URL":  "http://127.0.0.1:18080",
		"ARIADNE_WEAVIATE_GRPC": "127.0.0.1:60051",
		"ARIADNE_E5_URL":        "http://127.0.0.1:18091/v1",
		"ARIADNE_LOCAL_LLM_URL": "http://127.0.0.1:18092/v1",
		"ARIADNE_NER_URL":       "http://127.0.0.1:18093",
		"ARIADNE_API_ADDR":      "127.0.0.1:18088",
		"ARIADNE_API_URL":       "http://127.0.0.1:18088",
	}
	for k, v := range want {
		if got := vars[VarName(k)]; got != v {
			t.Errorf("Vars()[%s] = %q, want %q", VarName(k), got, v)
		}
	}
	if got := Default("ARIADNE_WEAVIATE_URL"); got != "http://weaviate.internal:8080" {
		t.Errorf("Default keeps the user's value: got %q", got)
	}
	if got := Default("ARIADNE_NEO4J_URI"); got != "bolt://127.0.0.1:17687" {
		t.Errorf("Default(ARIADNE_NEO4J_URI) = %q", got)
	}
	if os.Getenv("ARIADNE_NEO4J_URI") != "" {
		t.Error("the environment was written")
	}
	for _, bad := range []string{"ten", "60000", "-8000"} {
		t.Setenv("ARIADNE_PORT_OFFSET", bad)
		if _, err := Vars(); err == nil {
			t.Errorf("offset %q accepted", bad)
		}
	}
}

// TestPortOffsetMatchesLocalSh: the programs and deploy/local.sh agree on every shifted address.
func TestPortOffsetMatchesLocalSh(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("SKIP: no bash")
	}
	for _, a := range Addresses {
		unsetenv(t, a.Env)
	}
	t.Setenv("ARIADNE_PORT_OFFSET", "2345")
	// local.sh sees only the offset: no ARIADNE_* variable of the caller (deploy/test.sh exports them),
	// and a home of its own, where env generates the Weaviate API key.
	cmd := exec.Command("bash", "../../deploy/local.sh", "env")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "ARIADNE_PORT_OFFSET=2345",
		"ARIADNE_HOME=" + t.TempDir()}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("local.sh env: %v", err)
	}
	sh := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		if ok {
			sh[k] = v
		}
	}
	vars, err := Vars()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range Addresses {
		if sh[a.Env] != vars[VarName(a.Env)] {
			t.Errorf("%s: local.sh env says %q, Vars %q", a.Env, sh[a.Env], vars[VarName(a.Env)])
		}
	}
}
