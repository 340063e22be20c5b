package vector

import (
	"testing"

	"github.com/google/uuid"
)

func TestObjectIDIsUUIDv5OfChunkID(t *testing.T) {
	if got := uuid.NewSHA1(uuid.NameSpaceURL, []byte("ariadne:chunk")).String(); got != chunkNamespace {
		t.Fatalf("chunkNamespace = %s, want UUIDv5(URL, ariadne:chunk) = %s", chunkNamespace, got)
	}
	a, b := ObjectID("docs/a#0001-deadbeef"), ObjectID("docs/a#0001-deadbeef")
	u, err := uuid.Parse(a)
	if err != nil || a != b || u.Version() != 5 || a == ObjectID("docs/a#0002-deadbeef") {
		t.Fatalf("ObjectID not a stable UUIDv5: %s %s %v", a, b, err)
	}
}
