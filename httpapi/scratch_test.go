package httpapi

import (
	"fmt"
	"testing"

	"github.com/stockd/stockd/internal/testdb"
)

func TestScratch(t *testing.T) {
	h := newHarness(t, testdb.Backends()[0])
	h.seed(10, "A")
	for _, r := range [][3]string{
		{"POST", "/v1/receipts", `{"sku":"A","quantity":"5"}`},
		{"POST", "/v1/receipts", `{"sku":"A","quantity":1,"x":1}`},
		{"POST", "/v1/receipts", `{"sku":"A","quantity":1} x`},
		{"POST", "/v1/reservations", `{"lines":[{"sku":"A","quantity":1.5}]}`},
		{"POST", "/v1/reservations", `{"lines":[{"sku":"A","quantity":11}]}`},
		{"POST", "/v1/reservations", `{"lines":[{"sku":"A","quantity":2}]}`},
		{"POST", "/v1/receipts", `[]`},
	} {
		a := h.send(r[0], r[1], "k"+r[2], []byte(r[2]))
		fmt.Printf("%d %v\n%s\n", a.status, a.header, a.body)
	}
	a := h.send("GET", "/v1/ledger", "", nil)
	fmt.Printf("%d %s\n", a.status, a.body)
	a = h.send("GET", "/v1/stock/A", "", nil)
	fmt.Printf("%d %s\n", a.status, a.body)
}
