// Package loopback knows the default loopback addresses of Ariadne's local servers and applies
// ARIADNE_PORT_OFFSET to them, the same way deploy/local.sh does.
package loopback

import (
	"fmt"
	"os"
	"strconv"
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
	{"ARIADNE_API_ADDR", "127.0.0.1:%d", 8088},
	{"ARIADNE_API_URL", "http://127.0.0.1:%d", 8088},
}

// ApplyPortOffset makes ARIADNE_PORT_OFFSET (see deploy/local.sh) reach the programs: for each of
// Addresses whose variable is unset, it sets the variable to the default address with the
// port shifted by the offset, so that a second checkout's programs talk to its own servers. It
// does nothing when the offset is unset or 0, and returns an error when it is not an integer that
// keeps every port in 1..65535.
func ApplyPortOffset() error {
	v := os.Getenv("ARIADNE_PORT_OFFSET")
	if v == "" {
		return nil
	}
	off, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("ARIADNE_PORT_OFFSET=%q: not an integer", v)
	}
	if off == 0 {
		return nil
	}
	for _, a := range Addresses {
		if p := a.Port + off; p < 1 || p > 65535 {
			return fmt.Errorf("ARIADNE_PORT_OFFSET=%d moves %s's port %d outside 1..65535", off, a.Env, a.Port)
		}
	}
	for _, a := range Addresses {
		if _, set := os.LookupEnv(a.Env); !set {
			if err := os.Setenv(a.Env, fmt.Sprintf(a.Format, a.Port+off)); err != nil {
				return err
			}
		}
	}
	return nil
}
