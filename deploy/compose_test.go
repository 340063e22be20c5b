package deploy

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// composeEnv returns the environment under which `docker compose` works: the process's own when
// the Docker client has the Compose plugin, or one whose DOCKER_CONFIG points at the plugin that
// deploy/local.sh installs under $ARIADNE_HOME (default .ariadne; the Docker client on our machines has none). It skips
// the test when there is no Docker client.
func composeEnv(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no Docker client on PATH")
	}
	if exec.Command("docker", "compose", "version").Run() == nil {
		return os.Environ()
	}
	home := os.Getenv("ARIADNE_HOME") // where deploy/local.sh installs, as in the scripts
	if home == "" {
		home = "../.ariadne"
	}
	dir, _ := filepath.Abs(filepath.Join(home, "docker"))
	if _, err := os.Stat(filepath.Join(dir, "cli-plugins", "docker-compose")); err != nil {
		t.Fatalf("the Docker client has no Compose plugin and %s/cli-plugins/docker-compose is missing; run deploy/local.sh install compose", dir)
	}
	return append(os.Environ(), "DOCKER_CONFIG="+dir)
}

// TestComposeConfigValid runs `docker compose config` on docker-compose.yml and checks the parts
// users rely on: the services, the pinned Weaviate version (the same as deploy/local.sh), the
// published Neo4j Browser port, health checks and named volumes — and that Weaviate is closed:
// it requires ARIADNE_WEAVIATE_API_KEY (compose refuses to run without it), anonymous access off,
// the same key for the API and the extraction job and as its cluster data port's password, and
// only its REST and gRPC ports published, on 127.0.0.1.
func TestComposeConfigValid(t *testing.T) {
	const key = "compose-test-key"
	env := composeEnv(t)
	args := []string{"compose", "-f", "../docker-compose.yml", "--profile", "ollama", "--profile", "job", "config", "--format", "json"}
	without := exec.Command("docker", args...)
	without.Env = append(env, "ARIADNE_WEAVIATE_API_KEY=")
	if out, err := without.CombinedOutput(); err == nil || !strings.Contains(string(out), "ARIADNE_WEAVIATE_API_KEY") {
		t.Errorf("docker compose config without ARIADNE_WEAVIATE_API_KEY: %v\n%s; want a refusal naming it", err, out)
	}
	cmd := exec.Command("docker", args...)
	cmd.Env = append(env, "ARIADNE_WEAVIATE_API_KEY="+key)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("docker compose config: %v\n%s", err, stderr.String())
	}
	var cfg struct {
		Services map[string]struct {
			Image       string            `json:"image"`
			Environment map[string]string `json:"environment"`
			Build       any               `json:"build"`
			Profiles    []string
			Healthcheck *struct {
				Test []string `json:"test"`
			} `json:"healthcheck"`
			Ports []struct {
				Target    int    `json:"target"`
				Published string `json:"published"`
				HostIP    string `json:"host_ip"`
			} `json:"ports"`
		} `json:"services"`
		Volumes map[string]any `json:"volumes"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("parse config JSON: %v", err)
	}
	for _, name := range []string{"neo4j", "weaviate", "embedder", "api", "extract", "ollama"} {
		if _, ok := cfg.Services[name]; !ok {
			t.Errorf("service %q missing", name)
		}
	}
	for _, name := range []string{"neo4j", "weaviate", "embedder", "api", "ollama"} {
		if s := cfg.Services[name]; s.Healthcheck == nil || len(s.Healthcheck.Test) == 0 {
			t.Errorf("service %q has no health check", name)
		}
	}
	if got := cfg.Services["neo4j"].Image; !strings.HasPrefix(got, "neo4j:5.26") || !strings.Contains(got, "community") {
		t.Errorf("neo4j image = %q, want neo4j:5.26…community", got)
	}
	browser := false
	for _, p := range cfg.Services["neo4j"].Ports {
		browser = browser || (p.Target == 7474 && p.Published == "7474")
	}
	if !browser {
		t.Errorf("neo4j does not publish the Browser port 7474")
	}
	script, err := os.ReadFile("local.sh")
	if err != nil {
		t.Fatal(err)
	}
	pinned := regexp.MustCompile(`(?m)^WEAVIATE_VERSION=v(\S+)$`).FindSubmatch(script)
	if pinned == nil {
		t.Fatal("WEAVIATE_VERSION not found in deploy/local.sh")
	}
	if got, want := cfg.Services["weaviate"].Image, "semitechnologies/weaviate:"+string(pinned[1]); !strings.HasSuffix(got, want) {
		t.Errorf("weaviate image = %q, want …%s (the version deploy/local.sh builds)", got, want)
	}
	for _, name := range []string{"api", "extract"} {
		if cfg.Services[name].Build == nil {
			t.Errorf("service %q is not built from the repository", name)
		}
	}
	w := cfg.Services["weaviate"]
	for k, want := range map[string]string{
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED": "false",
		"AUTHENTICATION_APIKEY_ENABLED":           "true",
		"AUTHENTICATION_APIKEY_ALLOWED_KEYS":      key,
		"CLUSTER_BASIC_AUTH_PASSWORD":             key,
	} {
		if got := w.Environment[k]; got != want {
			t.Errorf("weaviate %s = %q, want %q", k, got, want)
		}
	}
	for _, name := range []string{"api", "extract"} {
		if got := cfg.Services[name].Environment["ARIADNE_WEAVIATE_API_KEY"]; got != key {
			t.Errorf("service %q gets ARIADNE_WEAVIATE_API_KEY %q, want the key Weaviate requires", name, got)
		}
	}
	for _, p := range w.Ports {
		if p.HostIP != "127.0.0.1" || (p.Target != 8080 && p.Target != 50051) {
			t.Errorf("weaviate publishes %d on %q:%s; want only REST 8080 and gRPC 50051, on 127.0.0.1", p.Target, p.HostIP, p.Published)
		}
	}
	if p := cfg.Services["ollama"].Profiles; len(p) != 1 || p[0] != "ollama" {
		t.Errorf("ollama profiles = %v, want [ollama]", p)
	}
	for _, v := range []string{"neo4j-data", "weaviate-data", "ollama-models"} {
		if _, ok := cfg.Volumes[v]; !ok {
			t.Errorf("named volume %q missing", v)
		}
	}
}
