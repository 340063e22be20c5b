package setup

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/ontology"
)

func TestBuildRecognizer(t *testing.T) {
	onto, err := ontology.Default()
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok","model":"ru: slovnet; en: spacy","languages":["ru","en"]}`))
	}))
	defer up.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close() // nothing listens there any more

	tests := []struct {
		name, mode, url, extractor string
		wantName                   string // "" : no recognizer
		wantErr                    error
		wantText                   string // in the error or the note
	}{
		{"off", "off", up.URL, "dictionary", "", nil, "off"},
		{"auto and up", "auto", up.URL, "dictionary", "ner-v6/ner:ru: slovnet; en: spacy", nil, ""},
		{"on and up", "on", up.URL, "dictionary", "ner-v6/ner:ru: slovnet; en: spacy", nil, ""},
		{"auto and down", "auto", downURL, "dictionary", "", nil, "does not answer"},
		{"on and down", "on", downURL, "dictionary", "", ariadne.ErrUnavailable, "deploy/local.sh up ner"},
		{"on with the llm extractor", "on", up.URL, "llm", "", ariadne.ErrInvalid, "--extractor dictionary"},
		{"auto with the llm extractor", "auto", up.URL, "llm", "", nil, "llm extractor"},
		{"unknown mode", "sometimes", up.URL, "dictionary", "", ariadne.ErrInvalid, "auto, on or off"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix := Indexing{NER: tc.mode, NERURL: tc.url, Extractor: tc.extractor}
			rec, note, err := ix.BuildRecognizer(context.Background(), onto, nil, nil)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.wantText) {
					t.Fatalf("err = %v; want %v containing %q", err, tc.wantErr, tc.wantText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.wantName == "" && rec != nil:
				t.Errorf("got recognizer %s, want none", rec.Name())
			case tc.wantName != "" && (rec == nil || rec.Name() != tc.wantName):
				t.Errorf("got %v, want %s", rec, tc.wantName)
			}
			if !strings.Contains(note, tc.wantText) {
				t.Errorf("note %q does not say %q", note, tc.wantText)
			}
		})
	}
}

// The components line of cmd/extract and cmd/api names the ontology in use.
func TestOntologyName(t *testing.T) {
	if got := (Indexing{}).OntologyName(); got != "built-in" {
		t.Errorf("default: %q", got)
	}
	if got := (Indexing{Ontology: "trial/freight-ontology.yaml"}).OntologyName(); got != "trial/freight-ontology.yaml" {
		t.Errorf("a file: %q", got)
	}
}
