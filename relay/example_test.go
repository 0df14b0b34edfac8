package relay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A consumer of stockd's events: a durable consumer on the stream, every
// event of environment prod, acknowledged once handled. The README shows
// this code.
func Example_consume() {
	nc, err := nats.Connect("nats://127.0.0.1:4222")
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	cons, err := js.CreateOrUpdateConsumer(ctx, "STOCKD", jetstream.ConsumerConfig{
		Durable:       "storefront",
		FilterSubject: "stockd.prod.>", // or stockd.prod.reserve.>, stockd.prod.*.tea%2Egreen
		AckPolicy:     jetstream.AckExplicitPolicy,
	})
	if err != nil {
		log.Fatal(err)
	}
	seen := map[string]bool{} // use a durable store of handled ids in earnest
	cc, err := cons.Consume(func(m jetstream.Msg) {
		id := m.Headers().Get("Nats-Msg-Id") // prod:<seq>: the same id on every copy
		if !seen[id] {
			var e struct {
				Seq      int64  `json:"seq"`
				Type     string `json:"type"`
				SKU      string `json:"sku"`
				Location string `json:"location"`
				After    struct {
					Available int64 `json:"available"`
				} `json:"after"`
			}
			if err := json.Unmarshal(m.Data(), &e); err != nil {
				log.Print(err)
				return // not acknowledged: redelivered
			}
			fmt.Println(e.Seq, e.Type, e.SKU, e.Location, e.After.Available)
			seen[id] = true
		}
		_ = m.Ack()
	})
	if err != nil {
		log.Fatal(err)
	}
	defer cc.Stop()
	select {} // consume until the process ends
}
