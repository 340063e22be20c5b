package agent

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/llm"
)

// FuzzParseOutput feeds arbitrary generator output to ParseOutput and checks its contract:
//
//   - it never panics and is deterministic;
//   - it returns exactly one state — a refusal (NotFound, no claims) or an answer (claims) — or an
//     error wrapping ErrInvalidOutput with a zero Output;
//   - every returned claim has non-blank text that does not say NOT_FOUND, and at least one
//     citation;
//   - an accepted answer survives a round trip: the claims written back as the JSON the
//     generator is asked for parse to the same claims.
func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{
		ariadne.NotFoundMarker,
		"  " + ariadne.NotFoundMarker + "\n",
		"```\n" + ariadne.NotFoundMarker + "\n```",
		`{"status":"not_found","claims":[]}`,
		`{"status":"answer","claims":[{"text":"Отпуск — 28 дней.","citations":[{"fragment":1,"chunk_id":"policies/vacation#0000-1a2b3c4d","quote":"28 календарных дней"}]}]}`,
		"```json\n{\"status\":\"answer\",\"claims\":[{\"text\":\"x\",\"citations\":[{\"fragment\":2,\"chunk_id\":\"\",\"quote\":\"q\"}]}]}\n```",
		`{"status":"answer","claims":[]}`,
		`{"status":"answer","claims":[{"text":"  ","citations":[{"fragment":1}]}]}`,
		`{"status":"answer","claims":[{"text":"t","citations":[]}]}`,
		`{"status":"answer","claims":[{"text":"NOT_FOUND really","citations":[{"fragment":1}]}]}`,
		`{"status":"not_found","claims":[{"text":"t","citations":[{"fragment":1}]}]}`,
		`{"status":"answer","claims":[{"text":"t","citations":[null]}]} trailing`,
		`{"status":"answer","claims":[{"text":"t","citations":[{"fragment":1}]}]}{"status":"not_found"}`,
		`{"status":"answer","status":"not_found","claims":null}`,
		`{"Status":"answer","CLAIMS":[{"Text":"t","Citations":[{"Fragment":1}]}]}`,
		`{"status":"answer","extra":1}`,
		`NOT_FOUND {"status":"answer"}`,
		`null`,
		`[]`,
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		out, err := ParseOutput(raw)
		again, err2 := ParseOutput(raw)
		if !reflect.DeepEqual(out, again) || (err == nil) != (err2 == nil) {
			t.Fatalf("ParseOutput is not deterministic on %q", raw)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidOutput) {
				t.Fatalf("error %v does not wrap ErrInvalidOutput", err)
			}
			if out.NotFound || out.Claims != nil {
				t.Fatalf("an error (%v) and an output %+v", err, out)
			}
			return
		}
		if out.NotFound == (len(out.Claims) > 0) {
			t.Fatalf("not exactly one state: NotFound=%v with %d claims, from %q", out.NotFound, len(out.Claims), raw)
		}
		if out.NotFound {
			return
		}
		for i, c := range out.Claims {
			if strings.TrimSpace(c.Text) == "" || len(c.Citations) == 0 || strings.Contains(c.Text, ariadne.NotFoundMarker) {
				t.Fatalf("claim %d %+v: blank text, no citation or NOT_FOUND, from %q", i, c, raw)
			}
		}
		js, err := json.Marshal(map[string]any{"status": "answer", "claims": out.Claims})
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseOutput(string(js))
		if err != nil || !reflect.DeepEqual(back, out) {
			t.Fatalf("round trip of %q: %+v, %v; want %+v", js, back, err, out)
		}
	})
}

// FuzzRoute routes arbitrary questions, with arbitrary linked entities (one per line of linked:
// "type\tsurface\tname"), and checks the router's contract:
//
//   - RuleRouter.Route returns a valid route, classifier "rules" and non-empty reasons, and the
//     route follows the documented rule from the features: multi-hop weight >= 3 → multi_hop,
//     else any lexical signal → hybrid, else simple;
//   - Features is deterministic, its values are positive, and the decision carries exactly
//     Features(question, linked);
//   - LLMRouter, whatever the model answers (here the fuzzed text, or an error), returns a valid
//     route and at least one reason, and falls back to the rules unless the answer names a route.
func FuzzRoute(f *testing.F) {
	f.Add("Сколько дней отпуска положено по закону?", "")
	f.Add("Что означает ошибка E-7001 в DOG-2031-042?", "")
	f.Add("как настроить впн дома?", "")
	f.Add("Какой таймаут у `gateway-api` и default_pool_size в 2.4.0?", "component\tgateway-api\tgateway-api")
	f.Add("Где хранятся логи кликхауса?", "technology\tкликхауса\tClickHouse")
	f.Add("Кто руководит командой, которая отвечает за биллинг?", "team\tбиллинг\tBilling\nperson\tАнна\tАнна Светлова")
	f.Add("Our billing stopped after the upgrade. Who approved the upgrade?", "")
	f.Add("Who is the spouse of the director of Night Train's studio?", "")
	f.Add("Какая команда выпустила релиз и кто руководит этой командой?", "")
	f.Add("   \t\n", "")
	f.Add("\xff\xfe sv-tokenguard", "component\tsv-tokenguard\tsv-tokenguard")
	f.Fuzz(func(t *testing.T, question, linkedSpec string) {
		var linked []Linked
		for line := range strings.SplitSeq(linkedSpec, "\n") {
			if len(linked) == 8 {
				break
			}
			p := strings.SplitN(line, "\t", 3)
			if len(p) < 3 {
				continue
			}
			linked = append(linked, Linked{Key: p[2], Type: p[0], Surface: p[1], Name: p[2], LatinName: !hasCyrillic(p[2])})
		}
		ctx := context.Background()
		feats := Features(question, linked)
		if again := Features(question, linked); !reflect.DeepEqual(feats, again) {
			t.Fatalf("Features not deterministic: %v vs %v", feats, again)
		}
		for k, v := range feats {
			if v <= 0 {
				t.Fatalf("feature %s = %d", k, v)
			}
		}
		d := RuleRouter{}.Route(ctx, question, linked)
		if !d.Route.Valid() || d.Classifier != "rules" || len(d.Reasons) == 0 {
			t.Fatalf("Route(%q) = %+v: invalid route, classifier or no reasons", question, d)
		}
		for _, r := range d.Reasons {
			if strings.TrimSpace(r) == "" {
				t.Fatalf("Route(%q): blank reason in %q", question, d.Reasons)
			}
		}
		if !reflect.DeepEqual(d.Features, feats) {
			t.Fatalf("decision features %v, Features %v", d.Features, feats)
		}
		mh := feats["relative_clause"] + feats["nested_relation"] + feats["scenario_then_question"] +
			feats["subordinate_clause"] + feats["anaphoric_second_question"] + feats["linked_entity_types"]
		lex := feats["codes"] + feats["technical_identifiers"] + feats["cyrillic_acronym"] + feats["cross_script_term"]
		want := ariadne.RouteSimple
		switch {
		case mh >= 3:
			want = ariadne.RouteMultiHop
		case lex > 0:
			want = ariadne.RouteHybrid
		}
		if d.Route != want {
			t.Fatalf("Route(%q) = %s, but features %v (multi-hop %d, lexical %d) mean %s", question, d.Route, feats, mh, lex, want)
		}
		if again := (RuleRouter{}).Route(ctx, question, linked); !reflect.DeepEqual(d, again) {
			t.Fatalf("Route not deterministic: %+v vs %+v", d, again)
		}

		for _, model := range []fuzzChat{{out: question}, {err: errors.New("down")}} {
			ld := LLMRouter{Model: model}.Route(ctx, question, linked)
			if !ld.Route.Valid() || len(ld.Reasons) == 0 {
				t.Fatalf("LLMRouter with model output %q: %+v", model.out, ld)
			}
			var parsed struct {
				Route string `json:"route"`
			}
			named := model.err == nil && json.Unmarshal([]byte(strings.TrimSpace(model.out)), &parsed) == nil &&
				ariadne.Route(parsed.Route).Valid()
			if named != (ld.Classifier == "llm:fuzz") || !named && ld.Route != d.Route {
				t.Fatalf("LLMRouter with model output %q: %+v; rules say %s", model.out, ld, d.Route)
			}
		}
	})
}

// fuzzChat is a chat model that answers every request with out, or fails with err.
type fuzzChat struct {
	out string
	err error
}

func (fuzzChat) Name() string { return "fuzz" }

func (m fuzzChat) Chat(context.Context, llm.Request) (string, error) { return m.out, m.err }
