#!/usr/bin/env bash
# bench/relay.sh: the relay's throughput and lag under stockd-bench's hot
# scenario over HTTP, against a real NATS JetStream (docs/benchmarks.md,
# "Relay"). It samples the server's /metrics once a second while the bench
# runs, then how long the relay takes to drain the ledger into a second,
# empty stream (a relay far behind: its best rate).
#
#   bash bench/relay.sh [DATABASE_URL]     # default: a fresh SQLite file
#
# Environment: NATS (default nats://127.0.0.1:4222), DURATION (20s),
# CONCURRENCY (64), PORT (18080). It deletes the streams it made.
set -euo pipefail
cd "$(dirname "$0")/.."
NATS=${NATS:-nats://127.0.0.1:4222}
DURATION=${DURATION:-20s}
CONCURRENCY=${CONCURRENCY:-64}
PORT=${PORT:-18080}
dir=$(mktemp -d)
DB=${1:-sqlite://$dir/stockd.db}
run=$(date +%s)
go build -o "$dir/stockd" ./cmd/stockd
go build -o "$dir/stockd-bench" ./cmd/stockd-bench
go build -o "$dir/streams" ./bench/relaystreams

serve() { # serve STREAM
  "$dir/stockd" serve --database-url "$DB" --addr "127.0.0.1:$PORT" --nats-url "$NATS" \
    --nats-stream "$1" --environment "bench$run" --key-requests-per-second -1 --log-level warn &
  pid=$!
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && return; sleep 0.1; done
  echo "serve did not start" >&2; exit 1
}
metric() { curl -fsS "http://127.0.0.1:$PORT/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
stop() { kill "$pid"; wait "$pid" || true; }
trap '"$dir/streams" delete "$NATS" "BENCH_A_$run" "BENCH_B_$run" || true; rm -rf "$dir"' EXIT

serve "BENCH_A_$run"
(
  while sleep 1; do
    echo "$(date +%s.%N) $(metric stockd_relay_published_total) $(metric stockd_relay_lag_events) $(metric stockd_relay_lag_seconds)"
  done
) >"$dir/samples" 2>/dev/null &
sampler=$!
"$dir/stockd-bench" --target http --url "http://127.0.0.1:$PORT" --scenarios hot \
  --duration "$DURATION" --concurrency "$CONCURRENCY" --baselines none --no-progress --no-verify
# Let the relay catch up, then stop sampling.
for _ in $(seq 1 600); do [ "$(metric stockd_relay_lag_events)" = 0 ] && break; sleep 0.1; done
kill "$sampler"; wait "$sampler" 2>/dev/null || true
echo "samples during the run: time published lag_events lag_seconds"
cat "$dir/samples"
awk 'NR > 1 && $3 > maxe { maxe = $3 } NR > 1 && $4 > maxs { maxs = $4 }
     NR == 2 { t0 = $1; p0 = $2 } { t1 = $1; p1 = $2 }
     END { printf "relay under load: %.0f events/s published; lag at most %d events, %.2f s\n", (p1 - p0) / (t1 - t0), maxe, maxs }' "$dir/samples"
stop

# The same ledger into an empty stream: a new relay name starts at seq 0.
# Streams may not share subjects, so the first one goes first.
ledger=$("$dir/streams" count "$NATS" "BENCH_A_$run")
"$dir/streams" delete "$NATS" "BENCH_A_$run"
start=$(date +%s.%N)
serve "BENCH_B_$run"
for _ in $(seq 1 3000); do [ "$(metric stockd_relay_published_total)" -ge "$ledger" ] && break; sleep 0.05; done
end=$(date +%s.%N)
published=$(metric stockd_relay_published_total)
stop
awk -v n="$published" -v s="$start" -v e="$end" -v l="$ledger" \
  'BEGIN { printf "relay draining a backlog: %d events in %.2f s (%.0f events/s, from serve start); stream A holds %d\n", n, e - s, n / (e - s), l }'
