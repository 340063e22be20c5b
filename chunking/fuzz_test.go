package chunking

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne"
)

var (
	fuzzCounterOnce sync.Once
	fuzzCounter     *CL100K
)

func cl100k(t testing.TB) *CL100K {
	fuzzCounterOnce.Do(func() {
		c, err := NewCL100K()
		if err != nil {
			t.Fatal(err)
		}
		fuzzCounter = c
	})
	return fuzzCounter
}

// fuzzMaxBody bounds the body so that one execution (which counts cl100k tokens many times)
// stays in the millisecond range; the structure that matters fits in 4 KiB.
const fuzzMaxBody = 4 << 10

// FuzzSplit splits arbitrary bodies with arbitrary (valid) options and checks the package
// contract:
//
//   - every chunk has at most MaxTokens cl100k tokens (no exception: a rune is at most 4 bytes and
//     MaxTokens is at least 16, and a grapheme cluster over the budget is cut between runes, as
//     the package documents), and Tokens is that count;
//   - Text == Body[Start:End] byte for byte, 0 <= Start < End <= len(Body), both on rune starts,
//     and Text has no leading or trailing blank;
//   - Start and End strictly increase from chunk to chunk; chunks overlap only inside one
//     section, by at most OverlapTokens tokens, and not at all when the overlap is 0;
//   - no text is lost: every rune of the body that is not white space (unicode.IsSpace) is in a
//     chunk or in a heading line (headings are carried in Heading, not repeated in Text);
//   - Position is the index and ID is ariadne.ChunkID(doc.ID, Position, Text); the same input
//     gives the same chunks, from the same and from a fresh Chunker.
//
// Bodies are made valid UTF-8 first: the corpus loader and the JSON API reject or replace
// invalid UTF-8 before a body reaches the chunker, and the token counter documents that.
func FuzzSplit(f *testing.F) {
	f.Add("# Омега-TMS\n\n## Паспорт\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Архитектура\n\nСервис `tms-core` на Spring Boot.\n\n### База\n\nPostgreSQL 15.4.\n\n```\n# not a heading\n```\n", 320, 48)
	f.Add(strings.Repeat("Слово word 🚀. ", 60), 16, 4)
	f.Add(strings.Repeat("один two три four пять six ", 40), 100, 20)
	f.Add(strings.Repeat("оченьдлинноеслово", 20)+" "+strings.Repeat("👩‍💻", 30), 16, 0)
	f.Add("a\u00a0b\u2003c\u3000d\u0085e "+strings.Repeat("x\u00a0", 200), 16, 7)
	f.Add("# h1\n#\n## \n###### six ######\n####### seven\n   # indented\n\t# tab\ntext", 16, 0)
	f.Add("```\n# in fence\n~~~\nstill\n```\n# out\nbody\n~~~\nunterminated fence\n# x", 20, 3)
	f.Add("Sentence one. Sentence two! Three? Four… five; six.\n\nPara two.\r\nCRLF line\r\n", 16, 5)
	f.Fuzz(func(t *testing.T, body string, maxTokens, overlap int) {
		if len(body) > fuzzMaxBody {
			body = body[:fuzzMaxBody]
		}
		body = strings.ToValidUTF8(body, "\uFFFD")
		opts := fuzzOptions(maxTokens, overlap)
		cnt := cl100k(t)
		c, err := New(opts, cnt)
		if err != nil {
			t.Fatalf("New(%+v): %v", opts, err)
		}
		doc := ariadne.Document{ID: "fuzz/doc", Title: "T", Body: body, ACL: []string{"all"}}
		chunks := c.Split(doc)
		checkChunks(t, cnt, opts, doc, chunks)

		if again := c.Split(doc); !reflect.DeepEqual(chunks, again) {
			t.Fatalf("two splits of the same document differ")
		}
		fresh, _ := New(opts, cnt)
		if again := fresh.Split(doc); !reflect.DeepEqual(chunks, again) {
			t.Fatalf("a fresh chunker splits the same document differently")
		}
	})
}

// fuzzOptions maps two arbitrary ints to options New accepts: MaxTokens in [16, 527],
// OverlapTokens in [0, MaxTokens/2).
func fuzzOptions(maxTokens, overlap int) Options {
	m := 16 + int(uint(maxTokens)%512)
	return Options{MaxTokens: m, OverlapTokens: int(uint(overlap) % uint(m/2))}
}

func checkChunks(t *testing.T, cnt Counter, opts Options, doc ariadne.Document, chunks []ariadne.Chunk) {
	t.Helper()
	body := doc.Body
	covered := make([]bool, len(body)+1)
	for _, sec := range sections(body) {
		if sec.path != nil { // the heading line precedes sec.start
			lineStart := strings.LastIndexByte(body[:max(sec.start-1, 0)], '\n') + 1
			for i := lineStart; i < sec.start; i++ {
				covered[i] = true
			}
		}
	}
	for i, ch := range chunks {
		if ch.Start < 0 || ch.Start >= ch.End || ch.End > len(body) {
			t.Fatalf("chunk %d: bad range [%d,%d) in a body of %d bytes", i, ch.Start, ch.End, len(body))
		}
		if ch.Text != body[ch.Start:ch.End] {
			t.Fatalf("chunk %d: Text %q is not Body[%d:%d] %q", i, ch.Text, ch.Start, ch.End, body[ch.Start:ch.End])
		}
		if !utf8.RuneStart(body[ch.Start]) || (ch.End < len(body) && !utf8.RuneStart(body[ch.End])) {
			t.Fatalf("chunk %d [%d,%d) cuts a rune", i, ch.Start, ch.End)
		}
		if isSpaceByte(ch.Text[0]) || isSpaceByte(ch.Text[len(ch.Text)-1]) {
			t.Fatalf("chunk %d %q starts or ends with a blank", i, ch.Text)
		}
		if n := cnt.Count(ch.Text); n > opts.MaxTokens || ch.Tokens != n {
			t.Fatalf("chunk %d: %d tokens (Tokens=%d), budget %d: %q", i, n, ch.Tokens, opts.MaxTokens, ch.Text)
		}
		if ch.Position != i || ch.ID != ariadne.ChunkID(doc.ID, i, ch.Text) || ch.DocID != doc.ID {
			t.Fatalf("chunk %d: position %d, id %q, doc %q", i, ch.Position, ch.ID, ch.DocID)
		}
		if i > 0 {
			prev := chunks[i-1]
			if ch.Start <= prev.Start || ch.End <= prev.End {
				t.Fatalf("chunk %d [%d,%d) does not move past chunk %d [%d,%d)", i, ch.Start, ch.End, i-1, prev.Start, prev.End)
			}
			if ch.Start < prev.End {
				ov := body[ch.Start:prev.End]
				switch {
				case !reflect.DeepEqual(ch.Heading, prev.Heading):
					t.Fatalf("chunks %d and %d of different sections overlap: %q", i-1, i, ov)
				case opts.OverlapTokens == 0:
					t.Fatalf("chunks %d and %d overlap (%q) with overlap disabled", i-1, i, ov)
				case cnt.Count(ov) > opts.OverlapTokens:
					t.Fatalf("overlap of chunks %d/%d has %d tokens > %d: %q", i-1, i, cnt.Count(ov), opts.OverlapTokens, ov)
				}
			}
		}
		for j := ch.Start; j < ch.End; j++ {
			covered[j] = true
		}
	}
	for i, r := range body {
		if !covered[i] && !unicode.IsSpace(r) {
			t.Fatalf("rune %q at byte %d is in no chunk and no heading line; near %q; chunks %s",
				r, i, body[max(0, i-20):min(len(body), i+20)], spans(chunks))
		}
	}
}

func spans(chunks []ariadne.Chunk) string {
	var b strings.Builder
	for _, c := range chunks {
		fmt.Fprintf(&b, "[%d,%d)", c.Start, c.End)
	}
	return b.String()
}
