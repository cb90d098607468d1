#!/usr/bin/env bash
# Counts the instructions redis-server executes per decision for each algorithm's own acquire script and for a
# minimal GCRA script, with valgrind's callgrind: (instructions for 12,000 calls - for 2,000 calls) / 10,000, so
# redis-server's start and stop cancel out. Deterministic, unlike timings on a shared machine.
# Needs valgrind, redis-benchmark, redis-cli and a redis-server binary (REDIS_SERVER, default: redis-server on PATH;
# the one embedded-redis unpacks works too). Run from the repository's root:
#   ratelimit-benchmarks/tools/script-instructions.sh
set -euo pipefail
SERVER=${REDIS_SERVER:-redis-server}
PORT=${PORT:-6411}
LUA=ratelimit-core/src/main/resources/META-INF/scripts/redisson-ratelimit
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# the compositions of LuaScripts: ACQUIRE_SLIDING, ACQUIRE_BUCKET, ACQUIRE_WINDOW
cp $LUA/acquire-sliding.lua "$WORK/sliding.lua"
cp $LUA/acquire-bucket.lua "$WORK/bucket.lua"
cp $LUA/acquire-bucket.lua "$WORK/bucket-held.lua"
cp $LUA/acquire-window.lua "$WORK/window.lua"
echo 'return 1' > "$WORK/one.lua"
# the harness's minimal GCRA reference, on the second key (the free-permits key's place) with a permit a ms and a
# burst of 1,000 s, as constants instead of its two arguments (the calls here carry one)
sed -e 's/KEYS\[1\]/KEYS[2]/g' -e 's/tonumber(ARGV\[1\])/1000/' -e 's/tonumber(ARGV\[2\])/1000000000/' \
  ratelimit-benchmarks/src/main/resources/reference-gcra.lua > "$WORK/gcra.lua"

# total instructions of a redis-server that ran $2 calls of script $1 with argument $3
run() {
  local out="$WORK/callgrind.$RANDOM"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$SERVER" --port "$PORT" --save '' --appendonly no \
    >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do [ "$(redis-cli -p "$PORT" PING 2>/dev/null)" = PONG ] && break; sleep 0.3; done
  local sha
  sha=$(redis-cli -p "$PORT" SCRIPT LOAD "$(cat "$1")")
  redis-benchmark -p "$PORT" -n "$2" -c 1 -r 256 -q EVALSHA "$sha" 5 "{k:__rand_int__}" "{k:__rand_int__}:value" \
    "{k:__rand_int__}:value:c" "{k:__rand_int__}:permits" "{k:__rand_int__}:permits:c" "$3" >/dev/null
  redis-cli -p "$PORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
  wait "$pid" || true
  grep '^totals:' "$out" | awk '{print $2}'
}

measure() {
  local few many
  few=$(run "$WORK/$1.lua" 2000 "$2")
  many=$(run "$WORK/$1.lua" 12000 "$2")
  echo "$1: $(( (many - few) / 10000 )) instructions per call"
}

measure one x
measure gcra x
measure sliding '1 0 abcdefgh00000001 1000000 1000 0 0 -'
# bucket: a permit every µs, so its key (which lives until the bucket is full again, 1 ms) is mostly absent;
# bucket-held: a permit a second and a large burst, so its key holds the bucket on each call after the first
measure bucket 'g 1 0 0 - 1000000:1000:1000000 abcdefgh00000001'
measure bucket-held 'g 1 0 0 - 1000:1000000:1000000 abcdefgh00000001'
measure window 'f 1 0 1000000000 1000 0 - 0 abcdefgh00000001'
