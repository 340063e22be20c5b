package testrig

import (
	"os"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

func TestCorporaInTheRepoLoad(t *testing.T) {
	for dir, want := range map[string]int{KB: 24, DemoKB: 20} {
		docs, problems, err := corpus.Load(os.DirFS(dir))
		if err != nil || len(problems) > 0 || len(docs) != want {
			t.Errorf("%s: %d documents (want %d), problems %v, err %v", dir, len(docs), want, problems, err)
		}
	}
}

func TestSharedOrSkip(t *testing.T) {
	t.Setenv("ARIADNE_SHARED_DIR", t.TempDir())
	if err := os.MkdirAll(SharedDir()+"/corpus/kb", 0o755); err != nil {
		t.Fatal(err)
	}
	var got string
	ok := t.Run("present", func(t *testing.T) { got = SharedOrSkip(t, "corpus/kb") })
	if !ok || got != SharedDir()+"/corpus/kb" {
		t.Errorf("present: ok %v path %q", ok, got)
	}
	t.Setenv("ARIADNE_SHARED_DIR", "/nonexistent")
	var skipped bool
	t.Run("absent", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		SharedOrSkip(t, "corpus/kb")
		t.Error("did not skip")
	})
	if !skipped {
		t.Error("SharedOrSkip did not skip when the shared folder is absent")
	}
}

// TestKBIsOurOwn checks, where ../shared is present, that the repository's test corpus shares no
// document id, title or sentence with the shared corpus (it must not be copied in).
func TestKBIsOurOwn(t *testing.T) {
	shared, _, err := corpus.Load(os.DirFS(SharedOrSkip(t, "corpus/kb")))
	if err != nil {
		t.Fatal(err)
	}
	ours, _, err := corpus.Load(os.DirFS(KB))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range shared {
		seen["id:"+d.ID] = true
		seen["title:"+d.Title] = true
		for _, s := range shingles(d.Body) {
			seen[s] = true
		}
	}
	for _, d := range ours {
		if seen["id:"+d.ID] {
			t.Errorf("%s: the id is in the shared corpus", d.ID)
		}
		if seen["title:"+d.Title] {
			t.Errorf("%s: the title %q is in the shared corpus", d.ID, d.Title)
		}
		for _, s := range shingles(d.Body) {
			if seen[s] {
				t.Errorf("%s: the words %q are in the shared corpus", d.ID, s)
			}
		}
	}
}

// shingles are the runs of eight consecutive words of text.
func shingles(text string) []string {
	var words []string
	for _, w := range textnorm.Words(text) {
		words = append(words, strings.ToLower(w.Text))
	}
	var out []string
	for i := 0; i+8 <= len(words); i++ {
		out = append(out, strings.Join(words[i:i+8], " "))
	}
	return out
}
