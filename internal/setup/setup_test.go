package setup

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/ariadne-graphrag/ariadne/internal/loopback"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/llm"
)

func TestChatLocalLLM(t *testing.T) {
	local := "http://127.0.0.1:18092/v1"
	for _, tc := range []struct {
		name                 string
		in                   Chat
		provider, url, model string
		built                bool
	}{
		{"offline by default", Chat{Provider: "none", LocalLLM: "none", LocalURL: local}, "none", "", "", false},
		{"local model", Chat{Provider: "none", LocalLLM: "qwen2.5-0.5b", LocalURL: local}, "openai", local, "qwen2.5-0.5b", true},
		{"local model, explicit model name", Chat{LocalLLM: "qwen2.5-1.5b", LocalURL: local, Model: "alias"}, "openai", local, "alias", true},
		{"explicit provider wins", Chat{Provider: "ollama", URL: "http://o:11434", Model: "llama3.1:8b", LocalLLM: "gemma3-270m", LocalURL: local}, "ollama", "http://o:11434", "llama3.1:8b", true},
		{"explicit URL wins", Chat{Provider: "none", URL: "http://x/v1", LocalLLM: "gemma3-270m", LocalURL: local}, "none", "http://x/v1", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.JSONMode = "auto"
			e := tc.in.Effective()
			if e.Provider != tc.provider || e.URL != tc.url || e.Model != tc.model {
				t.Fatalf("Effective = %s %s %s, want %s %s %s", e.Provider, e.URL, e.Model, tc.provider, tc.url, tc.model)
			}
			m, err := tc.in.BuildChat(NewLogger(io.Discard, "error", false))
			if err != nil || (m != nil) != tc.built {
				t.Fatalf("BuildChat = %v, %v; want a model: %v", m, err, tc.built)
			}
		})
	}
}

func TestChatJSONMode(t *testing.T) {
	c := Chat{Provider: "openai", URL: "http://x/v1", Model: "m", JSONMode: "json_object"}
	m, err := c.BuildChat(NewLogger(io.Discard, "error", false))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.(*llm.OpenAI).JSONMode(); got != llm.JSONModeObject {
		t.Errorf("JSONMode = %s", got)
	}
	c.JSONMode = "yaml"
	if _, err := c.BuildChat(NewLogger(io.Discard, "error", false)); err == nil {
		t.Error("unknown JSON mode accepted")
	}
}

// TestStoresPlacementFlags parses the Weaviate placement settings the way cmd/* do (kong, flags
// and ARIADNE_* variables): the defaults keep a single node's behaviour, the variables set a
// replicated class, and an unknown consistency level is refused.
func TestStoresPlacementFlags(t *testing.T) {
	parse := func(t *testing.T, env map[string]string, args ...string) (Stores, error) {
		t.Helper()
		for k, v := range env {
			t.Setenv(k, v)
		}
		var c struct{ Stores }
		p, err := kong.New(&c, kong.Vars{"neo4j_uri": "bolt://x:1", "weaviate_url": "http://x:2", "weaviate_grpc": "x:3",
			"weaviate_api_key_file": "/nonexistent/api-key"},
			kong.Exit(func(int) {}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Parse(args)
		return c.Stores, err
	}
	s, err := parse(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.WeaviateReplicationFactor != 0 || s.WeaviateShards != 0 || s.WeaviateConsistency != "" {
		t.Errorf("defaults = %d %d %q, want 0 0 \"\"", s.WeaviateReplicationFactor, s.WeaviateShards, s.WeaviateConsistency)
	}
	s, err = parse(t, map[string]string{"ARIADNE_WEAVIATE_REPLICATION_FACTOR": "3", "ARIADNE_WEAVIATE_SHARDS": "2",
		"ARIADNE_WEAVIATE_CONSISTENCY": "QUORUM"})
	if err != nil {
		t.Fatal(err)
	}
	if s.WeaviateReplicationFactor != 3 || s.WeaviateShards != 2 || s.WeaviateConsistency != "QUORUM" {
		t.Errorf("from env = %d %d %q, want 3 2 QUORUM", s.WeaviateReplicationFactor, s.WeaviateShards, s.WeaviateConsistency)
	}
	s, err = parse(t, nil, "--weaviate-consistency", "ALL", "--weaviate-replication-factor", "2")
	if err != nil || s.WeaviateConsistency != "ALL" || s.WeaviateReplicationFactor != 2 {
		t.Errorf("from flags = %+v, %v", s, err)
	}
	if _, err := parse(t, nil, "--weaviate-consistency", "MOST"); err == nil {
		t.Error("consistency level MOST accepted")
	}
}

// TestStoresWeaviateKey: the key given as a flag or variable wins; without one, the key file
// deploy/local.sh writes is read (surrounding white space dropped); a missing file means no key,
// and a file that cannot be read is an error rather than a silent request without a key.
func TestStoresWeaviateKey(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "api-key")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    Stores
		want string
	}{
		{Stores{WeaviateAPIKey: "given", WeaviateAPIKeyFile: file}, "given"},
		{Stores{WeaviateAPIKeyFile: file}, "from-file"},
		{Stores{WeaviateAPIKeyFile: filepath.Join(dir, "missing")}, ""},
		{Stores{}, ""},
	} {
		if got, err := tc.s.WeaviateKey(); err != nil || got != tc.want {
			t.Errorf("%+v: WeaviateKey() = %q, %v; want %q", tc.s, got, err, tc.want)
		}
	}
	if _, err := (Stores{WeaviateAPIKeyFile: dir}).WeaviateKey(); err == nil {
		t.Error("a key file that cannot be read (a folder) gave no error")
	}
}

func TestLexiconLoad(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, path := range []string{"none", "", t.TempDir() + "/missing"} {
		lex, err := Lexicon{Path: path}.Load(log)
		if lex != nil || err != nil {
			t.Errorf("Load(%q) = %v, %v; want nil, nil", path, lex, err)
		}
	}
	bad := t.TempDir() + "/bad"
	if err := os.WriteFile(bad+".index", []byte("harbour\tA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad+".dict", []byte("harbour\n гавань\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (Lexicon{Path: bad}).Load(log); err == nil {
		t.Error("a malformed dictionary loaded without an error")
	}
}

// The thesaurus goes with the lexicon: loaded when its file is there, left out with a warning
// when it is missing or set to none, an error when it is there and not a thesaurus.
func TestLexiconLoadThesaurus(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := t.TempDir()
	body := "harbour\n   _n. гавань"
	// dictd index: headword, offset and length in dictd's base64 digits (0 = "A", 27 = "b").
	if len(body) != 27 {
		t.Fatalf("body is %d bytes", len(body))
	}
	if err := os.WriteFile(dir+"/d.index", []byte("harbour\tA\tb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/d.dict", []byte(body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/syn.tsv", []byte("гавань\tпорт\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/bad.tsv", []byte("harbour\tport\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	key := func(w string) string { k, _ := lexicon.Key(w); return k }
	for _, tc := range []struct {
		thesaurus string
		want      []string // synonyms of «гавань»
	}{
		{dir + "/syn.tsv", []string{key("порт")}},
		{dir + "/missing.tsv", nil},
		{"none", nil},
	} {
		lex, err := Lexicon{Path: dir + "/d", Thesaurus: tc.thesaurus}.Load(log)
		if err != nil || lex == nil {
			t.Fatalf("Load(thesaurus %q) = %v, %v", tc.thesaurus, lex, err)
		}
		if got := lex.Synonyms(key("гавань")); !slices.Equal(got, tc.want) {
			t.Errorf("thesaurus %q: Synonyms(гавань) = %q, want %q", tc.thesaurus, got, tc.want)
		}
		if got := lex.Translate("harbour"); !slices.Equal(got, []string{key("гавань")}) {
			t.Errorf("thesaurus %q: Translate(harbour) = %q", tc.thesaurus, got)
		}
	}
	if _, err := (Lexicon{Path: dir + "/d", Thesaurus: dir + "/bad.tsv"}).Load(log); err == nil {
		t.Error("a file without Russian synonym sets loaded without an error")
	}
}

// TestChatLocalURLFollowsOffset: the local chat model's default address moves with
// ARIADNE_PORT_OFFSET like every other server's (it was fixed at 8092: outside tester).
func TestChatLocalURLFollowsOffset(t *testing.T) {
	t.Setenv("ARIADNE_PORT_OFFSET", "10000")
	t.Setenv("ARIADNE_LOCAL_LLM_URL", "") // restored after the test
	os.Unsetenv("ARIADNE_LOCAL_LLM_URL")
	vars, err := loopback.Vars()
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Chat }
	p, err := kong.New(&c, kong.Vars(vars), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if c.LocalURL != "http://127.0.0.1:18092/v1" {
		t.Errorf("LocalURL = %q, want the offset port 18092", c.LocalURL)
	}
}
