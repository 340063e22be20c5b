package agent

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Failure is one citation or claim that verification rejected.
type Failure struct {
	Level   int    `json:"level"` // 1: id/number, 2: quote, 3: support
	Claim   int    `json:"claim"` // 1-based
	ChunkID string `json:"chunk_id,omitempty"`
	Reason  string `json:"reason"`
}

// Judge decides whether a quote supports a claim (level 3).
type Judge interface {
	Supports(ctx context.Context, claim, quote string) (bool, string, error)
}

// Verified is the outcome of verifying an answer: the claims that survived with their verified
// citations (offsets set), and every failure.
type Verified struct {
	Claims   []ariadne.Claim
	Failures []Failure
}

// Verify checks every citation of an answer against the fragments of the prompt:
//
//	level 1: the fragment number is in range and the chunk id is the one that fragment carried
//	         (either may be given alone; given both, they must agree);
//	level 2: the quote, after normalization (textnorm.Fold: NFKC, case, whitespace, «»“”"' quotes,
//	         ё/е, dashes), is a substring of that chunk's text; its byte offsets in the chunk text
//	         are recorded; quotes shorter than MinQuoteRunes are rejected;
//	level 3: when judge is not nil, the judge agrees that the quote supports the claim.
//
// A citation that fails is dropped; a claim left without citations is dropped.
func Verify(ctx context.Context, out Output, frags []Fragment, judge Judge) (Verified, error) {
	var v Verified
	byID := map[string]Fragment{}
	for _, f := range frags {
		byID[f.Chunk.ID] = f
	}
	for ci, c := range out.Claims {
		claim := ariadne.Claim{Text: strings.TrimSpace(c.Text)}
		for _, cit := range c.Citations {
			fail := func(level int, reason string) {
				v.Failures = append(v.Failures, Failure{Level: level, Claim: ci + 1, ChunkID: cit.ChunkID, Reason: reason})
			}
			var f Fragment
			switch {
			case cit.Fragment != 0 && (cit.Fragment < 1 || cit.Fragment > len(frags)):
				fail(1, fmt.Sprintf("fragment %d is out of range 1..%d", cit.Fragment, len(frags)))
				continue
			case cit.Fragment != 0:
				f = frags[cit.Fragment-1]
				if cit.ChunkID != "" && cit.ChunkID != f.Chunk.ID {
					fail(1, fmt.Sprintf("fragment %d is chunk %s, not %s", cit.Fragment, f.Chunk.ID, cit.ChunkID))
					continue
				}
			default:
				var ok bool
				if f, ok = byID[cit.ChunkID]; !ok {
					fail(1, fmt.Sprintf("chunk %q was not in the prompt", cit.ChunkID))
					continue
				}
			}
			quote := strings.TrimSpace(cit.Quote)
			if utf8.RuneCountInString(textnorm.FoldString(quote)) < MinQuoteRunes {
				fail(2, fmt.Sprintf("quote %q is shorter than %d characters", quote, MinQuoteRunes))
				continue
			}
			start, end, ok := textnorm.Index(f.Chunk.Text, quote)
			if !ok {
				fail(2, fmt.Sprintf("quote %q is not in chunk %s", truncate(quote, 80), f.Chunk.ID))
				continue
			}
			if judge != nil {
				ok, why, err := judge.Supports(ctx, claim.Text, f.Chunk.Text[start:end])
				if err != nil {
					return v, fmt.Errorf("agent: judge: %w", err)
				}
				if !ok {
					fail(3, "the judge found the quote does not support the claim: "+why)
					continue
				}
			}
			claim.Citations = append(claim.Citations, ariadne.Citation{ChunkID: f.Chunk.ID, DocID: f.Chunk.DocID,
				Title: f.Chunk.Title, Quote: f.Chunk.Text[start:end], Start: start, End: end, Verified: true})
		}
		if len(claim.Citations) > 0 {
			v.Claims = append(v.Claims, claim)
		}
	}
	return v, nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
