package faultproxy

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// echo serves one line-echo server on loopback.
func echo(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := c.Write([]byte(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

func roundTrip(t *testing.T, c net.Conn, r *bufio.Reader, timeout time.Duration) (time.Duration, error) {
	t.Helper()
	start := time.Now()
	if err := c.SetDeadline(start.Add(timeout)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return 0, err
	}
	_, err := r.ReadString('\n')
	return time.Since(start), err
}

func TestStallHoldsBytesAndResumeDeliversThem(t *testing.T) {
	p, err := Start(echo(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if _, err := roundTrip(t, c, r, time.Second); err != nil {
		t.Fatalf("before the stall: %v", err)
	}
	p.Stall()
	if _, err := roundTrip(t, c, r, 200*time.Millisecond); err == nil {
		t.Fatal("a round trip passed a stalled proxy")
	}
	p.Resume()
	// The held ping is answered first, then a new one.
	if err := c.SetDeadline(time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatalf("the held ping after Resume: %v", err)
	}
	if _, err := roundTrip(t, c, r, time.Second); err != nil {
		t.Fatalf("after the stall: %v", err)
	}
}

func TestLatencyDelaysEachRoundTrip(t *testing.T) {
	p, err := Start(echo(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.SetLatency(50 * time.Millisecond)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	d, err := roundTrip(t, c, r, time.Second)
	if err != nil || d < 50*time.Millisecond {
		t.Fatalf("round trip %v %v, want at least the 50ms latency", d, err)
	}
}
