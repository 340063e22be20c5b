package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/vector"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if err != nil {
		return 1
	}
	return 0
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"--help"}, 0, "Index a corpus"},
		{[]string{"--no-such-flag"}, 2, "unknown flag"},
		{[]string{}, 2, ""},
		{[]string{"--corpus", "/does/not/exist"}, 2, "exist"},
		{[]string{"--corpus", ".", "--embedder", "word2vec"}, 2, "embedder"},
	}
	for _, tc := range tests {
		t.Setenv("ARIADNE_CORPUS", "")
		var out, errOut bytes.Buffer
		err := run(context.Background(), tc.args, &out, &errOut)
		if got := exitCode(err); got != tc.code {
			t.Errorf("%v: exit %d, want %d (err %v)", tc.args, got, tc.code, err)
		}
		if all := out.String() + errOut.String() + fmt.Sprint(err); !strings.Contains(all, tc.out) {
			t.Errorf("%v: output %q does not mention %q", tc.args, all, tc.out)
		}
	}
}

// TestIntegrationStrictAndDryRun runs the job on a small folder with one malformed document:
// the good ones are indexed, the bad one is reported with its path, and --strict exits 3.
func TestIntegrationStrictAndDryRun(t *testing.T) {
	testenv.Need(t, "Weaviate", testenv.HTTPGet(testenv.WeaviateURL()+"/v1/.well-known/ready"))
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	dir := t.TempDir()
	files := map[string]string{
		"good/a.md": "---\nid: notes/a\ntitle: Note A\ntype: note\n---\n# Note A\n\nAlpha text about Kafka.\n",
		"good/b.md": "---\nid: notes/b\ntitle: Note B\n---\nBeta text.\n",
		"bad/c.md":  "---\nid: notes/c\ntitle: [unclosed\n---\nbody\n",
		"bad/d.txt": "no front matter here\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	class, ns := scratchStores(t, "ExtractCmdTest")
	base := []string{"--corpus", dir, "--embedder", "lexical", "--weaviate-class", class, "--neo4j-namespace", ns,
		"--neo4j-uri", testenv.Neo4jURI(), "--neo4j-password", testenv.Neo4jPassword(), "--weaviate-url", testenv.WeaviateURL()}

	var out, errOut bytes.Buffer
	err := run(context.Background(), append(base, "--dry-run"), &out, &errOut)
	if exitCode(err) != 0 || !strings.Contains(out.String(), "dry run: nothing written") || !strings.Contains(out.String(), "written 2") {
		t.Fatalf("dry run: exit %d\n%s\n%s", exitCode(err), out.String(), errOut.String())
	}
	for _, bad := range []string{"bad/c.md", "bad/d.txt"} {
		if !strings.Contains(errOut.String(), bad) {
			t.Errorf("malformed %s not reported: %s", bad, errOut.String())
		}
	}
	out.Reset()
	errOut.Reset()
	err = run(context.Background(), append(base, "--strict"), &out, &errOut)
	if exitCode(err) != 3 || !strings.Contains(out.String(), "skipped 2 (malformed)") || !strings.Contains(out.String(), "vectors written 2") {
		t.Fatalf("strict: exit %d, want 3 after indexing the good documents\n%s\n%s", exitCode(err), out.String(), errOut.String())
	}
	if !regexp.MustCompile(`(?m)^  time       planning and resolution \S+, extraction \S+, embedding \S+, Weaviate writes \S+, Neo4j writes [1-9]\S*$`).MatchString(out.String()) {
		t.Errorf("the summary does not say where the time went:\n%s", out.String())
	}
	err = run(context.Background(), append(base[2:], "--delete", "notes/a", "--delete", "notes/b"), &out, &errOut)
	if exitCode(err) != 0 {
		t.Fatalf("delete: %v\n%s", err, errOut.String())
	}
}

// TestIntegrationSourceFlag: two folders synced as two sources of one graph; a document id the
// first source holds is skipped by the second with exit 4 and named in the summary, and an empty
// folder synced as the second source deletes only its own documents.
func TestIntegrationSourceFlag(t *testing.T) {
	testenv.Need(t, "Weaviate", testenv.HTTPGet(testenv.WeaviateURL()+"/v1/.well-known/ready"))
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	wiki, crm, empty := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(wiki, "a.md"), []byte("---\nid: notes/a\ntitle: Note A\n---\nAlpha text.\n"), 0o644)
	os.WriteFile(filepath.Join(crm, "b.md"), []byte("---\nid: deals/b\ntitle: Deal B\n---\nBeta text.\n"), 0o644)
	os.WriteFile(filepath.Join(crm, "a.md"), []byte("---\nid: notes/a\ntitle: Not note A\n---\nOther text.\n"), 0o644)
	class, ns := scratchStores(t, "ExtractCmdSources")
	base := []string{"--embedder", "lexical", "--weaviate-class", class, "--neo4j-namespace", ns,
		"--neo4j-uri", testenv.Neo4jURI(), "--neo4j-password", testenv.Neo4jPassword(), "--weaviate-url", testenv.WeaviateURL()}
	sync := func(dir, source string) (int, string) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append(base, "--corpus", dir, "--source", source), &out, &errOut)
		return exitCode(err), out.String() + errOut.String()
	}
	if code, out := sync(wiki, "wiki"); code != 0 || !strings.Contains(out, "written 1") {
		t.Fatalf("wiki: exit %d\n%s", code, out)
	}
	code, out := sync(crm, "crm")
	if code != 4 || !strings.Contains(out, "conflict   notes/a: held by source wiki; skipped") || !strings.Contains(out, "written 1") {
		t.Fatalf("crm: exit %d, want 4\n%s", code, out)
	}
	if code, out := sync(empty, "crm"); code != 0 || !strings.Contains(out, "deleted 1") {
		t.Fatalf("empty crm: exit %d\n%s", code, out)
	}
	if code, out := sync(wiki, "wiki"); code != 0 || !strings.Contains(out, "unchanged 1, written 0") {
		t.Fatalf("wiki again: exit %d\n%s", code, out)
	}
	var out2, errOut bytes.Buffer
	if err := run(context.Background(), append(base, "--corpus", wiki, "--source", "no spaces"), &out2, &errOut); exitCode(err) != 2 {
		t.Errorf("a bad --source: exit %d", exitCode(err))
	}
}

// TestIntegrationUnitVectorsFlag: --unit-vectors stores the e5 vector of every evidence unit of
// the corpus in the unit class, embeds only what changed on the next sync and deletes the units no
// chunk has any more.
func TestIntegrationUnitVectorsFlag(t *testing.T) {
	testenv.Need(t, "Weaviate", testenv.HTTPGet(testenv.WeaviateURL()+"/v1/.well-known/ready"))
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	testenv.Need(t, "the e5 embedder", testenv.HTTPGet(strings.TrimSuffix(testenv.EmbedderURL(), "/v1")+"/health"))
	dir := t.TempDir()
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "pier.md"), []byte("---\nid: notes/pier\ntitle: Pier\nlang: en\n---\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("The pier opens at six in the morning. Boats pay a fee at the gate.\n\n| Berth | Length |\n|---|---|\n| North | 120 m |\n")
	class, ns := scratchStores(t, "ExtractCmdUnits")
	args := []string{"--corpus", dir, "--unit-vectors", "--embedder", "e5", "--e5-url", testenv.EmbedderURL(), "--ner", "off",
		"--weaviate-class", class, "--neo4j-namespace", ns, "--neo4j-uri", testenv.Neo4jURI(), "--neo4j-password", testenv.Neo4jPassword(),
		"--weaviate-url", testenv.WeaviateURL()}
	sync := func() string {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(context.Background(), args, &out, &errOut); err != nil {
			t.Fatalf("extract: %v\n%s%s", err, out.String(), errOut.String())
		}
		return out.String()
	}
	if out := sync(); !strings.Contains(out, "4 units of 1 chunks, 4 embedded, 0 deleted") {
		t.Fatalf("first sync:\n%s", out)
	}
	write("The pier opens at seven in the morning. Boats pay a fee at the gate.\n\n| Berth | Length |\n|---|---|\n| North | 120 m |\n")
	if out := sync(); !strings.Contains(out, "4 units of 1 chunks, 1 embedded, 1 deleted") {
		t.Fatalf("second sync:\n%s", out)
	}
	vs, err := vector.Open(context.Background(), vector.Config{URL: testenv.WeaviateURL(), APIKey: testenv.WeaviateAPIKey(), Class: class})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := vs.UnitVectorKeys(context.Background())
	if err != nil || len(keys) != 4 {
		t.Fatalf("stored unit keys %d, %v; want 4", len(keys), err)
	}
}

// scratchStores names a Weaviate class (prefix and a timestamp) and a Neo4j namespace of the
// test's own, both dropped when the test ends.
func scratchStores(t *testing.T, prefix string) (class, ns string) {
	t.Helper()
	class = fmt.Sprintf("%s%d", prefix, time.Now().UnixNano())
	t.Cleanup(func() {
		if vs, err := vector.Open(context.Background(), vector.Config{URL: testenv.WeaviateURL(), APIKey: testenv.WeaviateAPIKey(), Class: class}); err == nil {
			vs.DropClass(context.Background())
		}
	})
	ns = testrig.Namespace()
	t.Cleanup(func() {
		if gs, err := graph.Open(context.Background(), graph.Config{URI: testenv.Neo4jURI(), User: testenv.Neo4jUser(),
			Password: testenv.Neo4jPassword(), Namespace: ns}); err == nil {
			gs.DropNamespace(context.Background())
			gs.Close(context.Background())
		}
	})
	return class, ns
}

// TestIntegrationRefreshStale: entities of a graph written by an earlier version (no first-mention
// lists; simulated by removing them) get their lists at the next sync, which says so once; the
// sync after it finds none.
func TestIntegrationRefreshStale(t *testing.T) {
	testenv.Need(t, "Weaviate", testenv.HTTPGet(testenv.WeaviateURL()+"/v1/.well-known/ready"))
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	ctx := context.Background()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "acme.md"), []byte("---\nid: clients/acme\ntitle: Acme Freight\ntype: client\n---\n# Acme Freight\n\nAcme Freight ships parts.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "kite.md"), []byte("---\nid: projects/kite\ntitle: Kite\ntype: project\n---\n# Kite\n\nKite is built for Acme Freight.\n"), 0o644)
	class, ns := scratchStores(t, "ExtractCmdStale")
	args := []string{"--corpus", dir, "--embedder", "lexical", "--weaviate-class", class, "--neo4j-namespace", ns,
		"--neo4j-uri", testenv.Neo4jURI(), "--neo4j-password", testenv.Neo4jPassword(), "--weaviate-url", testenv.WeaviateURL()}
	sync := func() string {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(ctx, args, &out, &errOut); err != nil {
			t.Fatalf("sync: %v\n%s\n%s", err, out.String(), errOut.String())
		}
		return out.String()
	}
	if out := sync(); strings.Contains(out, "refreshed") {
		t.Errorf("a first sync refreshed entities:\n%s", out)
	}
	gs, err := graph.Open(ctx, graph.Config{URI: testenv.Neo4jURI(), User: testenv.Neo4jUser(), Password: testenv.Neo4jPassword(), Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	defer gs.Close(ctx)
	before, err := gs.Digest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	driver, err := neo4j.NewDriverWithContext(testenv.Neo4jURI(), neo4j.BasicAuth(testenv.Neo4jUser(), testenv.Neo4jPassword(), ""))
	if err != nil {
		t.Fatal(err)
	}
	defer driver.Close(ctx)
	res, err := neo4j.ExecuteQuery(ctx, driver, "MATCH (e:"+gs.Label("Entity")+") REMOVE e.first_acls, e.first_chunks, e.alias_acls, e.alias_surfaces RETURN count(e) AS n",
		nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := res.Records[0].Get("n")
	if n.(int64) != 2 {
		t.Fatalf("the corpus made %d entities, want 2 (Acme Freight, Kite)", n)
	}
	if out := sync(); !strings.Contains(out, "refreshed  2 entities written by an earlier version (once)") {
		t.Errorf("the sync after did not refresh the 2 stale entities:\n%s", out)
	}
	after, err := gs.Digest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Entities != before.Entities {
		t.Errorf("entities after the refresh differ from those the sync wrote:\n%s\nwant\n%s", after.Entities, before.Entities)
	}
	if out := sync(); strings.Contains(out, "refreshed") {
		t.Errorf("a third sync refreshed again:\n%s", out)
	}
}
