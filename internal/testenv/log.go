package testenv

import (
	"strings"
	"sync"
)

// LockedLog is a log sink a server writes to while a test reads it: safe for concurrent use.
type LockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p.
func (l *LockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *LockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
