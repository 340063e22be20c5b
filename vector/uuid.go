package vector

import (
	"github.com/go-openapi/strfmt"
	"github.com/google/uuid"
)

// chunkNamespace is the UUIDv5 namespace of chunk objects: UUIDv5(NameSpaceURL, "ariadne:chunk").
const chunkNamespace = "223db6db-76ca-5ea7-9927-ebf5214c725e"

// ObjectID returns the Weaviate object UUID of a chunk: UUIDv5(chunkNamespace, chunkID). The same
// chunk id always maps to the same object, so re-ingesting overwrites instead of duplicating.
func ObjectID(chunkID string) string {
	return uuid.NewSHA1(uuid.MustParse(chunkNamespace), []byte(chunkID)).String()
}

func strfmtUUID(u uuid.UUID) strfmt.UUID { return strfmt.UUID(u.String()) }
