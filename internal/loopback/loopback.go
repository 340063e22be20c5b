// Package loopback knows what deploy/local.sh sets up for Ariadne's local servers: their default
// loopback addresses, shifted by ARIADNE_PORT_OFFSET the same way deploy/local.sh shifts them,
// its home directory (ARIADNE_HOME) and the Weaviate API key it keeps there. It reads the
// environment and never writes it.
package loopback

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Address is a server address whose default deploy/local.sh shifts by ARIADNE_PORT_OFFSET.
type Address struct {
	Env    string // the variable the programs read
	Format string // the default address with %d for the port
	Port   int    // the default port
}

// Addresses are the addresses of the local servers (deploy/local.sh) and of the API, with
// their default ports; `deploy/local.sh env` prints the same variables.
var Addresses = []Address{
	{"ARIADNE_NEO4J_URI", "bolt://127.0.0.1:%d", 7687},
	{"ARIADNE_NEO4J_HTTP", "http://127.0.0.1:%d", 7474},
	{"ARIADNE_WEAVIATE_URL", "http://127.0.0.1:%d", 8080},
	{"ARIADNE_WEAVIATE_GRPC", "127.0.0.1:%d", 50051},
	{"ARIADNE_E5_URL", "http://127.0.0.1:%d/v1", 8091},
	{"ARIADNE_LOCAL_LLM_URL", "http://127.0.0.1:%d/v1", 8092},
	{"ARIADNE_NER_URL", "http://127.0.0.1:%d", 8093},
	{"ARIADNE_API_ADDR", "127.0.0.1:%d", 8088},
	{"ARIADNE_API_URL", "http://127.0.0.1:%d", 8088},
}

// Offset returns ARIADNE_PORT_OFFSET (0 when unset) and an error when it is not an integer that
// keeps every port of Addresses in 1..65535.
func Offset() (int, error) {
	v := os.Getenv("ARIADNE_PORT_OFFSET")
	if v == "" {
		return 0, nil
	}
	off, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("ARIADNE_PORT_OFFSET=%q: not an integer", v)
	}
	for _, a := range Addresses {
		if p := a.Port + off; p < 1 || p > 65535 {
			return 0, fmt.Errorf("ARIADNE_PORT_OFFSET=%d moves %s's port %d outside 1..65535", off, a.Env, a.Port)
		}
	}
	return off, nil
}

// VarName is the name of an address's variable in Vars: the variable without its ARIADNE_
// prefix, lower case ("ARIADNE_NEO4J_URI" → "neo4j_uri").
func VarName(env string) string { return strings.ToLower(strings.TrimPrefix(env, "ARIADNE_")) }

// Vars returns, for every address, its default shifted by ARIADNE_PORT_OFFSET, keyed by VarName,
// and "weaviate_api_key_file", WeaviateAPIKeyFile. The programs give them to their flag parser
// (kong.Vars) as the defaults of their flags; a variable the user sets still wins. Nothing is
// written to the environment.
func Vars() (map[string]string, error) {
	off, err := Offset()
	if err != nil {
		return nil, err
	}
	vars := make(map[string]string, len(Addresses)+1)
	for _, a := range Addresses {
		vars[VarName(a.Env)] = fmt.Sprintf(a.Format, a.Port+off)
	}
	vars["weaviate_api_key_file"] = WeaviateAPIKeyFile()
	return vars, nil
}

// Default returns the value of an address variable: the environment's when set, else its
// default shifted by ARIADNE_PORT_OFFSET (an offset Vars would reject counts as 0), else "".
// Tests use it to reach the servers `deploy/local.sh` started.
func Default(env string) string {
	if v := os.Getenv(env); v != "" {
		return v
	}
	off, err := Offset()
	if err != nil {
		off = 0
	}
	for _, a := range Addresses {
		if a.Env == env {
			return fmt.Sprintf(a.Format, a.Port+off)
		}
	}
	return ""
}

// Home is deploy/local.sh's directory: $ARIADNE_HOME, else <repo>/.ariadne found by walking up
// from the working directory to go.mod; "" when neither is found.
func Home() string {
	if h := os.Getenv("ARIADNE_HOME"); h != "" {
		return h
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".ariadne")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// WeaviateAPIKeyFile is the file where deploy/local.sh keeps the API key its Weaviate requires:
// <Home>/weaviate/api-key; "" without a Home.
func WeaviateAPIKeyFile() string {
	h := Home()
	if h == "" {
		return ""
	}
	return filepath.Join(h, "weaviate", "api-key")
}

// ReadKey returns the key a key file holds, without surrounding white space: "" and no error
// when path is "" or the file does not exist, an error when it exists but cannot be read.
func ReadKey(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the Weaviate API key: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// WeaviateAPIKey is $ARIADNE_WEAVIATE_API_KEY, else the key in WeaviateAPIKeyFile (the one
// deploy/local.sh started its Weaviate with), else "". Tests use it to reach that Weaviate.
func WeaviateAPIKey() string {
	if k := os.Getenv("ARIADNE_WEAVIATE_API_KEY"); k != "" {
		return k
	}
	k, _ := ReadKey(WeaviateAPIKeyFile())
	return k
}
