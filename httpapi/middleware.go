package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

const (
	requestIDKey = "request_id"
	callerKey    = "caller"
)

var requestIDRE = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// requestID takes a well-formed X-Request-ID from the client or makes one, and echoes it.
func requestID() gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader("X-Request-ID")
		if !requestIDRE.MatchString(id) {
			var b [8]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		c.Set(requestIDKey, id)
		c.Header("X-Request-ID", id)
		c.Next()
	}
}

// noStore marks a response as one no cache may keep or hand to another caller: what /v1 and
// /metrics answer depends on the caller's key (a restricted document, a group's answer), and a
// shared cache in front of the API that keys by URL alone — Varnish's default stores requests
// without Authorization or a cookie, so X-API-Key is invisible to it — would serve one caller's
// answer to the next (security audit, stop 62). Set before authentication, so errors carry it
// too.
func noStore() gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Header("Cache-Control", "no-store")
		c.Header("Vary", "Authorization, X-API-Key")
		c.Next()
	}
}

// accessLog logs one line per request (never the body: questions may be confidential) and
// records the HTTP metrics.
func accessLog(log *slog.Logger, m *Metrics) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		status := c.Writer.Status()
		dur := time.Since(start)
		if m != nil {
			m.requests.WithLabelValues(c.Request.Method, route, strconv.Itoa(status)).Inc()
			m.latency.WithLabelValues(c.Request.Method, route).Observe(dur.Seconds())
		}
		caller := ""
		if k, ok := c.Get(callerKey); ok {
			caller = k.(Caller).Name
		}
		log.Info("http", "request_id", c.GetString(requestIDKey), "method", c.Request.Method, "route", route,
			"status", status, "duration_ms", float64(dur.Microseconds())/1000, "caller", caller)
	}
}

// recovery turns a panic into a JSON 500 and logs the stack.
func recovery(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if r := recover(); r != nil {
				log.Error("panic", "request_id", c.GetString(requestIDKey), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				writeError(c, http.StatusInternalServerError, "internal", "internal error")
			}
		}()
		c.Next()
	}
}

// limitBody caps the request body; reading past the cap fails the bind with a 413.
func limitBody(n int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.ContentLength > n {
			writeError(c, http.StatusRequestEntityTooLarge, "payload_too_large", fmt.Sprintf("the body is over %d bytes", n))
			return
		}
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, n)
		c.Next()
	}
}

// credentials reads the API key a request carries: "Authorization: Bearer <key>" (the scheme in
// any case, RFC 7235) or "X-API-Key: <key>". present reports whether either header was sent at
// all, even empty; a header that is present but does not carry a usable key is an error whose
// text is written for the caller (it never repeats a key). Both headers may be sent only with
// the same key.
func credentials(h http.Header) (key string, present bool, err error) {
	auth, xkey := h.Values("Authorization"), h.Values("X-API-Key")
	if len(auth) == 0 && len(xkey) == 0 {
		return "", false, nil
	}
	switch {
	case len(auth) > 1:
		return "", true, errors.New("send one Authorization header")
	case len(xkey) > 1:
		return "", true, errors.New("send one X-API-Key header")
	}
	var bearer string
	if len(auth) == 1 {
		v := strings.TrimSpace(auth[0])
		scheme, token, spaced := strings.Cut(v, " ")
		token = strings.TrimLeft(token, " ")
		switch {
		case v == "":
			return "", true, errors.New("the Authorization header is empty; send 'Authorization: Bearer <API key>'")
		case !spaced && !strings.EqualFold(scheme, "Bearer"):
			// One word: perhaps the key itself, so it is not repeated.
			return "", true, errors.New("the Authorization header has no scheme; send 'Authorization: Bearer <API key>'")
		case !strings.EqualFold(scheme, "Bearer"):
			name := "another"
			if schemeRE.MatchString(scheme) {
				name = "the " + scheme
			}
			return "", true, fmt.Errorf("the Authorization header uses %s scheme; this API takes 'Authorization: Bearer <API key>' or 'X-API-Key: <API key>'", name)
		case token == "":
			return "", true, errors.New("the Authorization header has the Bearer scheme but no key; send 'Authorization: Bearer <API key>'")
		case strings.ContainsAny(token, " \t"):
			return "", true, errors.New("the bearer key in the Authorization header contains white space; send 'Authorization: Bearer <API key>'")
		}
		bearer = token
	}
	if len(xkey) == 1 {
		k := strings.TrimSpace(xkey[0])
		switch {
		case k == "":
			return "", true, errors.New("the X-API-Key header is empty; send 'X-API-Key: <API key>'")
		case bearer != "" && k != bearer:
			return "", true, errors.New("the Authorization and X-API-Key headers carry different keys; send the key in one of them")
		}
		return k, true, nil
	}
	return bearer, true, nil
}

// schemeRE is an auth-scheme short enough and plain enough to repeat in a message.
var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._-]{0,19}$`)

// authenticate resolves the caller from "Authorization: Bearer <key>" or "X-API-Key" (see
// credentials): no header is the anonymous caller with the public groups; an unknown key, or a
// header present without a usable key, is 401 with WWW-Authenticate.
//
// Failed authentications are counted per client address (Limits.FailedAuthPerMinute): while the
// address has none left, a request that carries a key is 429 before the key is looked at.
func (h *handlers) authenticate(c *gin.Context) {
	key, present, err := credentials(c.Request.Header)
	addr := "addr:" + c.ClientIP()
	if present && h.authFailures != nil {
		if ok, wait := h.authFailures.peek(addr, time.Now()); !ok {
			h.svc.Metrics.shed(c.FullPath(), "auth_failures")
			retryAfter(c, wait)
			writeError(c, http.StatusTooManyRequests, "rate_limited", failedAuthMessage)
			return
		}
	}
	if err != nil {
		h.failedAuth(c, addr, err.Error())
		return
	}
	caller, ok := h.svc.Keys.Lookup(key)
	if !ok || (present && caller.Anonymous) {
		msg := "unknown API key"
		if !h.svc.Keys.Configured() {
			msg += "; this server has no API keys configured (start it with ARIADNE_API_KEYS_FILE)"
		}
		h.failedAuth(c, addr, msg)
		return
	}
	c.Set(callerKey, caller)
	c.Next()
}

// failedAuth counts a failed authentication against the client address and answers 401.
func (h *handlers) failedAuth(c *gin.Context, addr, msg string) {
	if h.authFailures != nil {
		h.authFailures.reserve(addr, time.Now())
	}
	h.unauthorized(c, msg)
}

// unauthorized answers 401 with WWW-Authenticate.
func (h *handlers) unauthorized(c *gin.Context, msg string) {
	c.Header("WWW-Authenticate", `Bearer realm="ariadne"`)
	writeError(c, http.StatusUnauthorized, "unauthorized", msg)
}

// requirePermission returns a handler that lets only a caller whose key has a permission (has)
// through: no key is 401 with needs and which headers carry a key, a key without it 403 with
// forbidden.
func (h *handlers) requirePermission(has func(Caller) bool, needs, forbidden string) gin.HandlerFunc {
	return func(c *gin.Context) {
		caller := callerOf(c)
		if caller.Anonymous {
			h.unauthorized(c, needs+"; no key was sent (Authorization: Bearer KEY or X-API-Key: KEY)")
			return
		}
		if !has(caller) {
			writeError(c, http.StatusForbidden, "forbidden", forbidden)
			return
		}
		c.Next()
	}
}

func callerOf(c *gin.Context) Caller {
	v, _ := c.Get(callerKey)
	caller, _ := v.(Caller)
	return caller
}
