// Package chunking splits a document body into structure-aware chunks.
//
// The body is cut on its Markdown heading tree first; inside a section it is kept whole when it
// fits the token budget, otherwise split into blocks (paragraphs, tables, lists, fenced code), then
// lines, then sentences, then words, and as a last resort into runs of grapheme clusters — never
// inside a rune, and inside a grapheme cluster (an emoji with modifiers) only when that one
// cluster alone is over the budget. Pieces are packed
// greedily into chunks of at most MaxTokens tokens; consecutive chunks of one section share an
// overlap of at most OverlapTokens tokens, cut at a word boundary.
//
// Tokens are counted with the cl100k_base byte-pair encoding (tiktoken-go/tokenizer), the
// tokenizer of OpenAI's embedding models. For Russian it counts more tokens than the XLM-RoBERTa
// tokenizer of multilingual-e5 (about 2.5 vs 3.5 characters per token), so a budget in cl100k
// tokens is conservative for e5's 512-token input limit.
//
// Every chunk's Text is a verbatim slice Body[Start:End]; headings are not repeated in the text
// but carried in the chunk's heading path. Together, the chunks and the heading lines cover every
// non-blank byte of the body.
package chunking

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/rivo/uniseg"
	"github.com/tiktoken-go/tokenizer"

	"github.com/ariadne-graphrag/ariadne"
)

// Options configure a Chunker.
type Options struct {
	MaxTokens     int // hard budget per chunk, in cl100k_base tokens; default 320
	OverlapTokens int // tokens shared by consecutive chunks of one section; default 48; 0 disables
}

// DefaultOptions are the budget and overlap Ariadne indexes with.
func DefaultOptions() Options { return Options{MaxTokens: 320, OverlapTokens: 48} }

// Counter counts tokens in a string.
type Counter interface {
	Count(s string) int
}

// CL100K counts tokens with OpenAI's cl100k_base encoding.
type CL100K struct{ codec tokenizer.Codec }

// NewCL100K loads the cl100k_base encoding (compiled into the binary; no download).
func NewCL100K() (*CL100K, error) {
	c, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		return nil, fmt.Errorf("chunking: cl100k_base: %w", err)
	}
	return &CL100K{codec: c}, nil
}

// Count returns the number of cl100k_base tokens in s.
func (c *CL100K) Count(s string) int {
	if s == "" {
		return 0
	}
	n, err := c.codec.Count(s)
	if err != nil {
		// The codec only fails on invalid UTF-8, which the corpus loader rejects; count bytes
		// so that the budget still holds.
		return len(s)
	}
	return n
}

// Chunker splits documents. It is safe for concurrent use.
type Chunker struct {
	opts  Options
	count Counter
}

// New returns a Chunker. MaxTokens below 16 or OverlapTokens of half the budget or more are
// errors.
func New(opts Options, counter Counter) (*Chunker, error) {
	if opts.MaxTokens == 0 {
		opts.MaxTokens = DefaultOptions().MaxTokens
	}
	if opts.MaxTokens < 16 {
		return nil, fmt.Errorf("chunking: MaxTokens %d is below 16: %w", opts.MaxTokens, ariadne.ErrInvalid)
	}
	if opts.OverlapTokens < 0 || opts.OverlapTokens*2 >= opts.MaxTokens {
		return nil, fmt.Errorf("chunking: OverlapTokens %d must be in [0, MaxTokens/2): %w", opts.OverlapTokens, ariadne.ErrInvalid)
	}
	return &Chunker{opts: opts, count: counter}, nil
}

// NewDefault returns the Chunker Ariadne indexes with: DefaultOptions, counted with cl100k_base.
func NewDefault() (*Chunker, error) {
	counter, err := NewCL100K()
	if err != nil {
		return nil, err
	}
	return New(DefaultOptions(), counter)
}

// Options returns the chunker's effective options.
func (c *Chunker) Options() Options { return c.opts }

// section is a heading's content: Body[start:end) under the heading path.
type section struct {
	path       []string
	start, end int
}

var headingRE = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$`)

// sections cuts body on ATX headings outside fenced code blocks.
func sections(body string) []section {
	var out []section
	var stack []struct {
		level int
		text  string
	}
	cur := section{start: 0}
	inFence := ""
	off := 0
	for off < len(body) {
		nl := strings.IndexByte(body[off:], '\n')
		lineEnd := len(body)
		next := len(body)
		if nl >= 0 {
			lineEnd = off + nl
			next = lineEnd + 1
		}
		line := body[off:lineEnd]
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case inFence != "":
			if strings.HasPrefix(trimmed, inFence) {
				inFence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			inFence = trimmed[:3]
		default:
			if m := headingRE.FindStringSubmatch(line); m != nil {
				cur.end = off
				out = append(out, cur)
				level := len(m[1])
				for len(stack) > 0 && stack[len(stack)-1].level >= level {
					stack = stack[:len(stack)-1]
				}
				stack = append(stack, struct {
					level int
					text  string
				}{level, m[2]})
				path := make([]string, len(stack))
				for i, h := range stack {
					path[i] = h.text
				}
				cur = section{path: path, start: next}
			}
		}
		off = next
	}
	cur.end = len(body)
	out = append(out, cur)
	return out
}

// span is a byte range of the body.
type span struct{ start, end int }

// memoCounter remembers the counts of the texts it was asked for. Split counts a section, then
// each of its blocks, lines and sentences that is over budget, and pack counts a chunk's text as
// it nears the budget, before it is emitted, and once more for Chunk.Tokens: without it, the
// tokenizer read 2.3 times the bytes it needed to (148 against 63 MB for a generated corpus of
// 100 000 chunks), as much planning CPU as entity resolution took (docs/performance.md).
// Counts depend on the text only, so equal texts share one entry.
type memoCounter struct {
	inner Counter
	memo  map[string]int
}

func (m *memoCounter) Count(s string) int {
	if n, ok := m.memo[s]; ok {
		return n
	}
	n := m.inner.Count(s)
	m.memo[s] = n
	return n
}

// Split cuts doc into chunks. Chunk ids follow ariadne.ChunkID; positions count from 0.
func (c *Chunker) Split(doc ariadne.Document) []ariadne.Chunk {
	c = &Chunker{opts: c.opts, count: &memoCounter{inner: c.count, memo: map[string]int{}}} // this call's own memo: Split stays safe for concurrent use
	body := doc.Body
	var spans []struct {
		span
		path []string
	}
	for _, sec := range sections(body) {
		s := trimSpan(body, span{sec.start, sec.end})
		if s.start >= s.end {
			continue
		}
		for _, cs := range c.pack(body, c.atoms(body, s, levelBlock)) {
			spans = append(spans, struct {
				span
				path []string
			}{cs, sec.path})
		}
	}
	chunks := make([]ariadne.Chunk, 0, len(spans))
	hash := doc.ContentHash()
	for i, s := range spans {
		text := body[s.start:s.end]
		chunks = append(chunks, ariadne.Chunk{
			ID:         ariadne.ChunkID(doc.ID, i, text),
			DocID:      doc.ID,
			DocVersion: doc.Version,
			DocHash:    hash,
			DocType:    doc.Type,
			Position:   i,
			Title:      doc.Title,
			Heading:    s.path,
			Text:       text,
			Start:      s.start,
			End:        s.end,
			Tokens:     c.count.Count(text),
			Lang:       doc.Lang,
			ACL:        doc.ACL,
			Updated:    doc.Updated,
		})
	}
	return chunks
}

// Split levels, coarsest first.
const (
	levelBlock = iota
	levelLine
	levelSentence
	levelWord
	levelGrapheme
)

// atoms returns the coarsest pieces of s that each fit the budget, in order, trimmed of
// surrounding whitespace. A piece over budget is split at the next finer level.
func (c *Chunker) atoms(body string, s span, level int) []span {
	if c.count.Count(body[s.start:s.end]) <= c.opts.MaxTokens {
		return []span{s}
	}
	var parts []span
	switch level {
	case levelBlock:
		parts = splitBlocks(body, s)
	case levelLine:
		parts = splitLines(body, s)
	case levelSentence:
		parts = splitSentences(body, s)
	case levelWord:
		parts = splitWords(body, s)
	default:
		return c.splitGraphemes(body, s)
	}
	if len(parts) <= 1 {
		return c.atoms(body, s, level+1)
	}
	var out []span
	for _, p := range parts {
		out = append(out, c.atoms(body, p, level+1)...)
	}
	return out
}

// pack greedily groups atoms into chunks of at most MaxTokens, starting each chunk after the first
// with an overlap of at most OverlapTokens taken from the previous chunk's end.
//
// While a chunk grows, its size is estimated as the sum of the counts of its pieces (a BPE count is
// close to additive when pieces are split before whitespace); the exact count of the chunk's text
// is taken when the estimate nears the budget and always before the chunk is emitted, so the
// budget holds exactly.
func (c *Chunker) pack(body string, atoms []span) []span {
	var out []span
	i := 0
	for i < len(atoms) {
		start := atoms[i].start
		if len(out) > 0 && c.opts.OverlapTokens > 0 {
			start = c.overlapStart(body, out[len(out)-1], atoms[i])
		}
		end := atoms[i].end
		est := c.count.Count(body[start:end])
		j := i + 1
		for j < len(atoms) {
			add := c.count.Count(body[end:atoms[j].end])
			if est+add > c.opts.MaxTokens*9/10 {
				exact := c.count.Count(body[start:atoms[j].end])
				if exact > c.opts.MaxTokens {
					break
				}
				est = exact
			} else {
				est += add
			}
			end = atoms[j].end
			j++
		}
		// The estimate can undercount; shed atoms until the exact count fits (the first atom
		// plus the overlap always fits: atoms fit and overlapStart checked the pair).
		for j > i+1 && c.count.Count(body[start:end]) > c.opts.MaxTokens {
			j--
			end = atoms[j-1].end
		}
		out = append(out, span{start, end})
		i = j
	}
	return out
}

// overlapStart picks where the chunk that begins with atom next starts: at the earliest word
// boundary inside prev such that prev's tail from there has at most OverlapTokens tokens and the
// tail plus next fits the budget; or at next itself.
func (c *Chunker) overlapStart(body string, prev, next span) int {
	words := splitWords(body, prev)
	// Walk back from the end, summing each word with the whitespace before it, while the
	// estimate stays within the overlap; then confirm with exact counts, moving forward if needed.
	k := len(words)
	est := 0
	for k > 1 {
		add := c.count.Count(body[words[k-2].end:words[k-1].end])
		if est+add > c.opts.OverlapTokens {
			break
		}
		est += add
		k--
	}
	for ; k < len(words); k++ {
		w := words[k]
		if c.count.Count(body[w.start:prev.end]) <= c.opts.OverlapTokens &&
			c.count.Count(body[w.start:next.end]) <= c.opts.MaxTokens {
			return w.start
		}
	}
	return next.start
}

func trimSpan(body string, s span) span {
	for s.start < s.end && isSpaceByte(body[s.start]) {
		s.start++
	}
	for s.end > s.start && isSpaceByte(body[s.end-1]) {
		s.end--
	}
	return s
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// splitBlocks cuts on blank lines, keeping fenced code blocks whole.
func splitBlocks(body string, s span) []span {
	var out []span
	blockStart := -1
	inFence := ""
	off := s.start
	for off < s.end {
		nl := strings.IndexByte(body[off:s.end], '\n')
		lineEnd, next := s.end, s.end
		if nl >= 0 {
			lineEnd, next = off+nl, off+nl+1
		}
		line := body[off:lineEnd]
		trimmed := strings.TrimSpace(line)
		fenceMark := strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")
		switch {
		case inFence != "":
			if strings.HasPrefix(trimmed, inFence) {
				inFence = ""
			}
		case fenceMark:
			inFence = trimmed[:3]
			if blockStart < 0 {
				blockStart = off
			}
		case trimmed == "":
			if blockStart >= 0 {
				out = append(out, trimSpan(body, span{blockStart, off}))
				blockStart = -1
			}
		default:
			if blockStart < 0 {
				blockStart = off
			}
		}
		off = next
	}
	if blockStart >= 0 {
		out = append(out, trimSpan(body, span{blockStart, s.end}))
	}
	return out
}

func splitLines(body string, s span) []span {
	var out []span
	off := s.start
	for off < s.end {
		nl := strings.IndexByte(body[off:s.end], '\n')
		end := s.end
		if nl >= 0 {
			end = off + nl
		}
		if t := trimSpan(body, span{off, end}); t.start < t.end {
			out = append(out, t)
		}
		off = end + 1
	}
	return out
}

// splitSentences cuts after '.', '!', '?', '…' (and ';') followed by whitespace, keeping the
// punctuation with its sentence. Abbreviation-like cuts ("т. е.") only cost a smaller piece.
func splitSentences(body string, s span) []span {
	var out []span
	start := s.start
	text := body[s.start:s.end]
	runes := []rune(text)
	off := s.start
	for i, r := range runes {
		size := len(string(r))
		if strings.ContainsRune(".!?…;", r) && i+1 < len(runes) && unicode.IsSpace(runes[i+1]) {
			if t := trimSpan(body, span{start, off + size}); t.start < t.end {
				out = append(out, t)
			}
			start = off + size
		}
		off += size
	}
	if t := trimSpan(body, span{start, s.end}); t.start < t.end {
		out = append(out, t)
	}
	return out
}

// splitWords cuts on whitespace.
func splitWords(body string, s span) []span {
	var out []span
	start := -1
	for i, r := range body[s.start:s.end] {
		abs := s.start + i
		if unicode.IsSpace(r) {
			if start >= 0 {
				out = append(out, span{start, abs})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = abs
		}
	}
	if start >= 0 {
		out = append(out, span{start, s.end})
	}
	return out
}

// splitGraphemes cuts a single over-long word into runs of whole grapheme clusters that fit. A
// single cluster over the budget (a long chain of joined emoji) is cut between runes.
func (c *Chunker) splitGraphemes(body string, s span) []span {
	var ends []int
	g := uniseg.NewGraphemes(body[s.start:s.end])
	for g.Next() {
		_, to := g.Positions()
		ends = append(ends, s.start+to)
	}
	return c.fitRuns(body, s.start, ends, c.splitRunes)
}

// splitRunes cuts s into runs of whole runes that fit the budget.
func (c *Chunker) splitRunes(body string, s span) []span {
	var ends []int
	for i := range body[s.start:s.end] {
		if i > 0 {
			ends = append(ends, s.start+i)
		}
	}
	ends = append(ends, s.end)
	return c.fitRuns(body, s.start, ends, func(_ string, one span) []span { return []span{one} })
}

// fitRuns cuts body[start:ends[len(ends)-1]] at the given unit ends (graphemes or runes) into
// runs of whole units, each as long as fits the budget; a unit that alone is over the budget goes
// to tooBig. The longest run that fits is found by galloping and bisection on the unit count —
// O(log n) token counts per run, where adding one unit at a time and recounting the run was
// quadratic in the run's length (seconds for one 4 KB word, hours for an inline base64 image).
// Every run returned by the search is counted exactly, so the budget holds even where the BPE
// count of a prefix is not monotonic.
func (c *Chunker) fitRuns(body string, start int, ends []int, tooBig func(string, span) []span) []span {
	fits := func(from, k int) bool { return c.count.Count(body[from:ends[k]]) <= c.opts.MaxTokens }
	var out []span
	from := start
	for i := 0; i < len(ends); {
		if !fits(from, i) {
			out = append(out, tooBig(body, span{from, ends[i]})...)
			from = ends[i]
			i++
			continue
		}
		// lo fits; hi is the first index known not to fit, or len(ends).
		lo, hi := i, len(ends)
		for step := 1; lo+step < len(ends); step *= 2 {
			if !fits(from, lo+step) {
				hi = lo + step
				break
			}
			lo += step
		}
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if fits(from, mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
		out = append(out, span{from, ends[lo]})
		from = ends[lo]
		i = lo + 1
	}
	return out
}
