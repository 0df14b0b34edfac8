#!/usr/bin/env bash
# bench/before-after.sh: the hot path before and after a change, measured
# side by side on one machine in one run (docs/benchmarks.md, "Issue 13:
# before and after"). It builds stockd-bench and stockd at BEFORE and at
# AFTER in temporary worktrees, then runs ROUNDS rounds; each round runs
# every part for "before" and for "after" back to back (the order flips
# each round, so neither build always runs on a warmer machine):
#   pg      the engine in-process on PostgreSQL, a fresh schema per run;
#   sqlite  the engine in-process on a fresh SQLite file;
#   http    a stockd serve on PostgreSQL driven by stockd-bench --target http.
# The SQL and Redis baselines run with the "after" build only (they are the
# same code in both builds); ratios to them come from that build's rows.
# JSON reports land in OUT; bench/before-after.py turns them into medians.
# Binaries stay in a temporary directory: never commit them.
#
#   BEFORE=b79540b AFTER=HEAD OUT=/tmp/ba bash bench/before-after.sh [POSTGRES_URL]
#
# Environment: ROUNDS (3), DURATION (5s), PARTS (pg,sqlite,http),
# PG_SCENARIOS (hot,flash,orders), CONCURRENCY (64,256,1024), PORT (18080).
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${1:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
BEFORE=${BEFORE:-b79540b}
AFTER=${AFTER:-HEAD}
OUT=${OUT:-$(mktemp -d)}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
PARTS=${PARTS:-pg,sqlite,http}
PG_SCENARIOS=${PG_SCENARIOS:-hot,flash,orders}
CONCURRENCY=${CONCURRENCY:-64,256,1024}
PORT=${PORT:-18080}
mkdir -p "$OUT"
dir=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  for v in before after; do git worktree remove --force "$dir/src-$v" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT

for v in before after; do
  rev=$BEFORE; [ "$v" = after ] && rev=$AFTER
  git worktree add -q --detach "$dir/src-$v" "$rev"
  (cd "$dir/src-$v" && go build -o "$dir/$v-bench" ./cmd/stockd-bench && go build -o "$dir/$v-stockd" ./cmd/stockd)
  git -C "$dir/src-$v" rev-parse --short HEAD >"$OUT/$v.rev"
done

sep='?'; case "$PG" in *\?*) sep='&' ;; esac
fresh_schema() {
  PGOPTIONS=--client-min-messages=warning psql -q "$PG" -c "DROP SCHEMA IF EXISTS $1 CASCADE" -c "CREATE SCHEMA $1" >/dev/null
}
baselines() { if [ "$1" = after ]; then echo "${2:-naive-update,select-for-update,redis-lua}"; else echo none; fi; }

run_pg() {
  fresh_schema bench_ba
  "$dir/$1-bench" --no-progress --json "$OUT/pg-$1-$2.json" \
    --database-url "$PG${sep}search_path=bench_ba" --baselines "$(baselines "$1")" \
    --scenarios "$PG_SCENARIOS" --concurrency "$CONCURRENCY" --duration "$DURATION" >"$OUT/pg-$1-$2.txt"
}
run_sqlite() {
  "$dir/$1-bench" --no-progress --json "$OUT/sqlite-$1-$2.json" --fresh \
    --baselines "$(baselines "$1")" --scenarios hot --concurrency "$CONCURRENCY" \
    --duration "$DURATION" >"$OUT/sqlite-$1-$2.txt"
}
run_http() {
  fresh_schema bench_ba_http
  local db="$PG${sep}search_path=bench_ba_http"
  "$dir/$1-stockd" serve --database-url "$db" --addr "127.0.0.1:$PORT" \
    --key-requests-per-second -1 --log-level warn 2>"$OUT/http-$1-$2.log" &
  server=$!
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  "$dir/$1-bench" --no-progress --json "$OUT/http-$1-$2.json" --target http \
    --url "http://127.0.0.1:$PORT" --database-url "$db" \
    --baselines "$(baselines "$1" naive-update,redis-lua)" --scenarios hot,flash \
    --concurrency "$CONCURRENCY" --duration "$DURATION" >"$OUT/http-$1-$2.txt"
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
}

for round in $(seq 1 "$ROUNDS"); do
  order="before after"; [ $((round % 2)) -eq 0 ] && order="after before"
  for part in ${PARTS//,/ }; do
    for v in $order; do
      echo "round $round: $part $v ($(date -u +%T))" >&2
      "run_$part" "$v" "$round"
    done
  done
done
echo "reports in $OUT" >&2
