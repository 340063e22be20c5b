package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
)

// Grammar compiles a JSON Schema to a GBNF grammar (llama.cpp's grammar format) whose every
// sentence is a JSON document that conforms to the schema. It covers the keywords Ariadne's
// schemas use — type (or a list of types), properties, required, items, minItems, enum, const,
// anyOf/oneOf — and rejects $ref and the rest it cannot enforce with ErrInvalid. Every
// property is emitted, required ones first (in the order of required), then the others in
// document order; additional properties are never emitted. Whitespace between tokens is bounded
// so that a small model cannot pad forever.
func Grammar(schema json.RawMessage) (string, error) {
	g := &gbnf{rules: map[string]string{}}
	root, err := g.node(schema, "root")
	if err != nil {
		return "", fmt.Errorf("llm: grammar from schema: %v: %w", err, ariadne.ErrInvalid)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "root ::= %s\n", root)
	names := make([]string, 0, len(g.rules))
	for n := range g.rules {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s ::= %s\n", n, g.rules[n])
	}
	b.WriteString(gbnfPrimitives)
	return b.String(), nil
}

const gbnfPrimitives = `ws ::= | " " | "\n" [ \t]{0,20}
string ::= "\"" char* "\"" ws
char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})
integer ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ws
number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9]+)? ws
boolean ::= ("true" | "false") ws
null ::= "null" ws
value ::= object | array | string | number | boolean | null
object ::= "{" ws (string ":" ws value ("," ws string ":" ws value)*)? "}" ws
array ::= "[" ws (value ("," ws value)*)? "]" ws
`

type gbnf struct {
	rules map[string]string
	n     int
}

// rule adds a named rule and returns its name.
func (g *gbnf) rule(hint, body string) string {
	g.n++
	name := fmt.Sprintf("%s-%d", sanitizeRuleName(hint), g.n)
	g.rules[name] = body
	return name
}

func sanitizeRuleName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "r"
	}
	return strings.ToLower(b.String())
}

// literal is a GBNF string literal of a JSON value's encoding, followed by whitespace.
func literal(v json.RawMessage) (string, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, v); err != nil {
		return "", err
	}
	return strconv.Quote(compact.String()) + " ws", nil
}

type schemaNode struct {
	Type       json.RawMessage   `json:"type"`
	Properties json.RawMessage   `json:"properties"`
	Required   []string          `json:"required"`
	Items      json.RawMessage   `json:"items"`
	MinItems   int               `json:"minItems"`
	Enum       []json.RawMessage `json:"enum"`
	Const      json.RawMessage   `json:"const"`
	AnyOf      []json.RawMessage `json:"anyOf"`
	OneOf      []json.RawMessage `json:"oneOf"`
	Ref        string            `json:"$ref"`
}

// node returns a GBNF expression for the schema.
func (g *gbnf) node(raw json.RawMessage, hint string) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "true" || string(raw) == "{}" {
		return "value", nil
	}
	var s schemaNode
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s: %v", hint, err)
	}
	switch {
	case s.Ref != "":
		return "", fmt.Errorf("%s: $ref is not supported", hint)
	case len(s.Const) > 0:
		return literal(s.Const)
	case len(s.Enum) > 0:
		alts := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			lit, err := literal(v)
			if err != nil {
				return "", fmt.Errorf("%s: enum: %v", hint, err)
			}
			alts[i] = lit
		}
		return g.rule(hint, strings.Join(alts, " | ")), nil
	case len(s.AnyOf) > 0 || len(s.OneOf) > 0:
		alts := []string{}
		for i, sub := range append(s.AnyOf, s.OneOf...) {
			e, err := g.node(sub, fmt.Sprintf("%s-alt%d", hint, i))
			if err != nil {
				return "", err
			}
			alts = append(alts, e)
		}
		return g.rule(hint, strings.Join(alts, " | ")), nil
	}
	var types []string
	if len(s.Type) > 0 {
		var one string
		if err := json.Unmarshal(s.Type, &one); err == nil {
			types = []string{one}
		} else if err := json.Unmarshal(s.Type, &types); err != nil {
			return "", fmt.Errorf("%s: type: %v", hint, err)
		}
	} else if len(s.Properties) > 0 {
		types = []string{"object"}
	} else if len(s.Items) > 0 {
		types = []string{"array"}
	} else {
		return "value", nil
	}
	alts := make([]string, 0, len(types))
	for _, t := range types {
		e, err := g.typed(t, s, hint)
		if err != nil {
			return "", err
		}
		alts = append(alts, e)
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return g.rule(hint, strings.Join(alts, " | ")), nil
}

func (g *gbnf) typed(t string, s schemaNode, hint string) (string, error) {
	switch t {
	case "string", "integer", "number", "boolean", "null":
		return t, nil
	case "array":
		item := "value"
		if len(s.Items) > 0 {
			var err error
			if item, err = g.node(s.Items, hint+"-item"); err != nil {
				return "", err
			}
		}
		if s.MinItems > 0 {
			head := strings.Repeat(item+` "," ws `, s.MinItems-1) + item
			return g.rule(hint, fmt.Sprintf(`"[" ws %s ("," ws %s)* "]" ws`, head, item)), nil
		}
		return g.rule(hint, fmt.Sprintf(`"[" ws (%s ("," ws %s)*)? "]" ws`, item, item)), nil
	case "object":
		keys, props, err := orderedProperties(s.Properties, s.Required)
		if err != nil {
			return "", fmt.Errorf("%s: properties: %v", hint, err)
		}
		if len(keys) == 0 {
			return "object", nil
		}
		parts := make([]string, len(keys))
		for i, k := range keys {
			v, err := g.node(props[k], hint+"-"+k)
			if err != nil {
				return "", err
			}
			kl, _ := json.Marshal(k)
			parts[i] = strconv.Quote(string(kl)) + ` ws ":" ws ` + v
		}
		return g.rule(hint, `"{" ws `+strings.Join(parts, ` "," ws `)+` "}" ws`), nil
	}
	return "", fmt.Errorf("%s: unsupported type %q", hint, t)
}

// orderedProperties returns the property names, required ones first in the order of required,
// then the rest in document order, and each property's schema.
func orderedProperties(raw json.RawMessage, required []string) ([]string, map[string]json.RawMessage, error) {
	props := map[string]json.RawMessage{}
	var order []string
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return nil, nil, fmt.Errorf("not an object")
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, nil, err
			}
			key, _ := tok.(string)
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return nil, nil, err
			}
			if _, dup := props[key]; !dup {
				order = append(order, key)
			}
			props[key] = v
		}
	}
	keys := make([]string, 0, len(order))
	seen := map[string]bool{}
	for _, k := range required {
		if _, ok := props[k]; !ok {
			props[k] = nil // required but undescribed: any value
		}
		if !seen[k] {
			keys = append(keys, k)
			seen[k] = true
		}
	}
	for _, k := range order {
		if !seen[k] {
			keys = append(keys, k)
			seen[k] = true
		}
	}
	return keys, props, nil
}
