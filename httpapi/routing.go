package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/ariadne-graphrag/ariadne/web"
)

// idRoutes are the /v1 routes whose path ends with one id that contains '/' and must be sent
// URL-encoded; suffix is what follows the id, list the route that lists them ("" when none).
var idRoutes = []struct{ prefix, suffix, noun, list string }{
	{"/v1/documents/", "", "document ids", "/v1/documents"},
	{"/v1/chunks/", "", "chunk ids", ""},
	{"/v1/entities/", "/neighbors", "entity keys", "/v1/entities?q=…"},
}

// noRoute answers a path no route matches: a JSON 404 that says what was probably meant — the
// id URL-encoded when an unencoded '/' split it, the path without its trailing slash — and a
// redirect from /ui to the page (/ui/).
func noRoute(c *gin.Context) {
	p := c.Request.URL.Path
	if p+"/" == web.Prefix && (c.Request.Method == http.MethodGet || c.Request.Method == http.MethodHead) {
		c.Redirect(http.StatusMovedPermanently, web.Prefix)
		return
	}
	writeError(c, http.StatusNotFound, "not_found", noRouteMessage(p))
}

// noRouteMessage is the message of a 404 for an unmatched path (decoded, as URL.Path holds it).
func noRouteMessage(p string) string {
	for _, r := range idRoutes {
		rest, ok := strings.CutPrefix(p, r.prefix)
		if !ok {
			continue
		}
		if rest == "" {
			msg := fmt.Sprintf("no such endpoint: %s needs an id after the slash", p)
			if r.list != "" {
				msg += " (the list is GET " + r.list + ")"
			}
			return msg
		}
		id, ok := strings.CutSuffix(rest, r.suffix)
		if !ok || id == "" || !strings.Contains(id, "/") {
			break
		}
		example := "%2F for each '/'"
		if len(id) <= 200 {
			example = r.prefix + url.PathEscape(id) + r.suffix
		}
		return fmt.Sprintf("no such endpoint: %s contain '/', which must be URL-encoded in the path (%s)", r.noun, example)
	}
	if strings.HasPrefix(p, "/v1/") && len(p) > len("/v1/") && strings.HasSuffix(p, "/") {
		return fmt.Sprintf("no such endpoint: %s ends with a slash (did you mean %s?)", p, strings.TrimSuffix(p, "/"))
	}
	return "no such endpoint"
}

// jsonNotFound serves h (the analyst page's assets) and turns its 404 into the API's JSON error.
func jsonNotFound(h http.Handler) gin.HandlerFunc {
	return func(c *gin.Context) {
		w := &notFoundInterceptor{ResponseWriter: c.Writer}
		h.ServeHTTP(w, c.Request)
		if w.notFound {
			c.Writer.Header().Del("Content-Type") // http.NotFound's text/plain; the JSON error sets its own
			writeError(c, http.StatusNotFound, "not_found", "no such page or asset under "+web.Prefix)
		}
	}
}

// notFoundInterceptor swallows a 404 status and its body; every other response passes through.
type notFoundInterceptor struct {
	gin.ResponseWriter
	notFound bool
}

func (w *notFoundInterceptor) WriteHeader(code int) {
	if code == http.StatusNotFound && !w.Written() {
		w.notFound = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *notFoundInterceptor) Write(b []byte) (int, error) {
	if w.notFound {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// timedOut reports whether ctx, a request's context with the query budget, ended because the
// budget ran out — not because the client went away, nor because a store or model gave up on a
// timeout of its own while time was left.
func timedOut(ctx context.Context, c *gin.Context) bool {
	return errors.Is(ctx.Err(), context.DeadlineExceeded) && c.Request.Context().Err() == nil
}

// timeoutMessage is the message of a 504 timeout for a query budget of d.
func timeoutMessage(d time.Duration) string {
	return fmt.Sprintf("no answer within this server's time limit for a query (%s); retry later, or ask a narrower question", d)
}
