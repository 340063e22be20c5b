package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// helmBinary returns the helm deploy/test.sh pins (HELM_VERSION) and builds from its Go module
// into $ARIADNE_HOME/bin/helm-<version> (no Debian package exists), or skips the test when it is
// not built (it fails instead under ARIADNE_REQUIRE_HELM=1, as `make helm-test` sets).
func helmBinary(t *testing.T) string {
	t.Helper()
	home := os.Getenv("ARIADNE_HOME")
	if home == "" {
		home = filepath.Join("..", ".ariadne")
	}
	script, err := os.ReadFile("test.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^HELM_VERSION=(\S+)`).FindSubmatch(script)
	if m == nil {
		t.Fatal("HELM_VERSION not found in deploy/test.sh")
	}
	version := string(m[1])
	bin := filepath.Join(home, "bin", "helm-"+version)
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("ARIADNE_REQUIRE_HELM") == "1" {
			t.Fatalf("helm %s is required (ARIADNE_REQUIRE_HELM=1) but %s is missing: run deploy/test.sh helm", version, bin)
		}
		t.Skipf("helm %s not built (%s); `make helm-test` builds it and runs this test", version, bin)
	}
	return bin
}

// manifest is one rendered Kubernetes object, as far as the test reads it.
type manifest struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		Replicas    *int `yaml:"replicas"`
		MinReplicas int  `yaml:"minReplicas"`
	} `yaml:"spec"`
}

// render runs helm template on the ariadne chart with the values files and returns the objects by
// kind and name.
func render(t *testing.T, helm string, values ...string) map[string]manifest {
	t.Helper()
	args := []string{"template", "rel", "helm/ariadne"}
	for _, v := range values {
		args = append(args, "-f", v)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(helm, args...)
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm %v: %v\n%s", args, err, stderr.String())
	}
	objs := map[string]manifest{}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	for {
		var m manifest
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("rendered YAML: %v\n%s", err, out)
		}
		if m.Kind != "" {
			objs[m.Kind+"/"+m.Metadata.Name] = m
		}
	}
	return objs
}

// TestHelmTemplate renders deploy/helm/ariadne with its default values and with
// ariadne-cluster-values.yaml and checks what each gives the programs: defaults keep a single
// machine's behaviour (bolt://, no replication settings), the cluster values set neo4j://,
// replication factor 3 and QUORUM — and the factor fits the Weaviate replicas of
// weaviate-values.yaml.
func TestHelmTemplate(t *testing.T) {
	helm := helmBinary(t)
	for _, tc := range []struct {
		name         string
		values       []string
		apiReplicas  int
		neo4jURI     string
		factor       string
		consistency  string
		hpaMin       int
		objectsCount int
	}{
		{"defaults", nil, 2, "bolt://ariadne-neo4j:7687", "0", "", 2, 5},
		{"cluster", []string{"helm/ariadne-cluster-values.yaml"}, 3, "neo4j://ariadne-neo4j:7687", "3", "QUORUM", 3, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, helm, tc.values...)
			if len(objs) != tc.objectsCount {
				t.Errorf("%d objects rendered, want %d (ConfigMap, Deployment, Service, HPA, CronJob): %v", len(objs), tc.objectsCount, keys(objs))
			}
			cm, ok := objs["ConfigMap/rel-config"]
			if !ok {
				t.Fatalf("no ConfigMap rel-config in %v", keys(objs))
			}
			for k, want := range map[string]string{
				"ARIADNE_NEO4J_URI":                   tc.neo4jURI,
				"ARIADNE_WEAVIATE_REPLICATION_FACTOR": tc.factor,
				"ARIADNE_WEAVIATE_SHARDS":             "0",
				"ARIADNE_WEAVIATE_CONSISTENCY":        tc.consistency,
			} {
				if got, ok := cm.Data[k]; !ok || got != want {
					t.Errorf("ConfigMap %s = %q (set: %v), want %q", k, got, ok, want)
				}
			}
			dep := objs["Deployment/rel-api"]
			if dep.Spec.Replicas == nil || *dep.Spec.Replicas != tc.apiReplicas {
				t.Errorf("Deployment rel-api replicas = %v, want %d", dep.Spec.Replicas, tc.apiReplicas)
			}
			if hpa := objs["HorizontalPodAutoscaler/rel-api"]; hpa.Spec.MinReplicas != tc.hpaMin {
				t.Errorf("HPA minReplicas = %d, want %d", hpa.Spec.MinReplicas, tc.hpaMin)
			}
			if tc.factor != "0" {
				// The class's factor needs as many Weaviate nodes (weaviate-values.yaml replicas).
				var wv struct {
					Replicas int `yaml:"replicas"`
					Env      struct {
						RaftBootstrapExpect int `yaml:"RAFT_BOOTSTRAP_EXPECT"`
					} `yaml:"env"`
				}
				b, err := os.ReadFile("helm/weaviate-values.yaml")
				if err != nil {
					t.Fatal(err)
				}
				if err := yaml.Unmarshal(b, &wv); err != nil {
					t.Fatal(err)
				}
				f, _ := strconv.Atoi(tc.factor)
				if wv.Replicas < f || wv.Env.RaftBootstrapExpect != wv.Replicas {
					t.Errorf("weaviate-values.yaml: replicas %d, RAFT_BOOTSTRAP_EXPECT %d; want replicas ≥ factor %d and equal to RAFT_BOOTSTRAP_EXPECT",
						wv.Replicas, wv.Env.RaftBootstrapExpect, f)
				}
			}
		})
	}
}

func keys(m map[string]manifest) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestHelmTemplateSources: the chart renders one extraction CronJob per source, each syncing only
// its own source (--source NAME) from its own volume, on its own or the default schedule.
func TestHelmTemplateSources(t *testing.T) {
	helm := helmBinary(t)
	values := filepath.Join(t.TempDir(), "sources.yaml")
	if err := os.WriteFile(values, []byte(`extract:
  sources:
    - {name: default, corpusClaim: wiki-pages}
    - {name: contracts, corpusClaim: contracts-share, schedule: "0 * * * *"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"template", "rel", "helm/ariadne", "-f", values, "--show-only", "templates/extract.yaml"}
	cmd := exec.Command(helm, args...)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helm %v: %v\n%s", args, err, out)
	}
	type cron struct {
		Metadata struct{ Name string } `yaml:"metadata"`
		Spec     struct {
			Schedule    string `yaml:"schedule"`
			JobTemplate struct {
				Spec struct {
					Template struct {
						Spec struct {
							Containers []struct{ Command []string } `yaml:"containers"`
							Volumes    []struct {
								PVC struct {
									ClaimName string `yaml:"claimName"`
								} `yaml:"persistentVolumeClaim"`
							} `yaml:"volumes"`
						} `yaml:"spec"`
					} `yaml:"template"`
				} `yaml:"spec"`
			} `yaml:"jobTemplate"`
		} `yaml:"spec"`
	}
	var got []string
	dec := yaml.NewDecoder(bytes.NewReader(out))
	for {
		var c cron
		if err := dec.Decode(&c); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("rendered YAML: %v\n%s", err, out)
		}
		if c.Metadata.Name == "" {
			continue
		}
		pod := c.Spec.JobTemplate.Spec.Template.Spec
		got = append(got, fmt.Sprintf("%s %s %s %s", c.Metadata.Name, c.Spec.Schedule, strings.Join(pod.Containers[0].Command, " "), pod.Volumes[0].PVC.ClaimName))
	}
	want := []string{
		"rel-extract */30 * * * * /usr/local/bin/extract --source default --corpus /corpus wiki-pages",
		"rel-extract-contracts 0 * * * * /usr/local/bin/extract --source contracts --corpus /corpus contracts-share",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("CronJobs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWeaviateValuesClosed: helm/weaviate-values.yaml (for the official weaviate/weaviate chart)
// keeps Weaviate closed like deploy/local.sh does: anonymous access off, API keys on with the key
// from a Secret (the chart's envSecrets; no key in the file), and REST and gRPC as ClusterIP
// services — the chart's default for both is a public LoadBalancer. It reads the file only, so
// it runs without helm.
func TestWeaviateValuesClosed(t *testing.T) {
	b, err := os.ReadFile("helm/weaviate-values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Env            map[string]any    `yaml:"env"`
		EnvSecrets     map[string]string `yaml:"envSecrets"`
		Authentication struct {
			AnonymousAccess struct {
				Enabled *bool `yaml:"enabled"`
			} `yaml:"anonymous_access"`
			APIKey map[string]any `yaml:"apikey"`
		} `yaml:"authentication"`
		Service     struct{ Type string } `yaml:"service"`
		GRPCService struct{ Type string } `yaml:"grpcService"`
	}
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if a := v.Authentication.AnonymousAccess.Enabled; a == nil || *a {
		t.Errorf("authentication.anonymous_access.enabled = %v, want false", a)
	}
	if got := fmt.Sprint(v.Env["AUTHENTICATION_APIKEY_ENABLED"]); got != "true" {
		t.Errorf("env AUTHENTICATION_APIKEY_ENABLED = %q, want true", got)
	}
	if v.EnvSecrets["AUTHENTICATION_APIKEY_ALLOWED_KEYS"] == "" {
		t.Error("envSecrets has no AUTHENTICATION_APIKEY_ALLOWED_KEYS: the key must come from a Secret")
	}
	if _, ok := v.Env["AUTHENTICATION_APIKEY_ALLOWED_KEYS"]; ok || v.Authentication.APIKey != nil {
		t.Error("a key (or an apikey block) in the values file; keys come from the Secret only")
	}
	if v.Service.Type != "ClusterIP" || v.GRPCService.Type != "ClusterIP" {
		t.Errorf("service types %q (REST) and %q (gRPC), want ClusterIP for both", v.Service.Type, v.GRPCService.Type)
	}
}
