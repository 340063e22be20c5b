// Package lexicontest builds small English–Russian dictionaries for tests, in the dictd layout
// lexicon.ReadDictd reads.
package lexicontest

import (
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne/lexicon"
)

// Entry is one dictionary article: its headword and its body as dictd stores it (the headword
// line, then the translations, e.g. "keeper\n   _n. хранитель, смотритель").
type Entry struct{ Head, Body string }

// New returns a lexicon of the entries; it fails the test when they do not read back.
func New(t testing.TB, entries ...Entry) *lexicon.Lexicon {
	t.Helper()
	var index, dict strings.Builder
	for _, e := range entries {
		index.WriteString(e.Head + "\t" + number(dict.Len()) + "\t" + number(len(e.Body)) + "\n")
		dict.WriteString(e.Body + "\n")
	}
	lex, err := lexicon.ReadDictd("test", strings.NewReader(index.String()), strings.NewReader(dict.String()))
	if err != nil {
		t.Fatal(err)
	}
	return lex
}

// number writes n in dictd's base64 digits.
func number(n int) string {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	out := []byte{digits[n%64]}
	for n /= 64; n > 0; n /= 64 {
		out = append([]byte{digits[n%64]}, out...)
	}
	return string(out)
}
