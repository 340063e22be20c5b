package agent

import (
	"context"
	"strings"
	"unicode"

	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// TransliteratedQuestion is an EvidenceRanker.AltQuestions that gives the question with its
// names in the other script: every capitalised Cyrillic word after the first is transliterated
// («Где родился Ханс Эдлер?» → «Где родился Khans Edler?»), since names are where a question and
// evidence in different languages differ most for e5. It returns nothing when the question has no
// such word.
func TransliteratedQuestion(_ context.Context, q string) []string {
	var b strings.Builder
	last, changed := 0, false
	for i, w := range textnorm.Words(q) {
		r := []rune(w.Text)
		if i == 0 || !w.Upper || !hasCyrillic(w.Text) {
			continue
		}
		lat := []rune(textnorm.Transliterate(w.Text))
		if len(lat) == 0 || len(r) < 2 {
			continue
		}
		lat[0] = unicode.ToUpper(lat[0])
		b.WriteString(q[last:w.Start])
		b.WriteString(string(lat))
		last, changed = w.End, true
	}
	if !changed {
		return nil
	}
	b.WriteString(q[last:])
	return []string{b.String()}
}

// GlossedQuestion returns an EvidenceRanker.AltQuestions that gives the question word by word in
// the other language (lexicon.GlossText: each word the lexicon knows replaced by its most usual
// translation, names and numbers kept). Nothing when the lexicon is nil or knows no word of it.
func GlossedQuestion(lex *lexicon.Lexicon) func(context.Context, string) []string {
	return func(_ context.Context, q string) []string {
		if g := lex.GlossText(q); lex != nil && g != "" {
			return []string{g}
		}
		return nil
	}
}
