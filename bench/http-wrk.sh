#!/usr/bin/env bash
# bench/http-wrk.sh: the HTTP figure of the hot SKU measured by wrk, a load
# generator that is not stockd's own (docs/benchmarks.md, "Over HTTP"). One
# SKU is created and stocked through the API, then wrk sends POST
# /v1/reservations of one unit each, a fresh Idempotency-Key per request
# (bench/http-wrk.lua), at each connection count. After each row the books
# are read back: the reserved units must match the answers wrk counted as
# won (the requests still in flight when wrk stopped may add to them, never
# more than one per connection), and nothing may be oversold. At the end
# `stockd verify` rebuilds every counter from the ledger, when the database
# is known.
#
#   bash bench/http-wrk.sh                       # starts stockd on a fresh SQLite file
#   DATABASE_URL='postgres://…&search_path=bench_x' bash bench/http-wrk.sh
#   URL=http://127.0.0.1:18090 [DATABASE_URL=…] bash bench/http-wrk.sh   # a running server
#
# Environment: URL (a running server; otherwise one is started on PORT),
# STOCKD (the binary to start and verify with; built from this tree into a
# temporary directory when unset), DATABASE_URL (the started server's
# database, sqlite in the temporary directory by default; with URL, where
# verify reads), PORT (18090), CONNECTIONS ("64 256 1024"), THREADS (2),
# DURATION (5s), STOCK (10^12 units: never runs out; a smaller stock makes
# the tail 409 insufficient_stock, counted apart), API_KEY (for a server
# with keys; its per-key rate limit applies), SERVE_FLAGS (added to serve).
# BUILTIN (1: after the wrk rows, stockd-bench --target http drives the same
# server with the hot scenario at the same connection counts, so that both
# generators' figures come from one server and one run; 0 skips it),
# STOCKD_BENCH (its binary; built from this tree when unset),
# SERVER_PID (with URL: the server's process, for its CPU per request).
# cpu_us is the server's CPU time per answered request (user + system,
# from /proc), when the script knows the server's process.
# Non-2xx answers are counted and printed by class, never added to the
# throughput of won requests (ok_rps).
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT:-18090}
CONNECTIONS=${CONNECTIONS:-64 256 1024}
THREADS=${THREADS:-2}
DURATION=${DURATION:-5s}
STOCK=${STOCK:-1000000000000}
API_KEY=${API_KEY:-}
command -v wrk >/dev/null || { echo "wrk not found: apt-get install -y wrk" >&2; exit 2; }
dir=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT

BUILTIN=${BUILTIN:-1}
if [ "$BUILTIN" = 1 ] && [ -z "${STOCKD_BENCH:-}" ]; then
  go build -o "$dir/stockd-bench" ./cmd/stockd-bench
  STOCKD_BENCH="$dir/stockd-bench"
fi
if [ -z "${STOCKD:-}" ]; then
  go build -o "$dir/stockd" ./cmd/stockd
  STOCKD="$dir/stockd"
fi
if [ -z "${URL:-}" ]; then
  DATABASE_URL=${DATABASE_URL:-sqlite://$dir/stockd.db}
  # Open on loopback (no keys), no per-key limit: the figure is the server's.
  # shellcheck disable=SC2086
  "$STOCKD" serve --database-url "$DATABASE_URL" --addr "127.0.0.1:$PORT" \
    --key-requests-per-second -1 --log-level warn ${SERVE_FLAGS:-} 2>"$dir/stockd.log" &
  pid=$!
  URL="http://127.0.0.1:$PORT"
  for _ in $(seq 1 100); do curl -fsS "$URL/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  curl -fsS "$URL/healthz" >/dev/null
fi
URL=${URL%/}
run="wrk$(date +%s)$$"
sku="$run-hot"
pid_of_server=${SERVER_PID:-$pid}
# cpu_ticks: the server's user + system CPU time in clock ticks, or nothing.
cpu_ticks() {
  if [ -n "$pid_of_server" ] && [ -r "/proc/$pid_of_server/stat" ]; then
    awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$pid_of_server/stat"
  fi
}
ticks_per_second=$(getconf CLK_TCK)
auth=()
if [ -n "$API_KEY" ]; then auth=(-H "Authorization: Bearer $API_KEY"); fi

# post PATH KEY BODY: one mutation through the API; fails on a non-2xx.
post() {
  curl -fsS -X POST "$URL$1" "${auth[@]}" -H 'Content-Type: application/json' \
    -H "Idempotency-Key: $2" -d "$3" >/dev/null
}
# balance FIELD: the SKU's total of FIELD.
balance() {
  curl -fsS "${auth[@]}" "$URL/v1/stock/$sku" | jq -r ".totals.$1"
}

post /v1/skus "$sku-create" "{\"sku\":\"$sku\",\"name\":\"wrk hot\"}"
post /v1/receipts "$sku-receive" "{\"sku\":\"$sku\",\"quantity\":$STOCK,\"reference\":\"wrk seed\"}"
echo "wrk against $URL, SKU $sku, stock $STOCK, $THREADS threads, $DURATION per row"
printf '%-6s %9s %9s %9s %8s %8s %8s %8s %8s %7s  %s\n' conns req/s ok/s non2xx errors p50_ms p90_ms p99_ms max_ms cpu_us books
failed=0
for c in $CONNECTIONS; do
  reserved_before=$(balance reserved)
  ticks_before=$(cpu_ticks)
  out=$(wrk -t"$THREADS" -c"$c" -d"$DURATION" --latency -s bench/http-wrk.lua "$URL" -- "$sku" "$run-c$c" "$API_KEY")
  echo "$out" >"$dir/wrk-$c.txt"
  line=$(grep '^wrk-result ' <<<"$out")
  field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
  ticks_after=$(cpu_ticks)
  cpu_us=-
  if [ -n "$ticks_before" ] && [ "$(field requests)" -gt 0 ]; then
    cpu_us=$(( (ticks_after - ticks_before) * 1000000 / ticks_per_second / $(field requests) ))
  fi
  sleep 0.5 # the answers wrk stopped waiting for land
  reserved=$(balance reserved)
  available=$(balance available)
  won=$(field ok)
  booked=$((reserved - reserved_before))
  inflight=$((booked - won))
  books="booked $booked, in flight at stop $inflight, available $available"
  # Every won answer is booked; at most one unanswered request per
  # connection may be booked on top; available never goes below zero.
  if [ "$inflight" -lt 0 ] || [ "$inflight" -gt "$c" ] || [ "$available" -lt 0 ]; then
    books="$books: WRONG"
    failed=1
  fi
  printf '%-6s %9s %9s %9s %8s %8s %8s %8s %8s %7s  %s\n' "$c" "$(field rps)" "$(field ok_rps)" "$(field non2xx)" \
    "$(field errors)" "$(field p50_ms)" "$(field p90_ms)" "$(field p99_ms)" "$(field max_ms)" "$cpu_us" "$books"
  if [ "$(field non2xx)" != 0 ]; then
    echo "       non-2xx by class: 409 $(field s409), 429 $(field s429), other 4xx $(field s4xx), 5xx $(field s5xx), other $(field other)"
  fi
done
if [ "$BUILTIN" = 1 ]; then
  bench_auth=()
  if [ -n "$API_KEY" ]; then bench_auth=(--api-key "$API_KEY"); fi
  echo "stockd-bench --target http against the same server:"
  "$STOCKD_BENCH" --target http --url "$URL" "${bench_auth[@]}" --scenarios hot --baselines none \
    --concurrency "$(tr ' ' ',' <<<"$CONNECTIONS")" --duration "$DURATION" --no-progress --no-verify || failed=1
fi
if [ -n "${DATABASE_URL:-}" ]; then
  if [ -n "$pid" ]; then kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""; fi
  echo "stockd verify:"
  "$STOCKD" verify --database-url "$DATABASE_URL" --log-level warn || failed=1
fi
if [ -f "$dir/stockd.log" ] && grep -qi "error\|panic" "$dir/stockd.log"; then
  echo "server log:"; grep -hi "error\|panic" "$dir/stockd.log" | head -20
fi
exit $failed
