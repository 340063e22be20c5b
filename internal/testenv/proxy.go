package testenv

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP connections from a loopback port to a server, so that a test can take the
// server away from the code under test (Stop, Close) and bring it back (Start) without stopping
// a server other tests and users share.
type Proxy struct {
	t      testing.TB
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener // nil while stopped
	conns  []net.Conn
}

// NewProxy listens on 127.0.0.1 (a free port) and forwards to target ("host:port"); it closes
// when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{t: t, addr: ln.Addr().String(), target: target, ln: ln}
	go p.serve(ln)
	t.Cleanup(p.Close)
	return p
}

// Addr is the proxy's "host:port"; it stays the same across Stop and Start.
func (p *Proxy) Addr() string { return p.addr }

// Stop stops accepting and cuts every open connection: to its clients the server is gone
// (connection refused, then reset), as when it is stopped.
func (p *Proxy) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		return
	}
	p.ln.Close()
	p.ln = nil
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Start accepts again on the same address, as a server that came back.
func (p *Proxy) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		return
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Errorf("proxy: listen again on %s: %v", p.addr, err)
		return
	}
	p.ln = ln
	go p.serve(ln)
}

// Close is Stop for good.
func (p *Proxy) Close() { p.Stop() }

func (p *Proxy) serve(ln net.Listener) {
	for {
		in, err := ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		if p.ln != ln {
			p.mu.Unlock()
			in.Close()
			out.Close()
			return
		}
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go func() { io.Copy(out, in); out.Close() }()
		go func() { io.Copy(in, out); in.Close() }()
	}
}
