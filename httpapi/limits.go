package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/time/rate"
)

// Load shedding. Each route class has a concurrency limit (a semaphore): a request that cannot
// start within Limits.QueueWait is answered at once with 503 {"error":{"code":"overloaded"}} and
// Retry-After, instead of queuing until the client or the query deadline gives up. Each caller
// (its API key, or the client address for anonymous callers) also has a token bucket
// (golang.org/x/time/rate): over it, 429 {"error":{"code":"rate_limited"}} with Retry-After.
//
// Defaults (Limits, configurable in cmd/api with ARIADNE_API_* variables):
//
//	/v1/query, /v1/search                 16 in flight (QueryConcurrency)
//	POST and DELETE /v1/documents          4 in flight (WriteConcurrency)
//	other /v1 reads                       64 in flight (ReadConcurrency)
//	wait for a slot                       100 ms (QueueWait)
//	per caller                            off in the package; cmd/api: 20 requests/s, bursts of 40 (RatePerKey, RateBurst)
//
// /healthz, /readyz, /metrics and the page are not limited (probes must answer under load).

// concurrencyLimit admits at most n requests at a time; the others wait up to wait for a slot,
// then get 503 overloaded with Retry-After.
func concurrencyLimit(n int, wait time.Duration, m *Metrics) gin.HandlerFunc {
	slots := make(chan struct{}, n)
	return func(c *gin.Context) {
		select {
		case slots <- struct{}{}:
		default:
			t := time.NewTimer(wait)
			select {
			case slots <- struct{}{}:
				t.Stop()
			case <-t.C:
				m.shed(c.FullPath(), "overloaded")
				c.Header("Retry-After", "1")
				writeError(c, http.StatusServiceUnavailable, "overloaded",
					"the server is at its limit of "+strconv.Itoa(n)+" concurrent requests for this endpoint; retry after the time in Retry-After")
				return
			case <-c.Request.Context().Done():
				t.Stop()
				c.Abort()
				return
			}
		}
		defer func() { <-slots }()
		c.Next()
	}
}

// keyLimiter holds one token bucket per caller. Buckets idle for a minute are dropped, so the map
// stays as small as the set of recent callers.
type keyLimiter struct {
	mu      sync.Mutex
	limit   rate.Limit
	burst   int
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newKeyLimiter(perSecond float64, burst int) *keyLimiter {
	return &keyLimiter{limit: rate.Limit(perSecond), burst: burst, buckets: map[string]*bucket{}}
}

// reserve takes a token for key; when none is left it returns how long until one is, and takes
// nothing.
func (k *keyLimiter) reserve(key string, now time.Time) (ok bool, retryAfter time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if now.Sub(k.swept) > time.Minute {
		for key, b := range k.buckets {
			if now.Sub(b.seen) > time.Minute {
				delete(k.buckets, key)
			}
		}
		k.swept = now
	}
	b, found := k.buckets[key]
	if !found {
		b = &bucket{lim: rate.NewLimiter(k.limit, k.burst)}
		k.buckets[key] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Second
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// rateLimit answers 429 rate_limited with Retry-After (whole seconds, at least 1) when the
// caller's bucket is empty. It runs after authenticate: the bucket of a keyed caller is its key's
// name, an anonymous caller's is its client address.
func rateLimit(k *keyLimiter, m *Metrics) gin.HandlerFunc {
	return func(c *gin.Context) {
		key := "key:" + callerOf(c).Name
		if callerOf(c).Name == "" {
			key = "addr:" + c.ClientIP()
		}
		ok, wait := k.reserve(key, time.Now())
		if !ok {
			m.shed(c.FullPath(), "rate_limited")
			c.Header("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
			writeError(c, http.StatusTooManyRequests, "rate_limited",
				"too many requests for this API key; retry after the time in Retry-After")
			return
		}
		c.Next()
	}
}
