package httpapi

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ariadne-graphrag/ariadne"
)

// Caller is who makes a request: a named API key, or the anonymous caller.
type Caller struct {
	Name   string
	Groups []string // permission groups; always includes the public groups
	Write  bool     // may add and delete documents
	// Metrics: may read /metrics (request counts and latencies by route, which would tell anyone
	// when documents they may not read are written).
	Metrics bool
	// Anonymous: the request carried no key (Name "anonymous", the public groups).
	Anonymous bool
}

// keyEntry is one key of the keys file.
type keyEntry struct {
	Name      string   `yaml:"name"`
	Key       string   `yaml:"key"`        // the key itself (development), or
	KeySHA256 string   `yaml:"key_sha256"` // its hex SHA-256 (production)
	Groups    []string `yaml:"groups"`
	Write     bool     `yaml:"write"`
	Metrics   bool     `yaml:"metrics"`
}

// Keys maps API keys to callers. It is immutable after loading.
type Keys struct {
	public  []string
	entries []keyEntry
}

// keysFile is the YAML layout:
//
//	public_groups: [all]          # what a caller without a key gets
//	keys:
//	  - name: sales-analyst
//	    key_sha256: 5e88…         # sha256 of the key, hex (or `key:` in plain text for development)
//	    groups: [sales]
//	    write: false
//	    metrics: false              # true: may read /metrics (a monitoring scraper's key)
type keysFile struct {
	PublicGroups []string   `yaml:"public_groups"`
	Keys         []keyEntry `yaml:"keys"`
}

// LoadKeys reads a keys file; path "" means no keys and public groups [all].
func LoadKeys(path string) (*Keys, error) {
	if path == "" {
		return &Keys{public: []string{ariadne.PublicGroup}}, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("httpapi: keys file: %w", err)
	}
	return parseKeys(raw, "httpapi: keys file "+path+": ")
}

// ParseKeys parses the keys file YAML. Every key needs a name, a key or key_sha256 (64 hex
// digits), and at least one group; names and keys are unique; unknown fields are errors. Errors
// wrap ariadne.ErrInvalid and name the line of the entry at fault.
func ParseKeys(raw []byte) (*Keys, error) { return parseKeys(raw, "httpapi: keys file: ") }

// parseKeys is ParseKeys with the prefix of its error messages (LoadKeys names the file).
func parseKeys(raw []byte, prefix string) (*Keys, error) {
	var f keysFile
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		// yaml names its Go types ("field grups not found in type httpapi.keyEntry"); the
		// operator wrote YAML, so say which fields the file and an entry take.
		msg := yamlTypeRE.ReplaceAllStringFunc(err.Error(), func(m string) string {
			field, typ, _ := strings.Cut(strings.TrimPrefix(m, "field "), " not found in type ")
			if typ == "httpapi.keyEntry" {
				return "unknown field " + field + " in a key entry (it takes name, key or key_sha256, groups, write, metrics)"
			}
			return "unknown field " + field + " (the file takes public_groups and keys)"
		})
		return nil, fmt.Errorf(prefix+"%w: %s", ariadne.ErrInvalid, msg)
	}
	var root yaml.Node
	_ = yaml.Unmarshal(raw, &root) // decoded above; read again only for the entries' lines
	lines := entryLines(&root)
	k := &Keys{public: f.PublicGroups}
	if f.PublicGroups != nil && len(f.PublicGroups) == 0 {
		// It used to mean the default, [all] — the opposite of what an operator writing it wants.
		return nil, fmt.Errorf(prefix+"public_groups is an empty list: leave it out for the default [all], or give callers without a key a group no document's acl holds (public_groups: [nobody]) to let them read nothing; every key gets these groups too: %w", ariadne.ErrInvalid)
	}
	if len(k.public) == 0 {
		k.public = []string{ariadne.PublicGroup}
	}
	seen := map[string]bool{}
	for i, e := range f.Keys {
		at := fmt.Sprintf("entry %d", i+1)
		if i < len(lines) {
			at = fmt.Sprintf("entry %d (line %d)", i+1, lines[i])
		}
		switch {
		case e.Name == "" || (e.Key == "") == (e.KeySHA256 == "") || len(e.Groups) == 0:
			return nil, fmt.Errorf(prefix+"%s needs a name, exactly one of key/key_sha256, and groups: %w", at, ariadne.ErrInvalid)
		case e.KeySHA256 != "" && !sha256RE.MatchString(e.KeySHA256):
			return nil, fmt.Errorf(prefix+"%s: key_sha256 must be 64 hex digits (sha256sum of the key): %w", at, ariadne.ErrInvalid)
		}
		if e.Key != "" {
			sum := sha256.Sum256([]byte(e.Key))
			e.KeySHA256, e.Key = hex.EncodeToString(sum[:]), ""
		}
		e.KeySHA256 = strings.ToLower(e.KeySHA256)
		if seen["name:"+e.Name] || seen["key:"+e.KeySHA256] {
			return nil, fmt.Errorf(prefix+"%s: duplicate name or key: %w", at, ariadne.ErrInvalid)
		}
		seen["name:"+e.Name], seen["key:"+e.KeySHA256] = true, true
		k.entries = append(k.entries, e)
	}
	return k, nil
}

// Public returns the groups of a caller without a key (public_groups; [all] by default).
func (k *Keys) Public() []string {
	if k == nil || len(k.public) == 0 {
		return []string{ariadne.PublicGroup}
	}
	return slices.Clone(k.public)
}

// Configured reports whether any key is configured (false: every caller is anonymous).
func (k *Keys) Configured() bool { return k != nil && len(k.entries) > 0 }

var yamlTypeRE = regexp.MustCompile(`field \S+ not found in type httpapi\.\w+`)

var sha256RE = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)

// entryLines returns the line of each entry of the `keys` list.
func entryLines(root *yaml.Node) []int {
	var lines []int
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return lines
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "keys" && m.Content[i+1].Kind == yaml.SequenceNode {
			for _, item := range m.Content[i+1].Content {
				lines = append(lines, item.Line)
			}
		}
	}
	return lines
}

// Lookup returns the caller of a key: "" is the anonymous caller with the public groups; an
// unknown key is ok=false (never the public groups). The key's SHA-256 is compared with every
// entry in constant time, without stopping at a match.
func (k *Keys) Lookup(key string) (Caller, bool) {
	if key == "" {
		return Caller{Name: "anonymous", Groups: slices.Clone(k.public), Anonymous: true}, true
	}
	sum := sha256.Sum256([]byte(key))
	want := []byte(hex.EncodeToString(sum[:]))
	match := -1
	for i, e := range k.entries {
		if subtle.ConstantTimeCompare([]byte(e.KeySHA256), want) == 1 {
			match = i
		}
	}
	if match < 0 {
		return Caller{}, false
	}
	e := k.entries[match]
	groups := slices.Clone(k.public)
	for _, g := range e.Groups {
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	return Caller{Name: e.Name, Groups: groups, Write: e.Write, Metrics: e.Metrics}, true
}
