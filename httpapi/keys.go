package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"os"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/ariadne-graphrag/ariadne"
)

// Caller is who makes a request: a named API key, or the anonymous caller.
type Caller struct {
	Name   string
	Groups []string // permission groups; always includes the public groups
	Write  bool     // may add and delete documents
}

// keyEntry is one key of the keys file.
type keyEntry struct {
	Name      string   `yaml:"name"`
	Key       string   `yaml:"key"`        // the key itself (development), or
	KeySHA256 string   `yaml:"key_sha256"` // its hex SHA-256 (production)
	Groups    []string `yaml:"groups"`
	Write     bool     `yaml:"write"`
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
	return ParseKeys(raw)
}

// ParseKeys parses the keys file YAML. Every key needs a name, a key or key_sha256, and at least
// one group; names and keys are unique.
func ParseKeys(raw []byte) (*Keys, error) {
	var f keysFile
	if err := yaml.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("httpapi: keys file: %w: %v", ariadne.ErrInvalid, err)
	}
	k := &Keys{public: f.PublicGroups}
	if len(k.public) == 0 {
		k.public = []string{ariadne.PublicGroup}
	}
	seen := map[string]bool{}
	for i, e := range f.Keys {
		if e.Name == "" || (e.Key == "") == (e.KeySHA256 == "") || len(e.Groups) == 0 {
			return nil, fmt.Errorf("httpapi: keys file: entry %d needs a name, exactly one of key/key_sha256, and groups: %w", i+1, ariadne.ErrInvalid)
		}
		if e.Key != "" {
			sum := sha256.Sum256([]byte(e.Key))
			e.KeySHA256, e.Key = hex.EncodeToString(sum[:]), ""
		}
		if seen[e.Name] || seen[e.KeySHA256] {
			return nil, fmt.Errorf("httpapi: keys file: duplicate name or key in entry %d: %w", i+1, ariadne.ErrInvalid)
		}
		seen[e.Name], seen[e.KeySHA256] = true, true
		k.entries = append(k.entries, e)
	}
	return k, nil
}

// Lookup returns the caller of a key: "" is the anonymous caller with the public groups; an
// unknown key is ok=false. Keys are compared by SHA-256 in constant time.
func (k *Keys) Lookup(key string) (Caller, bool) {
	if key == "" {
		return Caller{Name: "anonymous", Groups: slices.Clone(k.public)}, true
	}
	sum := sha256.Sum256([]byte(key))
	want := hex.EncodeToString(sum[:])
	for _, e := range k.entries {
		if subtle.ConstantTimeCompare([]byte(e.KeySHA256), []byte(want)) == 1 {
			groups := slices.Clone(k.public)
			for _, g := range e.Groups {
				if !slices.Contains(groups, g) {
					groups = append(groups, g)
				}
			}
			return Caller{Name: e.Name, Groups: groups, Write: e.Write}, true
		}
	}
	return Caller{}, false
}
