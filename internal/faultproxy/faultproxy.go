// Package faultproxy is a TCP proxy for drills: it stands between stockd
// and its database and can add latency to every chunk it forwards, or
// stall, accepting and holding connections and their bytes without
// forwarding any, the way a silently unresponsive database (a dead
// switch, a frozen VM) looks from the client's side. Resuming a stall
// forwards what was held.
package faultproxy

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// chunkSizeMax bounds one read of a connection.
const chunkSizeMax = 32 << 10

// Proxy forwards connections from its listener to a target address.
type Proxy struct {
	target   string
	listener net.Listener

	mu      sync.Mutex
	stalled bool
	resumed chan struct{} // closed when a stall ends
	latency time.Duration
	conns   map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup
}

// Start listens on a free loopback port and forwards to target.
func Start(target string) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{target: target, listener: l, resumed: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	close(p.resumed)
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the address clients connect to.
func (p *Proxy) Addr() string { return p.listener.Addr().String() }

// Stall stops forwarding: connections stay open and new ones are
// accepted, but no byte passes until Resume.
func (p *Proxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stalled {
		p.stalled = true
		p.resumed = make(chan struct{})
	}
}

// Resume forwards again, what was held first.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stalled {
		p.stalled = false
		close(p.resumed)
	}
}

// SetLatency delays every chunk the target sends back by d, so that each
// round trip takes d longer (toxiproxy's downstream latency).
func (p *Proxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = d
}

// Close stops listening and closes every connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	if p.stalled {
		p.stalled = false
		close(p.resumed)
	}
	p.mu.Unlock()
	err := p.listener.Close()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.listener.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go p.serve(client)
	}
}

func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	p.gate()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	if !p.track(client, server) {
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { p.pipe(server, client, false) })
	wg.Go(func() { p.pipe(client, server, true) })
	wg.Wait()
	p.untrack(client, server)
}

func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		c.Close()
		delete(p.conns, c)
	}
}

// gate waits while the proxy is stalled and returns the latency to add.
func (p *Proxy) gate() time.Duration {
	for {
		p.mu.Lock()
		stalled, resumed, latency := p.stalled, p.resumed, p.latency
		p.mu.Unlock()
		if !stalled {
			return latency
		}
		<-resumed
	}
}

// pipe copies from src to dst chunk by chunk, each through the gate, the
// downstream direction with the latency. When src ends, dst's write side
// is closed so the peer sees the end too.
func (p *Proxy) pipe(dst, src net.Conn, downstream bool) {
	buf := make([]byte, chunkSizeMax)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if latency := p.gate(); downstream && latency > 0 {
				time.Sleep(latency)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				dst.Close()
			}
			break
		}
	}
	if tcp, ok := dst.(*net.TCPConn); ok {
		// Half-close; a peer that already went away makes this fail, which
		// changes nothing.
		_ = tcp.CloseWrite()
	}
}
