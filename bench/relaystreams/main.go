// Command relaystreams is bench/relay.sh's helper: it counts the messages
// of a JetStream stream and deletes the streams the benchmark made (the
// nats CLI is not installed on the project's machines).
//
//	relaystreams count URL STREAM
//	relaystreams delete URL STREAM...
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "relaystreams:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 3 {
		return errors.New("usage: relaystreams count|delete URL STREAM...")
	}
	nc, err := nats.Connect(args[1])
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	switch args[0] {
	case "count":
		s, err := js.Stream(ctx, args[2])
		if err != nil {
			return err
		}
		fmt.Println(s.CachedInfo().State.Msgs)
	case "delete":
		for _, name := range args[2:] {
			if err := js.DeleteStream(ctx, name); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
				return fmt.Errorf("delete %s: %w", name, err)
			}
		}
	default:
		return fmt.Errorf("unknown command %q", args[0])
	}
	return nil
}
