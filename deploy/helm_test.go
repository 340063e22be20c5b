package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
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
