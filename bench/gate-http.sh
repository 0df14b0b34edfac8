#!/usr/bin/env bash
# bench/gate-http.sh: stockd-http (the engine), stockd-gate (the Redis gate)
# and redis-lua (the bare script) in one stockd-bench run over HTTP, against
# one stockd replica or two on one PostgreSQL (docs/benchmarks.md, "The gate
# over HTTP"). It starts a redis-server of its own on a free port
# (noeviction, AOF off: nothing of the shared Redis is touched), which the
# servers' gate and the redis-lua baseline share, and migrates stockd into a
# schema of its own, dropped at the end. Binaries and the JSON report stay
# in a temporary directory: never commit them.
#
#   REPLICAS=2 bash bench/gate-http.sh [POSTGRES_URL]
#
# Environment: REPLICAS (1 or 2), DURATION (5s), CONCURRENCY (64),
# SCENARIOS (hot,flash), PORT (18090; replica i listens on PORT+i),
# JSON (copy the report there). The report's persist_drain_seconds is the
# gate's persist lag at the end of each row: how long after the load ended
# the persisters wrote the last win.
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${1:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
REPLICAS=${REPLICAS:-1}
DURATION=${DURATION:-5s}
CONCURRENCY=${CONCURRENCY:-64}
SCENARIOS=${SCENARIOS:-hot,flash}
PORT=${PORT:-18090}
case "$REPLICAS" in 1|2) ;; *) echo "REPLICAS must be 1 or 2" >&2; exit 2 ;; esac
dir=$(mktemp -d)
schema="bench_gate_$(date +%s)_$$"
redis_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  psql -q "$PG" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

go build -o "$dir/stockd" ./cmd/stockd
go build -o "$dir/stockd-bench" ./cmd/stockd-bench
psql -q "$PG" -c "CREATE SCHEMA $schema" >/dev/null
sep='?'; case "$PG" in *\?*) sep='&' ;; esac
DB="$PG${sep}search_path=$schema"
REDIS="redis://127.0.0.1:$redis_port/0"

redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
  --maxmemory-policy noeviction --dir "$dir" >"$dir/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done

urls=()
for i in $(seq 1 "$REPLICAS"); do
  port=$((PORT + i))
  "$dir/stockd" serve --database-url "$DB" --addr "127.0.0.1:$port" --redis-url "$REDIS" \
    --key-requests-per-second -1 --log-level warn 2>>"$dir/stockd-$i.log" &
  pids+=($!)
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null
  urls+=("http://127.0.0.1:$port")
done
url_list=$(IFS=,; echo "${urls[*]}")

echo "stockd-bench over HTTP: $REPLICAS replica(s) on PostgreSQL (schema $schema), own Redis on :$redis_port"
"$dir/stockd-bench" --target http --url "$url_list" --redis-url "$REDIS" --database-url "$DB" \
  --scenarios "$SCENARIOS" --baselines stockd-gate,redis-lua --concurrency "$CONCURRENCY" \
  --duration "$DURATION" --no-progress --no-verify --json "$dir/report.json"
python3 - "$dir/report.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
for r in rep["rows"]:
    if r.get("implementation") == "stockd-gate":
        print(f'persist lag ({r["scenario"]}, c={r["concurrency"]}): last win written {r.get("persist_drain_seconds", 0):.3f} s after the load ended')
PY
if [ -n "${JSON:-}" ]; then cp "$dir/report.json" "$JSON"; fi
if grep -qi "error\|panic" "$dir"/stockd-*.log; then echo "server logs:"; grep -hi "error\|panic" "$dir"/stockd-*.log | head -20; fi
