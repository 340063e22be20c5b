package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
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

// authenticate resolves the caller from "Authorization: Bearer <key>" or "X-API-Key": an unknown
// key is 401; no key is the anonymous caller with the public groups.
func (h *handlers) authenticate(c *gin.Context) {
	key := c.GetHeader("X-API-Key")
	if auth := c.GetHeader("Authorization"); key == "" && len(auth) > 7 && auth[:7] == "Bearer " {
		key = auth[7:]
	}
	caller, ok := h.svc.Keys.Lookup(key)
	if !ok {
		c.Header("WWW-Authenticate", `Bearer realm="ariadne"`)
		msg := "unknown API key"
		if !h.svc.Keys.Configured() {
			msg += "; this server has no API keys configured (start it with ARIADNE_API_KEYS_FILE)"
		}
		writeError(c, http.StatusUnauthorized, "unauthorized", msg)
		return
	}
	c.Set(callerKey, caller)
	c.Next()
}

// requireWrite lets only a caller whose key may write through: no key is 401 (say which
// headers carry one), a key without write permission 403.
func (h *handlers) requireWrite(c *gin.Context) {
	caller := callerOf(c)
	if caller.Anonymous {
		c.Header("WWW-Authenticate", `Bearer realm="ariadne"`)
		writeError(c, http.StatusUnauthorized, "unauthorized",
			"writing documents needs an API key that may write; no key was sent (Authorization: Bearer KEY or X-API-Key: KEY)")
		return
	}
	if !caller.Write {
		writeError(c, http.StatusForbidden, "forbidden", "this API key may not write documents")
		return
	}
	c.Next()
}

func callerOf(c *gin.Context) Caller {
	v, _ := c.Get(callerKey)
	caller, _ := v.(Caller)
	return caller
}
