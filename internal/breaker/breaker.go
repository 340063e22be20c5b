// Package breaker holds the settings Ariadne's circuit breakers share (sony/gobreaker): the graph
// store's read path and the agent's chunk-index searches.
package breaker

import (
	"context"
	"errors"
	"time"

	"github.com/sony/gobreaker/v2"
)

// Settings returns the settings of a breaker that one failure opens for open (10 s when zero or
// less); half-open, one request probes the store while the others fail. An error counts as a
// failure only when unavailable says the store could not be reached; no error, a cancelled or
// expired request, and any other error (bad input, a query error) count as successes. onOpen, when
// not nil, runs whenever the breaker opens.
func Settings(name string, open time.Duration, unavailable func(error) bool, onOpen func()) gobreaker.Settings {
	if open <= 0 {
		open = 10 * time.Second
	}
	return gobreaker.Settings{
		Name:        name,
		MaxRequests: 1,
		Timeout:     open,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 1 },
		IsSuccessful: func(err error) bool {
			return err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || !unavailable(err)
		},
		OnStateChange: func(_ string, _, to gobreaker.State) {
			if to == gobreaker.StateOpen && onOpen != nil {
				onOpen()
			}
		},
	}
}
