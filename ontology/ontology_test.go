package ontology

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func TestDefaultParses(t *testing.T) {
	o, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		subj, obj, want string
		inverse         bool
	}{
		{"project", "client", "FOR_CLIENT", false},
		{"project", "technology", "USES", false},
		{"person", "team", "MEMBER_OF", false},
		{"incident", "project", "AFFECTS", false},
		{"meeting", "technology", "DISCUSSES", false}, // subject default
		{"technology", "client", "RELATED_TO", false}, // global default
		// pages whose subject is the relation's object: the edge points at the subject
		{"technology", "team", "OWNS", true},         // (team)-[:OWNS]->(technology)
		{"runbook", "team", "OWNS", true},            // (team)-[:OWNS]->(runbook)
		{"technology", "incident", "INVOLVES", true}, // (incident)-[:INVOLVES]->(technology)
		{"person", "incident", "HANDLED_BY", true},   // (incident)-[:HANDLED_BY]->(person)
		{"project", "incident", "AFFECTS", true},     // (incident)-[:AFFECTS]->(project)
	}
	for _, tc := range tests {
		if got, inv := o.RelationDir(tc.subj, tc.obj); got != tc.want || inv != tc.inverse {
			t.Errorf("RelationDir(%s, %s) = %s, %v; want %s, %v", tc.subj, tc.obj, got, inv, tc.want, tc.inverse)
		}
	}
	if got := o.EntityTypeOfDocument("Meeting-Notes"); got != "meeting" {
		t.Errorf("EntityTypeOfDocument(meeting-notes) = %q", got)
	}
	if l, err := o.Label("client"); err != nil || l != "Client" {
		t.Errorf("Label(client) = %q, %v", l, err)
	}
	if _, err := o.Label("Client) DETACH DELETE (n"); !errors.Is(err, ariadne.ErrInvalid) {
		t.Errorf("Label accepted an injection: %v", err)
	}
	if !slices.Contains(o.RelationTypeNames(), "USES") {
		t.Error("USES missing from RelationTypeNames")
	}
}

func TestNormalizeRelation(t *testing.T) {
	o, _ := Default()
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"uses", "USES", true},
		{"works for", "MEMBER_OF", true},
		{"caused-by", "INVOLVES", true},
		{"]->(x) DETACH DELETE x //", "", false},
		{"LIKES", "", false},
	}
	for _, tc := range tests {
		got, ok := o.NormalizeRelation(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("NormalizeRelation(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseRejectsBadSchemas(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"entity_types: {x: {label: 'Bad Label'}}\nrelation_types: {R: r}\ndefault_relation: R", "not an identifier"},
		{"entity_types: {x: {label: X}}\nrelation_types: {lower: r}\ndefault_relation: lower", "UPPER_CASE"},
		{"entity_types: {x: {label: X}}\nrelation_types: {R: r}\nrelation_rules: {x: {y: R}}\ndefault_relation: R", "unknown object type"},
		{"entity_types: {x: {label: X}}\nrelation_types: {R: r}\ndefault_relation: NOPE", "unknown relationship type"},
		{"entity_types: [", "invalid input"},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.yaml))
		if err == nil || !errors.Is(err, ariadne.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) err = %v, want ErrInvalid containing %q", tc.yaml, err, tc.want)
		}
	}
}

func TestEntityTypeOfNER(t *testing.T) {
	o, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ label, source, want string }{
		{"PER", "PERSON", "person"},
		{"PER", "", "person"},
		{"ORG", "ORG", "organization"},
		{"LOC", "GPE", "location"},
		{"LOC", "FAC", "location"},
		{"MISC", "WORK_OF_ART", "topic"},
		{"MISC", "NORP", ""},     // mapped to "": dropped
		{"MISC", "LANGUAGE", ""}, // likewise
		{"DATE", "DATE", ""},     // not listed
	}
	for _, tc := range tests {
		if got := o.EntityTypeOfNER(tc.label, tc.source); got != tc.want {
			t.Errorf("EntityTypeOfNER(%s, %s) = %q, want %q", tc.label, tc.source, got, tc.want)
		}
	}
	if _, err := Parse([]byte("entity_types: {person: {label: Person}}\nrelation_types: {RELATED_TO: x}\ndefault_relation: RELATED_TO\nner_types: {PER: human}\n")); !errors.Is(err, ariadne.ErrInvalid) {
		t.Errorf("ner_types naming an unknown entity type was accepted: %v", err)
	}
}

// TestEntityTypeOfDocument: a listed type gives its entity type, an untyped one (a note, an
// email) and no type give none, and any other type — a kind of thing the ontology does not know
// — gives other_document_type, whose "" reads such pages as untyped.
func TestEntityTypeOfDocument(t *testing.T) {
	o, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for docType, want := range map[string]string{"person": "person", "Employee": "person", "note": "", "Email": "", "": "",
		"warehouse": "topic", " Carrier ": "topic"} {
		if got := o.EntityTypeOfDocument(docType); got != want {
			t.Errorf("EntityTypeOfDocument(%q) = %q, want %q", docType, got, want)
		}
	}
	if !o.ListsDocumentType("note") || !o.ListsDocumentType("client") || o.ListsDocumentType("warehouse") {
		t.Errorf("ListsDocumentType: note, client listed; warehouse not")
	}
	bare, err := Parse([]byte("entity_types: {topic: {label: Topic}}\ndocument_types: {page: topic}\ndefault_relation: RELATED_TO\nrelation_types: {RELATED_TO: x}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := bare.EntityTypeOfDocument("warehouse"); got != "" {
		t.Errorf("without other_document_type: %q, want none", got)
	}
	if _, err := Parse([]byte("entity_types: {topic: {label: Topic}}\nother_document_type: thing\ndefault_relation: RELATED_TO\nrelation_types: {RELATED_TO: x}\n")); err == nil {
		t.Errorf("an unknown other_document_type parsed")
	}
}
