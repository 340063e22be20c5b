package agent

import (
	"context"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/llm"
)

// Generator writes an answer from numbered fragments, in the answer contract (see ParseOutput).
type Generator interface {
	Name() string
	Generate(ctx context.Context, in GenerationInput) (string, error)
}

// GenerationInput is what a generator answers from.
type GenerationInput struct {
	Question  string
	Fragments []Fragment
	Route     ariadne.Route // how the evidence was retrieved; a multi-hop answer spans fragments
}

// LLMGenerator generates with a chat model.
type LLMGenerator struct{ Model ChatModel }

// Name is "llm:<model>".
func (g LLMGenerator) Name() string { return "llm:" + g.Model.Name() }

// Generate sends the prompt (BuildPrompt) with the answer JSON schema at temperature 0.
func (g LLMGenerator) Generate(ctx context.Context, in GenerationInput) (string, error) {
	return g.Model.Chat(ctx, llm.Request{Messages: BuildPrompt(in.Question, in.Fragments),
		JSON: &llm.Schema{Name: "cited_answer", Schema: answerSchema}})
}
