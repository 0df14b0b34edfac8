package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestValidateDebugAddr(t *testing.T) {
	for _, c := range []struct {
		addr string
		ok   bool
	}{
		{"", true},
		{"127.0.0.1:6060", true},
		{"localhost:6060", true},
		{"[::1]:6060", true},
		{"0.0.0.0:6060", false},
		{":6060", false},
		{"10.0.0.5:6060", false},
		{"nonsense", false},
	} {
		if err := validateDebugAddr(c.addr); (err == nil) != c.ok {
			t.Errorf("validateDebugAddr(%q) = %v, want ok %v", c.addr, err, c.ok)
		}
	}
}

func TestDebugServerServesProfiles(t *testing.T) {
	d, err := startDebug("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	resp, err := http.Get("http://" + d.addr + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine") {
		t.Errorf("GET /debug/pprof/ = %d:\n%s", resp.StatusCode, body)
	}
}
