package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
	"github.com/ariadne-graphrag/ariadne/ontology"
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

// TestIntegrationStrictAndDryRun runs the job on a small folder with malformed files: the good
// ones are indexed, the bad ones are reported with their paths, and the run exits 3 (a dry run
// too).
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
	if exitCode(err) != 3 || !strings.Contains(out.String(), "dry run: nothing written") || !strings.Contains(out.String(), "would write 2") ||
		!strings.Contains(out.String(), "would delete 0") {
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

// syncArgs are the flags of a run against a test's own stores (scratchStores), lexical embedder.
func syncArgs(class, ns string, more ...string) []string {
	return append([]string{"--embedder", "lexical", "--weaviate-class", class, "--neo4j-namespace", ns,
		"--neo4j-uri", testenv.Neo4jURI(), "--neo4j-password", testenv.Neo4jPassword(), "--weaviate-url", testenv.WeaviateURL()}, more...)
}

// extractWithoutNER returns a runner of the command over class and namespace ns, recognition off:
// its exit code and everything it printed.
func extractWithoutNER(t *testing.T, class, ns string) func(args ...string) (int, string) {
	return func(args ...string) (int, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		err := run(context.Background(), syncArgs(class, ns, append(args, "--ner", "off")...), &out, &errOut)
		return exitCode(err), out.String() + errOut.String() + fmt.Sprint(err)
	}
}

// storedStates reads what the graph of namespace ns holds of every document.
func storedStates(t *testing.T, ns string) map[string]ariadne.DocState {
	t.Helper()
	gs, err := graph.Open(context.Background(), graph.Config{URI: testenv.Neo4jURI(), User: testenv.Neo4jUser(), Password: testenv.Neo4jPassword(), Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	defer gs.Close(context.Background())
	states, err := gs.DocumentStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return states
}

// TestIntegrationMalformedFileKeepsStoredDocument: a file of an indexed folder that turns
// malformed — an unclosed quote in its title, an acl that names no group — is not a deletion:
// the stored document stays exactly as it was (its content hash, so its acl too: "acl: []" does
// not make it public), the summary names the file, the reason and the document kept, and the run
// exits 3, a dry run too. Fixed, the file is synced as usual.
func TestIntegrationMalformedFileKeepsStoredDocument(t *testing.T) {
	testenv.Need(t, "Weaviate", testenv.HTTPGet(testenv.WeaviateURL()+"/v1/.well-known/ready"))
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("kickoff.md", "---\nid: meetings/kickoff\ntitle: Kickoff\nacl: [management]\n---\nThe kickoff is on Monday.\n")
	write("pier.md", "---\nid: notes/pier\ntitle: Pier\nacl: [management]\n---\nThe pier opens at six.\n")
	write("gate.md", "---\nid: notes/gate\ntitle: Gate\n---\nThe gate closes at ten.\n")
	class, ns := scratchStores(t, "ExtractCmdMalformed")
	args := syncArgs(class, ns, "--corpus", dir)
	sync := func(more ...string) (int, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		err := run(context.Background(), append(args, more...), &out, &errOut)
		return exitCode(err), out.String() + errOut.String() + fmt.Sprint(err)
	}
	if code, out := sync(); code != 0 || !strings.Contains(out, "written 3") {
		t.Fatalf("first sync: exit %d\n%s", code, out)
	}
	before := storedStates(t, ns)

	write("kickoff.md", "---\nid: meetings/kickoff\ntitle: \"Kickoff\nacl: [management]\n---\nThe kickoff is on Tuesday.\n")
	write("pier.md", "---\nid: notes/pier\ntitle: Pier\nacl: []\n---\nThe pier opens at seven.\n")
	for _, dry := range []bool{true, false} {
		var more []string
		if dry {
			more = append(more, "--dry-run")
		}
		code, out := sync(more...)
		if code != 3 {
			t.Errorf("dry run %v: exit %d, want 3\n%s", dry, code, out)
		}
		deleted := "deleted 0"
		if dry {
			deleted = "would delete 0"
		}
		for _, want := range []string{
			deleted,
			"skipped 2 (malformed)",
			"malformed  kickoff.md: front matter: line 3: found unexpected end of stream (an unclosed quote or bracket?) — not synced; the stored document meetings/kickoff is kept as it was",
			"malformed  pier.md: acl is an empty list; leave it out for the default, [all], or list the groups that may read the document — not synced; the stored document notes/pier is kept as it was",
			"2 malformed files not synced (the summary names each with the reason; a stored document such a file held is kept as it was): fix and sync again",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("dry run %v: the output does not say %q:\n%s", dry, want, out)
			}
		}
	}
	after := storedStates(t, ns)
	for _, id := range []string{"meetings/kickoff", "notes/pier", "notes/gate"} {
		if b, a := before[id], after[id]; a.ContentHash == "" || a.ContentHash != b.ContentHash || a.GraphHash != b.GraphHash || !slices.Equal(a.ChunkIDs, b.ChunkIDs) {
			t.Errorf("%s changed: %+v → %+v", id, b, a)
		}
	}

	write("kickoff.md", "---\nid: meetings/kickoff\ntitle: Kickoff\nacl: [management]\n---\nThe kickoff is on Tuesday.\n")
	write("pier.md", "---\nid: notes/pier\ntitle: Pier\nacl: [management]\n---\nThe pier opens at seven.\n")
	if code, out := sync(); code != 0 || !strings.Contains(out, "written 2") || !strings.Contains(out, "deleted 0") {
		t.Fatalf("fixed files: exit %d\n%s", code, out)
	}
}

// TestIntegrationOlderVersionRefused: a file brought back from version 3 to version 1 (an old
// copy) is refused as POST /v1/documents refuses it (409 version_conflict): the stored version 3
// stays, the summary names the file, both versions and what to do, and the run exits 3; the same
// version edited in place is synced (the folder is its source's one writer), and so is version 4.
func TestIntegrationOlderVersionRefused(t *testing.T) {
	testenv.Need(t, "Weaviate", testenv.HTTPGet(testenv.WeaviateURL()+"/v1/.well-known/ready"))
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	dir := t.TempDir()
	write := func(version int, body string) {
		t.Helper()
		text := fmt.Sprintf("---\nid: notes/pier\ntitle: Pier\nversion: %d\n---\n%s\n", version, body)
		if err := os.WriteFile(filepath.Join(dir, "pier.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "gate.md"), []byte("---\nid: notes/gate\ntitle: Gate\n---\nThe gate closes at ten.\n"), 0o644)
	class, ns := scratchStores(t, "ExtractCmdVersion")
	sync := func() (int, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		err := run(context.Background(), syncArgs(class, ns, "--corpus", dir, "--ner", "off"), &out, &errOut)
		return exitCode(err), out.String() + errOut.String() + fmt.Sprint(err)
	}
	write(3, "The pier opens at six.")
	if code, out := sync(); code != 0 || !strings.Contains(out, "written 2") {
		t.Fatalf("first sync: exit %d\n%s", code, out)
	}
	before := storedStates(t, ns)["notes/pier"]
	write(1, "The pier opens at five.")
	code, out := sync()
	for _, want := range []string{
		"refused 1 (older version)", "deleted 0",
		"refused    pier.md (notes/pier): version 1 is older than the stored version 3; the stored document is kept as it was (give the file version 4 or higher to replace it)",
		"1 file with an older version than the stored document not synced",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q", want)
		}
	}
	if code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
	if after := storedStates(t, ns)["notes/pier"]; after.ContentHash != before.ContentHash || after.Version != 3 {
		t.Errorf("the stored version 3 changed: %+v → %+v", before, after)
	}
	if t.Failed() {
		t.Fatalf("output:\n%s", out)
	}
	for _, v := range []int{3, 4} {
		write(v, fmt.Sprintf("The pier opens at %d.", v+4))
		if code, out := sync(); code != 0 || !strings.Contains(out, "written 1") {
			t.Fatalf("version %d: exit %d\n%s", v, code, out)
		}
		if got := storedStates(t, ns)["notes/pier"].Version; got != v {
			t.Errorf("stored version %d, want %d", got, v)
		}
	}
}

// graphCounts counts what the graph of namespace ns holds.
func graphCounts(t *testing.T, ns string) graph.Counts {
	t.Helper()
	gs, err := graph.Open(context.Background(), graph.Config{URI: testenv.Neo4jURI(), User: testenv.Neo4jUser(), Password: testenv.Neo4jPassword(), Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	defer gs.Close(context.Background())
	c, err := gs.Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestIntegrationNERDownKeepsRecognizedEntities is the tester's repro: a folder indexed with the
// real NER sidecar, then synced with --ner auto (the default) while the sidecar does not answer
// (--ner-url http://127.0.0.1:1). The sync, its dry run and a --delete are refused with exit 1
// naming the address and both ways out, and the graph keeps every recognized entity; --ner off
// rebuilds the source without recognition on purpose. A fresh namespace still falls back to
// indexing without recognition, with a warning.
func TestIntegrationNERDownKeepsRecognizedEntities(t *testing.T) {
	testenv.Need(t, "Weaviate", testenv.HTTPGet(testenv.WeaviateURL()+"/v1/.well-known/ready"))
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	testenv.Need(t, "the NER sidecar ("+testenv.NERURL()+")", testenv.HTTPGet(testenv.NERURL()+"/health"))
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "trip.md"), []byte("---\nid: notes/trip\ntitle: Поездка\nlang: ru\n---\nИван Петров встретился с Анной Смирновой в Казани. Потом Иван Петров улетел в Новосибирск.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "visit.md"), []byte("---\nid: notes/visit\ntitle: Визит\nlang: ru\n---\nАнна Смирнова приехала в Томск.\n"), 0o644)
	class, ns := scratchStores(t, "ExtractCmdNER")
	sync := func(more ...string) (int, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		err := run(context.Background(), syncArgs(class, ns, more...), &out, &errOut)
		return exitCode(err), out.String() + errOut.String() + fmt.Sprint(err)
	}
	if code, out := sync("--corpus", dir, "--ner-url", testenv.NERURL()); code != 0 || !strings.Contains(out, "written 2") {
		t.Fatalf("sync with NER: exit %d\n%s", code, out)
	}
	before := graphCounts(t, ns)
	if before.Entities < 3 {
		t.Fatalf("recognition found %d entities, want the people and cities", before.Entities)
	}
	down := "http://127.0.0.1:1"
	for _, args := range [][]string{
		{"--corpus", dir, "--ner-url", down},
		{"--corpus", dir, "--ner-url", down, "--dry-run"},
		{"--delete", "notes/visit", "--ner-url", down},
		{"--corpus", dir, "--ner-url", down, "--reindex"},
	} {
		code, out := sync(args...)
		for _, want := range []string{
			`source "default" was indexed with entity recognition (`,
			"but the NER sidecar at " + down + " does not answer",
			"nothing was written",
			"Start the sidecar (deploy/local.sh up ner, or make up) and run again, or run with --ner off (ARIADNE_NER=off) to rebuild the source without entity recognition on purpose",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: the output does not say %q", args, want)
			}
		}
		if code != 1 {
			t.Errorf("%v: exit %d, want 1", args, code)
		}
		if after := graphCounts(t, ns); after != before {
			t.Errorf("%v: the graph changed: %+v → %+v", args, before, after)
		}
		if t.Failed() {
			t.Fatalf("%v:\n%s", args, out)
		}
	}
	if code, out := sync("--corpus", dir, "--ner", "off"); code != 0 || !strings.Contains(out, "relinked 2") {
		t.Fatalf("--ner off: exit %d\n%s", code, out)
	}
	if after := graphCounts(t, ns); after.Entities >= before.Entities {
		t.Errorf("--ner off kept %d entities of %d: recognition's were not dropped", after.Entities, before.Entities)
	}
	// A source indexed without recognition, as a fresh one, is synced with the sidecar down.
	class2, ns2 := scratchStores(t, "ExtractCmdNERFresh")
	var out, errOut bytes.Buffer
	err := run(context.Background(), syncArgs(class2, ns2, "--corpus", dir, "--ner-url", down), &out, &errOut)
	if exitCode(err) != 0 || !strings.Contains(out.String(), "written 2") || !strings.Contains(errOut.String(), "indexing without entity recognition") {
		t.Fatalf("fresh namespace, sidecar down: exit %d\n%s\n%s", exitCode(err), out.String(), errOut.String())
	}
}

// TestIntegrationDeleteNamesSource: --delete removes a document of another source than --source
// (ids are unique across sources) and the summary names that source; an id no document has is
// named in the summary as not found and exits 3, nothing deleted.
func TestIntegrationDeleteNamesSource(t *testing.T) {
	testenv.Need(t, "Weaviate", testenv.HTTPGet(testenv.WeaviateURL()+"/v1/.well-known/ready"))
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "kickoff.md"), []byte("---\nid: api/kickoff-tomsk\ntitle: Kickoff in Tomsk\n---\nThe kickoff is in Tomsk.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "gate.md"), []byte("---\nid: api/gate\ntitle: Gate\n---\nThe gate closes at ten.\n"), 0o644)
	class, ns := scratchStores(t, "ExtractCmdDelete")
	extract := extractWithoutNER(t, class, ns)
	if code, out := extract("--corpus", dir, "--source", "api"); code != 0 || !strings.Contains(out, "written 2") {
		t.Fatalf("sync: exit %d\n%s", code, out)
	}
	code, out := extract("--delete", "no/such-doc")
	for _, want := range []string{"  source     none (nothing deleted)\n", "  not found  no/such-doc: no stored document has this id; nothing deleted\n",
		"nothing deleted for 1 id no stored document has (no/such-doc)"} {
		if !strings.Contains(out, want) {
			t.Errorf("unknown id: the output does not say %q", want)
		}
	}
	if code != 3 {
		t.Errorf("unknown id: exit %d, want 3", code)
	}
	code, out = extract("--delete", "api/kickoff-tomsk")
	for _, want := range []string{"  source     api\n", "  deleted    api/kickoff-tomsk (source api)\n", "deleted 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("delete: the output does not say %q", want)
		}
	}
	if strings.Contains(out, "source     default") || code != 0 {
		t.Errorf("delete: exit %d, or the summary names the source default", code)
	}
	if states := storedStates(t, ns); len(states) != 1 || states["api/gate"].Source != "api" {
		t.Errorf("after the delete the graph holds %v", states)
	}
	if t.Failed() {
		t.Logf("last output:\n%s", out)
	}
}

// TestIntegrationDeleteReportsRestoredWrites: deleting the page that defines a person extracts
// the rest of the source again; the note that named the person no longer links the name, so the
// entity goes with that rewrite, and the summary says so (an outside tester counted 3 entities
// gone where it said 1) and gives the whole graph's count, not 0.
func TestIntegrationDeleteReportsRestoredWrites(t *testing.T) {
	testenv.Need(t, "Weaviate", testenv.HTTPGet(testenv.WeaviateURL()+"/v1/.well-known/ready"))
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "person.md"), []byte("---\nid: people/ilse-varga\ntitle: Ilse Varga\ntype: person\n---\nIlse Varga runs the Quillmoor depot.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "note.md"), []byte("---\nid: notes/depot-visit\ntitle: Depot visit\n---\nIlse Varga showed us the loading bays.\n"), 0o644)
	class, ns := scratchStores(t, "ExtractCmdRestored")
	extract := extractWithoutNER(t, class, ns)
	if code, out := extract("--corpus", dir, "--source", "kb"); code != 0 || !strings.Contains(out, "entities 1 in the whole graph") {
		t.Fatalf("sync: exit %d, want one entity (the person)\n%s", code, out)
	}
	code, out := extract("--delete", "people/ilse-varga")
	for _, want := range []string{
		"  graph      entities 0 in the whole graph",
		"  restored   other stored documents extracted again 1, rewritten 1 (their facts changed); vectors written 0, deleted 0; graph writes: chunks 1, entities 0, relations 0, mentions 0; deleted chunks 1, relations 0, entities 1\n",
		", and 4 rewriting other documents\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("delete: the output does not say %q", want)
		}
	}
	if code != 0 || t.Failed() {
		t.Logf("exit %d, output:\n%s", code, out)
	}
}

// TestIntegrationEmptyFolderRefusesToDeleteAll: a sync of an empty folder, or of one whose only
// file is malformed and new, over an indexed source would delete all of it — an unmounted share
// looks like that — so it exits 2 naming the folder, the source and --allow-delete-all, and
// writes nothing, a dry run too; --reindex with such a folder drops nothing. With the flag the
// source is emptied.
func TestIntegrationEmptyFolderRefusesToDeleteAll(t *testing.T) {
	testenv.Need(t, "Weaviate", testenv.HTTPGet(testenv.WeaviateURL()+"/v1/.well-known/ready"))
	testenv.Need(t, "Neo4j", testenv.TCP(strings.TrimPrefix(testenv.Neo4jURI(), "bolt://")))
	dir, empty, junk := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "pier.md"), []byte("---\nid: notes/pier\ntitle: Pier\n---\nThe pier opens at six.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "gate.md"), []byte("---\nid: notes/gate\ntitle: Gate\n---\nThe gate closes at ten.\n"), 0o644)
	os.WriteFile(filepath.Join(junk, "new.md"), []byte("no front matter\n"), 0o644)
	class, ns := scratchStores(t, "ExtractCmdEmpty")
	sync := func(folder string, more ...string) (int, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		err := run(context.Background(), syncArgs(class, ns, append([]string{"--corpus", folder, "--ner", "off"}, more...)...), &out, &errOut)
		return exitCode(err), out.String() + errOut.String() + fmt.Sprint(err)
	}
	if code, out := sync(dir); code != 0 || !strings.Contains(out, "written 2") {
		t.Fatalf("first sync: exit %d\n%s", code, out)
	}
	before := storedStates(t, ns)
	for _, tc := range []struct {
		folder string
		more   []string
		want   string
	}{
		{empty, []string{"--dry-run"}, `this sync would delete every document of source "default" (2 documents): the folder ` + empty + ` holds none of them (0 documents read, 0 malformed files)`},
		{empty, nil, "check --corpus (and --source), or add --allow-delete-all to empty the source on purpose"},
		{junk, nil, "(0 documents read, 1 malformed file)"},
		{empty, []string{"--reindex"}, "--reindex drops every source's documents and the folder " + empty + " holds no document to index"},
	} {
		code, out := sync(tc.folder, tc.more...)
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("%s %v: exit %d, want 2 and %q\n%s", tc.folder, tc.more, code, tc.want, out)
		}
		if after := storedStates(t, ns); len(after) != 2 || after["notes/pier"].ContentHash != before["notes/pier"].ContentHash {
			t.Fatalf("%s %v: a refused run changed the graph: %v", tc.folder, tc.more, after)
		}
	}
	if code, out := sync(empty, "--allow-delete-all"); code != 0 || !strings.Contains(out, "deleted 2") {
		t.Fatalf("--allow-delete-all: exit %d\n%s", code, out)
	}
	if after := storedStates(t, ns); len(after) != 0 {
		t.Errorf("after --allow-delete-all the graph holds %v", after)
	}
}

// TestIntegrationSourceFlag: two folders synced as two sources of one graph; a document id the
// first source holds is skipped by the second with exit 4 and named in the summary, and an empty
// folder synced as the second source (with --allow-delete-all) deletes only its own documents.
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
	sync := func(dir, source string, more ...string) (int, string) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append(append(base, "--corpus", dir, "--source", source), more...), &out, &errOut)
		return exitCode(err), out.String() + errOut.String() + fmt.Sprint(err)
	}
	if code, out := sync(wiki, "wiki"); code != 0 || !strings.Contains(out, "written 1") {
		t.Fatalf("wiki: exit %d\n%s", code, out)
	}
	code, out := sync(crm, "crm")
	if code != 4 || !strings.Contains(out, "conflict   notes/a: held by source wiki; skipped") || !strings.Contains(out, "written 1") {
		t.Fatalf("crm: exit %d, want 4\n%s", code, out)
	}
	if code, out := sync(empty, "crm"); code != 2 || !strings.Contains(out, `this sync would delete every document of source "crm" (1 document)`) {
		t.Fatalf("empty crm without --allow-delete-all: exit %d, want 2\n%s", code, out)
	}
	if code, out := sync(empty, "crm", "--allow-delete-all"); code != 0 || !strings.Contains(out, "deleted 1") {
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

// TestUnlistedTypes: the types the ontology does not list are named with their counts, sorted;
// listed types (and their synonyms), the untyped ones (note) and documents without a type are
// not.
func TestUnlistedTypes(t *testing.T) {
	o, err := ontology.Default()
	if err != nil {
		t.Fatal(err)
	}
	docs := []ariadne.Document{{Type: "persn"}, {Type: "note"}, {Type: "person"}, {Type: "employee"}, {}, {Type: "warehouse"},
		{Type: "Warehouse"}, {Type: "note"}}
	if got, want := unlistedTypes(docs, o), "persn ×1, warehouse ×2"; got != want {
		t.Errorf("unlistedTypes = %q, want %q", got, want)
	}
	if got := unlistedTypes(docs[2:5], o); got != "" {
		t.Errorf("listed types only: %q, want none", got)
	}
	// the listed types that read as an entity type of another name are named with what they become
	docs = append(docs, ariadne.Document{Type: "library"}, ariadne.Document{Type: "Library"})
	if got, want := renamedTypes(docs, o), "employee → person ×1, library → technology ×2"; got != want {
		t.Errorf("renamedTypes = %q, want %q", got, want)
	}
}
