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
// Failed authentications (an unknown key, a header without a usable key) take a token from a
// bucket of the client address; while it is empty, every request from that address that carries
// a key is 429 rate_limited before its key is looked at, so guesses are neither answered nor
// told apart from a right key.
//
// Defaults (Limits, configurable in cmd/api with ARIADNE_API_* variables):
//
//	/v1/query, /v1/search                 16 in flight (QueryConcurrency)
//	POST and DELETE /v1/documents          4 in flight (WriteConcurrency)
//	other /v1 reads                       64 in flight (ReadConcurrency)
//	wait for a slot                       100 ms (QueueWait)
//	per caller                            off in the package; cmd/api: 20 requests/s, bursts of 40 (RatePerKey, RateBurst)
//	failed authentications per address    10 a minute, bursts of 10 (FailedAuthPerMinute)
//
// The client address is the connection's peer unless it is one of Limits.TrustedProxies (then
// the address X-Forwarded-For or X-Real-IP gives): a client cannot choose its own bucket.
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
			// Only a full bucket is dropped: one that is refilling still limits its caller.
			if now.Sub(b.seen) > time.Minute && b.lim.TokensAt(now) >= float64(k.burst) {
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

// peek reports whether key's bucket has a token, without taking one; when it has none, how long
// until it has.
func (k *keyLimiter) peek(key string, now time.Time) (ok bool, retryAfter time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	b, found := k.buckets[key]
	if !found {
		return true, 0
	}
	tokens := b.lim.TokensAt(now)
	if tokens >= 1 {
		return true, 0
	}
	if k.limit <= 0 {
		return false, time.Minute
	}
	return false, time.Duration((1 - tokens) / float64(k.limit) * float64(time.Second))
}

// retryAfter sets Retry-After to wait in whole seconds, at least 1.
func retryAfter(c *gin.Context, wait time.Duration) {
	c.Header("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
}

// rateLimit answers 429 rate_limited with Retry-After (whole seconds, at least 1) when the
// caller's bucket is empty. It runs after authenticate: the bucket of a keyed caller is its key's
// name, an anonymous caller's is its client address.
func rateLimit(k *keyLimiter, m *Metrics) gin.HandlerFunc {
	return func(c *gin.Context) {
		caller := callerOf(c)
		key, msg := "key:"+caller.Name, "too many requests for this API key; retry after the time in Retry-After"
		if caller.Anonymous {
			key, msg = "addr:"+c.ClientIP(), "too many requests without an API key from this address; retry after the time in Retry-After"
		}
		ok, wait := k.reserve(key, time.Now())
		if !ok {
			m.shed(c.FullPath(), "rate_limited")
			retryAfter(c, wait)
			writeError(c, http.StatusTooManyRequests, "rate_limited", msg)
			return
		}
		c.Next()
	}
}

// failedAuthMessage is the message of a 429 for an address with too many failed authentications.
const failedAuthMessage = "too many failed authentications from this address; retry after the time in Retry-After"
