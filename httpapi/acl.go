package httpapi

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/corpus"
)

// The write rule for a document's ACL (POST /v1/documents, JSON bodies and Markdown front matter
// alike): the acl is a list of group names; left out (or JSON null) it is the default,
// [ariadne.PublicGroup]; an empty list, a blank name or a single value where the list belongs is
// 400; and the acl must share a group with the writing key's groups — so a writer can always read,
// replace and delete what it wrote, and neither a typo'd group nor a group the key lacks can make
// a document nobody can remove through the API — else 403.

// httpError is an error answered with its own status, code and message.
type httpError struct {
	status    int
	code, msg string
}

func (e *httpError) Error() string { return e.msg }

func (e *httpError) write(c *gin.Context) { writeError(c, e.status, e.code, e.msg) }

// checkACLShape checks a document's acl as the caller sent it: acl nil is the field left out;
// scalar reports front matter "acl: management" (one value where a list belongs), which a file of
// a synced folder may give and the API refuses. The empty list and blank names are refused by
// corpus.CheckACL (through corpus.FromFields, before this), for files and the API alike; it is
// checked here again so that this function states the whole rule.
func checkACLShape(acl []string, scalar bool) *httpError {
	bad := func(msg string) *httpError {
		return &httpError{http.StatusBadRequest, "invalid_request", "invalid document: " + msg}
	}
	if scalar {
		return bad(fmt.Sprintf("acl must be a list of group names, like acl: [management], not a single value (leave it out for the default, [%s])", ariadne.PublicGroup))
	}
	if err := corpus.CheckACL(acl); err != nil {
		return bad(publicMessage(err, "invalid acl"))
	}
	return nil
}

// checkWriteACL applies the write rule to a document's acl (as it will be stored) and the
// writing key's groups.
func checkWriteACL(acl, groups []string) *httpError {
	for _, g := range acl {
		for _, k := range groups {
			if g == k {
				return nil
			}
		}
	}
	return &httpError{http.StatusForbidden, "forbidden", fmt.Sprintf(
		"this API key may only write documents it can read: the document's acl [%s] shares no group with the key's groups [%s]",
		strings.Join(acl, ", "), strings.Join(groups, ", "))}
}
