// Package ontology is the schema of Ariadne's graph: which entity types and relationship types
// exist, which Neo4j label each entity type has, which entity type a document of a given front
// matter `type` describes, and which relationship type connects a pair of entity types.
//
// It is loaded from YAML (default.yaml is compiled in; see Load for a custom file). It is the only
// source of labels and relationship types that reach Cypher: Label and Relation reject anything
// else, so a model's made-up type can never be spliced into a statement.
package ontology

import (
	_ "embed"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ariadne-graphrag/ariadne"
)

//go:embed default.yaml
var defaultYAML []byte

// EntityType describes one entity type.
type EntityType struct {
	Label       string `yaml:"label"` // Neo4j label, e.g. "Client"
	Description string `yaml:"description"`
}

// Ontology is a parsed schema file. It is immutable after Load.
type Ontology struct {
	EntityTypes   map[string]EntityType `yaml:"entity_types"`
	DocumentTypes map[string]string     `yaml:"document_types"`
	// UntypedDocumentTypes are front matter types of documents that describe no one thing (a
	// note, a letter, a report): read as untyped. OtherDocumentType is the entity type of what a
	// page of any type listed in neither describes ("warehouse", "vehicle"); "" reads such pages
	// as untyped too. See EntityTypeOfDocument.
	UntypedDocumentTypes []string                     `yaml:"untyped_document_types"`
	OtherDocumentType    string                       `yaml:"other_document_type"`
	RelationTypes        map[string]string            `yaml:"relation_types"`
	RelationRules        map[string]map[string]string `yaml:"relation_rules"`
	DefaultBySubject     map[string]string            `yaml:"default_relation_by_subject"`
	DefaultRelation      string                       `yaml:"default_relation"`
	RelationAliases      map[string]string            `yaml:"relation_aliases"`
	AliasCues            []string                     `yaml:"alias_cues"`
	Nicknames            map[string][]string          `yaml:"nicknames"`
	NERTypes             map[string]string            `yaml:"ner_types"`
	// NEROneWordPerson is the entity type of a name recognition calls a person only ever in one
	// word ("Redis", «Квиллмор»): "" keeps it a person. See ner_one_word_person in default.yaml.
	NEROneWordPerson  string `yaml:"ner_one_word_person"`
	allowedLabels     map[string]bool
	allowedRelations  map[string]bool
	sortedRelations   []string
	sortedEntityTypes []string
}

// identRE is what a label or relationship type must look like even when it is on the list.
var identRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// Default returns the compiled-in ontology (default.yaml). Its error is nil unless the binary was
// built with an invalid default.yaml, which TestDefaultParses prevents.
func Default() (*Ontology, error) { return Parse(defaultYAML) }

// Load reads an ontology file; path "" means Default.
func Load(path string) (*Ontology, error) {
	if path == "" {
		return Default()
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ontology: %w", err)
	}
	return Parse(raw)
}

// Parse parses and validates an ontology. Every label and relationship type must be an
// identifier; every rule must name known types. The error wraps ariadne.ErrInvalid.
func Parse(raw []byte) (*Ontology, error) {
	var o Ontology
	if err := yaml.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("ontology: %w: %v", ariadne.ErrInvalid, err)
	}
	var errs []string
	o.allowedLabels = map[string]bool{}
	for name, et := range o.EntityTypes {
		if !identRE.MatchString(et.Label) {
			errs = append(errs, fmt.Sprintf("entity type %q: label %q is not an identifier", name, et.Label))
		}
		o.allowedLabels[et.Label] = true
		o.sortedEntityTypes = append(o.sortedEntityTypes, name)
	}
	o.allowedRelations = map[string]bool{}
	for rel := range o.RelationTypes {
		if !identRE.MatchString(rel) || strings.ToUpper(rel) != rel {
			errs = append(errs, fmt.Sprintf("relationship type %q must be an UPPER_CASE identifier", rel))
		}
		o.allowedRelations[rel] = true
		o.sortedRelations = append(o.sortedRelations, rel)
	}
	for doc, et := range o.DocumentTypes {
		if _, ok := o.EntityTypes[et]; !ok {
			errs = append(errs, fmt.Sprintf("document type %q maps to unknown entity type %q", doc, et))
		}
	}
	if _, ok := o.EntityTypes[o.OtherDocumentType]; o.OtherDocumentType != "" && !ok {
		errs = append(errs, fmt.Sprintf("other_document_type: unknown entity type %q", o.OtherDocumentType))
	}
	for _, t := range o.UntypedDocumentTypes {
		if _, ok := o.DocumentTypes[strings.ToLower(t)]; ok {
			errs = append(errs, fmt.Sprintf("untyped_document_types: %q is also in document_types", t))
		}
	}
	checkRel := func(where, rel string) {
		if !o.allowedRelations[rel] {
			errs = append(errs, fmt.Sprintf("%s: unknown relationship type %q", where, rel))
		}
	}
	for subj, objs := range o.RelationRules {
		if _, ok := o.EntityTypes[subj]; !ok {
			errs = append(errs, fmt.Sprintf("relation_rules: unknown subject type %q", subj))
		}
		for obj, rel := range objs {
			if _, ok := o.EntityTypes[obj]; !ok {
				errs = append(errs, fmt.Sprintf("relation_rules.%s: unknown object type %q", subj, obj))
			}
			checkRel("relation_rules."+subj+"."+obj, strings.TrimPrefix(rel, "<"))
		}
	}
	for subj, rel := range o.DefaultBySubject {
		checkRel("default_relation_by_subject."+subj, rel)
	}
	checkRel("default_relation", o.DefaultRelation)
	for label, et := range o.NERTypes {
		if _, ok := o.EntityTypes[et]; et != "" && !ok {
			errs = append(errs, fmt.Sprintf("ner_types: label %q maps to unknown entity type %q", label, et))
		}
	}
	if _, ok := o.EntityTypes[o.NEROneWordPerson]; o.NEROneWordPerson != "" && !ok {
		errs = append(errs, fmt.Sprintf("ner_one_word_person: unknown entity type %q", o.NEROneWordPerson))
	}
	for from, to := range o.RelationAliases {
		checkRel("relation_aliases."+from, to)
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return nil, fmt.Errorf("ontology: %w: %s", ariadne.ErrInvalid, strings.Join(errs, "; "))
	}
	sort.Strings(o.sortedRelations)
	sort.Strings(o.sortedEntityTypes)
	return &o, nil
}

// EntityTypeOfDocument returns the entity type a document of front matter type docType describes,
// or "" when documents of that type do not describe an entity: no type, or one of
// untyped_document_types. A type listed in neither document_types nor untyped_document_types
// describes an entity of other_document_type: a user's page of a kind the ontology does not
// know ("warehouse") still names its thing by its title and aliases (outside tester, stop 58:
// such pages' aliases were dropped and questions naming them linked to nothing).
func (o *Ontology) EntityTypeOfDocument(docType string) string {
	t := strings.ToLower(strings.TrimSpace(docType))
	if t == "" || slices.Contains(o.UntypedDocumentTypes, t) {
		return ""
	}
	if et, ok := o.DocumentTypes[t]; ok {
		return et
	}
	return o.OtherDocumentType
}

// ListsDocumentType reports whether docType is one of document_types or untyped_document_types:
// any other is read by other_document_type (cmd/extract names such types, since a typo such as
// "persn" lands there).
func (o *Ontology) ListsDocumentType(docType string) bool {
	t := strings.ToLower(strings.TrimSpace(docType))
	_, ok := o.DocumentTypes[t]
	return ok || slices.Contains(o.UntypedDocumentTypes, t)
}

// EntityTypeOfNER returns the entity type of a mention entity recognition labelled sourceLabel
// (the model's own label, e.g. spaCy's "GPE"; may be "") and label (the coarse PER, ORG, LOC or
// MISC), from ner_types: the source label first, then the coarse one. "" means the mention is
// dropped (the label is mapped to "" or not listed).
func (o *Ontology) EntityTypeOfNER(label, sourceLabel string) string {
	if sourceLabel != "" {
		if et, ok := o.NERTypes[sourceLabel]; ok {
			return et
		}
	}
	return o.NERTypes[label]
}

// HasEntityType reports whether t is a known entity type.
func (o *Ontology) HasEntityType(t string) bool { _, ok := o.EntityTypes[t]; return ok }

// EntityTypeNames returns the entity type names, sorted.
func (o *Ontology) EntityTypeNames() []string { return slices.Clone(o.sortedEntityTypes) }

// RelationTypeNames returns the allowed relationship types, sorted.
func (o *Ontology) RelationTypeNames() []string { return slices.Clone(o.sortedRelations) }

// Label returns the Neo4j label of an entity type. It fails for unknown types, so only labels
// from the ontology reach Cypher.
func (o *Ontology) Label(entityType string) (string, error) {
	et, ok := o.EntityTypes[entityType]
	if !ok || !o.allowedLabels[et.Label] || !identRE.MatchString(et.Label) {
		return "", fmt.Errorf("ontology: unknown entity type %q: %w", entityType, ariadne.ErrInvalid)
	}
	return et.Label, nil
}

// RelationDir returns the relationship type that connects a subject of type subj to an object
// of type obj — the rule for the pair, else the subject's default, else the global default — and
// whether it points from the object to the subject: a rule written "<OWNS" under technology.team
// says that a technology page naming a team states (team)-[:OWNS]->(technology), the direction
// the relation type means, as the team's own page does.
func (o *Ontology) RelationDir(subj, obj string) (rel string, inverse bool) {
	if rel, ok := o.RelationRules[subj][obj]; ok {
		if r, inv := strings.CutPrefix(rel, "<"); inv {
			return r, true
		}
		return rel, false
	}
	if rel, ok := o.DefaultBySubject[subj]; ok {
		return rel, false
	}
	return o.DefaultRelation, false
}

// NormalizeRelation maps a relationship name proposed by a model to an allowed type: upper-cased
// with spaces and dashes as underscores, then looked up directly or through relation_aliases.
// ok is false when the name maps to nothing; the caller drops the relation.
func (o *Ontology) NormalizeRelation(name string) (string, bool) {
	n := strings.ToUpper(strings.TrimSpace(name))
	n = strings.NewReplacer(" ", "_", "-", "_").Replace(n)
	if o.allowedRelations[n] {
		return n, true
	}
	if to, ok := o.RelationAliases[n]; ok {
		return to, true
	}
	return "", false
}

// AllowedRelation reports whether rel may be written to Neo4j as a relationship type.
func (o *Ontology) AllowedRelation(rel string) bool {
	return o.allowedRelations[rel] && identRE.MatchString(rel)
}
