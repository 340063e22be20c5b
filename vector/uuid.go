package vector

import (
	"github.com/go-openapi/strfmt"
	"github.com/google/uuid"
)

// chunkNamespace is the UUIDv5 namespace for chunk objects: UUIDv5(NameSpaceURL, "ariadne:chunk").
var chunkNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("ariadne:chunk"))

// ObjectID returns the Weaviate object UUID of a chunk: UUIDv5(chunkNamespace, chunkID). The same
// chunk id always maps to the same object, so re-ingesting overwrites instead of duplicating.
func ObjectID(chunkID string) string { return uuid.NewSHA1(chunkNamespace, []byte(chunkID)).String() }

func strfmtUUID(u uuid.UUID) strfmt.UUID { return strfmt.UUID(u.String()) }
