package chunking

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"pgregory.net/rapid"

	"github.com/ariadne-graphrag/ariadne"
)

func newTestChunker(t testing.TB, opts Options) *Chunker {
	t.Helper()
	cnt, err := NewCL100K()
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(opts, cnt)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSplitFollowsHeadingTree(t *testing.T) {
	body := "# Омега-TMS\n\n## Паспорт\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Архитектура\n\nСервис `tms-core` на Spring Boot.\n\n### База\n\nPostgreSQL 15.4.\n\n```\n# not a heading\n```\n"
	doc := ariadne.Document{ID: "projects/omega-tms", Title: "Омега-TMS — система", Body: body, ACL: []string{"all"}, Lang: "ru"}
	chunks := newTestChunker(t, DefaultOptions()).Split(doc)
	type got struct {
		path, text string
	}
	var gots []got
	for _, c := range chunks {
		gots = append(gots, got{c.HeadingPath(), c.Text})
		if c.Text != body[c.Start:c.End] {
			t.Errorf("chunk %s: Text is not Body[Start:End]", c.ID)
		}
	}
	want := []got{
		{"Омега-TMS > Паспорт", "| a | b |\n|---|---|\n| 1 | 2 |"},
		{"Омега-TMS > Архитектура", "Сервис `tms-core` на Spring Boot."},
		{"Омега-TMS > Архитектура > База", "PostgreSQL 15.4.\n\n```\n# not a heading\n```"},
	}
	if !slices.Equal(gots, want) {
		t.Fatalf("chunks:\n%q\nwant:\n%q", gots, want)
	}
	if chunks[0].ID != ariadne.ChunkID("projects/omega-tms", 0, want[0].text) || !strings.HasPrefix(chunks[2].ID, "projects/omega-tms#0002-") {
		t.Errorf("ids not stable: %s, %s", chunks[0].ID, chunks[2].ID)
	}
	if ctx := chunks[1].ContextText(); !strings.HasPrefix(ctx, "Омега-TMS — система\nОмега-TMS > Архитектура\n\n") {
		t.Errorf("ContextText = %q", ctx)
	}
}

func TestSplitIsDeterministic(t *testing.T) {
	doc := ariadne.Document{ID: "d", Body: strings.Repeat("Слово word 🚀. ", 400)}
	c := newTestChunker(t, Options{MaxTokens: 64, OverlapTokens: 8})
	a, b := c.Split(doc), c.Split(doc)
	if len(a) < 5 || !slices.EqualFunc(a, b, func(x, y ariadne.Chunk) bool { return x.ID == y.ID }) {
		t.Fatalf("two splits differ or too few chunks (%d)", len(a))
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	cnt, _ := NewCL100K()
	for _, o := range []Options{{MaxTokens: 8}, {MaxTokens: 64, OverlapTokens: 32}, {MaxTokens: 64, OverlapTokens: -1}} {
		if _, err := New(o, cnt); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

// words mixes Latin, Cyrillic, digits, codes, emoji with modifiers and ZWJ sequences, and a few
// very long "words" that force the grapheme-level split.
var words = []string{
	"отпуск", "Западный", "ветер", "VPN", "SV", "Connect", "DOG-2031-042", "ERR-7713", "сертификат",
	"the", "policy", "requires", "28", "дней.", "approval!", "когда?", "🚀", "👩‍👩‍👧‍👦", "👍🏽", "🇷🇺",
	"naïve", "Ёжик", "«Опушка»", "`tms-core`", "—", "x",
	strings.Repeat("оченьдлинноеслово", 12), strings.Repeat("👩‍💻", 15),
}

func genDocument(t *rapid.T) ariadne.Document {
	var b strings.Builder
	nsec := rapid.IntRange(1, 5).Draw(t, "sections")
	for s := range nsec {
		if rapid.Bool().Draw(t, "heading") {
			b.WriteString(strings.Repeat("#", rapid.IntRange(1, 3).Draw(t, "level")) + " Раздел " + string(rune('A'+s)) + "\n\n")
		}
		for range rapid.IntRange(1, 4).Draw(t, "paragraphs") {
			n := rapid.IntRange(1, 120).Draw(t, "words")
			for i := range n {
				if i > 0 {
					b.WriteString(rapid.SampledFrom([]string{" ", " ", " ", "\n", "  "}).Draw(t, "sep"))
				}
				b.WriteString(rapid.SampledFrom(words).Draw(t, "word"))
			}
			b.WriteString("\n\n")
		}
	}
	return ariadne.Document{ID: "gen", Title: "Gen", Body: b.String()}
}

// TestSplitProperties: no text is lost, no chunk exceeds the budget, overlap is as configured,
// and no chunk boundary falls inside a rune or a grapheme cluster.
func TestSplitProperties(t *testing.T) {
	cnt, err := NewCL100K()
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(t *rapid.T) {
		maxTok := rapid.IntRange(16, 200).Draw(t, "max")
		overlap := rapid.IntRange(0, maxTok/2-1).Draw(t, "overlap")
		c, err := New(Options{MaxTokens: maxTok, OverlapTokens: overlap}, cnt)
		if err != nil {
			t.Fatal(err)
		}
		doc := genDocument(t)
		chunks := c.Split(doc)
		body := doc.Body

		covered := make([]bool, len(body))
		for _, sec := range sections(body) {
			if sec.path != nil { // the heading line itself precedes sec.start
				lineStart := strings.LastIndexByte(body[:max(sec.start-1, 0)], '\n') + 1
				for i := lineStart; i < sec.start; i++ {
					covered[i] = true
				}
			}
		}
		boundaries := graphemeBoundaries(body)
		for i, ch := range chunks {
			if got := cnt.Count(ch.Text); got > maxTok {
				t.Fatalf("chunk %d has %d tokens > budget %d", i, got, maxTok)
			}
			if !utf8.ValidString(ch.Text) {
				t.Fatalf("chunk %d is not valid UTF-8", i)
			}
			for _, at := range []int{ch.Start, ch.End} {
				if at < len(body) && !utf8.RuneStart(body[at]) {
					t.Fatalf("chunk %d [%d,%d) cuts a rune", i, ch.Start, ch.End)
				}
				if cluster, inside := boundaries.within(at); inside && cnt.Count(cluster) <= maxTok {
					t.Fatalf("chunk %d [%d,%d) %q cuts the grapheme cluster %q, which fits the budget; body near: %q", i, ch.Start, ch.End, ch.Text, cluster, body[max(0, at-40):min(len(body), at+40)])
				}
			}
			for j := ch.Start; j < ch.End; j++ {
				covered[j] = true
			}
			if i > 0 && slices.Equal(chunks[i-1].Heading, ch.Heading) && ch.Start < chunks[i-1].End {
				ov := body[ch.Start:chunks[i-1].End]
				if overlap == 0 {
					t.Fatalf("chunks %d and %d overlap (%q) with overlap disabled", i-1, i, ov)
				}
				if n := cnt.Count(ov); n > overlap {
					t.Fatalf("overlap of chunks %d/%d has %d tokens > %d", i-1, i, n, overlap)
				}
				if ch.Start > 0 && !isSpaceByte(body[ch.Start-1]) {
					t.Fatalf("overlap of chunk %d does not start at a word boundary", i)
				}
			}
		}
		for i := range body {
			if !covered[i] && !isSpaceByte(body[i]) {
				t.Fatalf("byte %d (%q) of the body is in no chunk", i, body[max(0, i-10):min(len(body), i+10)])
			}
		}
	})
}

// clusters finds grapheme clusters of a string. It segments the whitespace-delimited word around
// an offset on its own, as the chunker does (uniseg's segmentation of a ZWJ sequence can depend on
// what precedes it).
type clusters struct{ s string }

func graphemeBoundaries(s string) clusters { return clusters{s: s} }

// within returns the grapheme cluster that strictly contains byte offset at, if any.
func (c clusters) within(at int) (string, bool) {
	if at <= 0 || at >= len(c.s) {
		return "", false
	}
	ws := strings.LastIndexAny(c.s[:at], " \t\n") + 1
	we := len(c.s)
	if i := strings.IndexAny(c.s[at:], " \t\n"); i >= 0 {
		we = at + i
	}
	g := uniseg.NewGraphemes(c.s[ws:we])
	for g.Next() {
		from, to := g.Positions()
		if ws+from < at && at < ws+to {
			return g.Str(), true
		}
	}
	return "", false
}

// TestOverlapIsUsed: in a long paragraph of short words the configured overlap is actually used.
func TestOverlapIsUsed(t *testing.T) {
	cnt, _ := NewCL100K()
	c := newTestChunker(t, Options{MaxTokens: 100, OverlapTokens: 20})
	body := strings.Repeat("один two три four пять six ", 120)
	chunks := c.Split(ariadne.Document{ID: "o", Body: body})
	if len(chunks) < 4 {
		t.Fatalf("%d chunks, want several", len(chunks))
	}
	for i := 1; i < len(chunks); i++ {
		ov := body[chunks[i].Start:chunks[i-1].End]
		if n := cnt.Count(ov); n < 15 || n > 20 {
			t.Errorf("overlap %d has %d tokens, want 15..20: %q", i, n, ov)
		}
	}
}

// tallyCounter counts with cl100k_base and records how often each text was counted.
type tallyCounter struct {
	inner *CL100K
	times map[string]int
}

func (t *tallyCounter) Count(s string) int {
	t.times[s]++
	return t.inner.Count(s)
}

// longDocument is a document of several sections whose paragraphs, lines and sentences are over
// a 64-token budget, so that Split goes down every level and packs with overlap.
func longDocument() ariadne.Document {
	var b strings.Builder
	for s := range 4 {
		b.WriteString("## Раздел " + strings.Repeat("I", s+1) + "\n\n")
		for p := range 3 {
			for range 6 {
				b.WriteString("Сервис маршрутизации грузов отвечает за расчёт тарифов. The routing service computes freight tariffs for every client. ")
			}
			b.WriteString("\n- пункт списка " + strings.Repeat("x", p+1) + "\n- another list item\n\n")
		}
	}
	return ariadne.Document{ID: "notes/long", Title: "Long", Body: b.String(), ACL: []string{"all"}, Lang: "ru"}
}

// TestSplitCountsEachTextOnce: within one Split the tokenizer sees every distinct text once (the
// memo), and the counts it remembers are exact.
func TestSplitCountsEachTextOnce(t *testing.T) {
	inner, err := NewCL100K()
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{MaxTokens: 64, OverlapTokens: 16}
	tally := &tallyCounter{inner: inner, times: map[string]int{}}
	c, err := New(opts, tally)
	if err != nil {
		t.Fatal(err)
	}
	doc := longDocument()
	got := c.Split(doc)
	for s, n := range tally.times {
		if n != 1 {
			t.Errorf("%q counted %d times, want 1", s, n)
		}
	}
	if len(got) < 10 {
		t.Fatalf("%d chunks, want at least 10 (the document must exceed the budget at every level)", len(got))
	}
	// Remembered counts are exact: each chunk's Tokens is its text's count, within the budget.
	for _, ch := range got {
		if ch.Tokens != inner.Count(ch.Text) || ch.Tokens > opts.MaxTokens {
			t.Errorf("chunk %d: Tokens %d, cl100k_base counts %d (budget %d)", ch.Position, ch.Tokens, inner.Count(ch.Text), opts.MaxTokens)
		}
	}
}

// BenchmarkSplit splits a long bilingual document at the default budget; bytes/s is the
// chunker's throughput.
func BenchmarkSplit(b *testing.B) {
	c := newTestChunker(b, DefaultOptions())
	doc := longDocument()
	b.SetBytes(int64(len(doc.Body)))
	for b.Loop() {
		c.Split(doc)
	}
}
