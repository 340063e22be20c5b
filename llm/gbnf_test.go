package llm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func TestGrammarFromSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","additionalProperties":false,"required":["status","claims"],
"properties":{"claims":{"type":"array","items":{"type":"object","required":["text","citations"],
"properties":{"text":{"type":"string"},"citations":{"type":"array","minItems":1,"items":{"type":"object",
"required":["fragment","quote"],"properties":{"fragment":{"type":"integer"},"quote":{"type":"string"}}}}}}},
"status":{"type":"string","enum":["answer","not_found"]},"score":{"type":["number","null"]},"ok":{"type":"boolean"},"kind":{"const":"x"}}}`)
	g, err := Grammar(schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`root ::= root-`,
		// required properties first, in the order of required, then the others in document order
		`"\"status\"" ws ":" ws root-status-1 "," ws "\"claims\""`,
		`"\"answer\"" ws | "\"not_found\"" ws`,
		`citations-3 ::= "[" ws root-claims-item-citations-item-2 ("," ws`, // minItems 1: no empty list
		`number | null`,
		`"\"kind\"" ws ":" ws "\"x\"" ws`,
		`string ::= `, `integer ::= `, `boolean ::= `,
	} {
		if !strings.Contains(g, want) {
			t.Errorf("grammar lacks %q:\n%s", want, g)
		}
	}
	// Every rule referenced is defined.
	defined := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(g), "\n") {
		name, _, ok := strings.Cut(line, " ::= ")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		defined[name] = true
	}
	for _, line := range strings.Split(strings.TrimSpace(g), "\n") {
		_, body, _ := strings.Cut(line, " ::= ")
		for _, tok := range strings.Fields(body) {
			tok = strings.Trim(tok, "()*?+|")
			if tok == "" || strings.ContainsAny(tok[:1], `"[\`) || strings.HasPrefix(tok, "{") {
				continue
			}
			if !defined[tok] && strings.Trim(tok, "abcdefghijklmnopqrstuvwxyz0123456789-") == "" {
				t.Errorf("rule %q used but not defined", tok)
			}
		}
	}
	if _, err := Grammar(json.RawMessage(`{"$ref":"#/defs/x"}`)); !errors.Is(err, ariadne.ErrInvalid) {
		t.Errorf("$ref: %v", err)
	}
	if _, err := Grammar(json.RawMessage(`{"type":"tuple"}`)); !errors.Is(err, ariadne.ErrInvalid) {
		t.Errorf("unknown type: %v", err)
	}
}
