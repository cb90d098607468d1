#!/usr/bin/env bash
# Counts the instructions redis-server executes per call of each algorithm's decision as the starter sends it, beside
# anchors on the same redis-server, with valgrind's callgrind: (instructions for 12,000 calls - for 2,000 calls) /
# 10,000, so redis-server's start, each limiter's first call and the stop cancel out. Deterministic, unlike timings
# on a shared machine. Then the MEMORY USAGE of a token bucket's key beside the minimal GCRA's key of the same name.
#
# The calls: 256 limiters in turn, one call after the other (each limiter is called again after 255 others), each
# granted, in steady state (its keys present). Each algorithm's script as LuaScripts composes its fast path (the
# file as it is), with the keys and the one argument AcquireScript builds (Redis's clock, OVERALL, no config check,
# a new grant id on each call; RateLimitBackend's default key TTL of 1 h):
#   sliding: 1,000 per 100 ms (each call finds the limiter's previous grant left the window: one leaves, one enters)
#   bucket:  a token bucket of 1,000 per hour, burst 1,000 (the bucket is never full again during the run: key held)
#   window:  a fixed window of 1,000 per hour, aligned to the epoch
# The anchors, on the same keys:
#   rrl:     Redisson 4.7.0's RRateLimiter.tryAcquire script, taken from the Redisson jar at run time, with its
#            arguments (permits, the caller's ms, 16 random bytes) on a limiter of 1,000 per 100 ms that trySetRate
#            made with a keep-alive of 1 h; its clock goes 1 ms a call, so that here too each call finds the
#            limiter's previous grant left the window
#   gcra:    the harness's minimal GCRA (reference-gcra.lua) with the bucket's emission and burst as constants
#   counter: a minimal fixed window: INCR, PEXPIRE on the first
#   one:     a script that only returns 1
# The in-flight limit's calls, each as the starter sends it (Redis's clock, OVERALL, no config check): its decision
# through the script every algorithm without a fast path of its own goes through (LuaScripts.ACQUIRE: the shared
# files, every algorithm's file, switch, decide, algorithms, acquire), its give-back and its renewal through
# LuaScripts.REFUND (the shared files, every algorithm's file, refund), with the receipt its grant's reply ended with.
# 2,048 limiters of 8 in flight, a lease period of 1 h (so that no lease ends during the run; the period is only a
# number to the scripts), one call after the other; (instructions for 12,288 calls - for 2,048) / 10,240:
#   flight-acquire:   each limiter takes 6 leases, one per turn: the calls counted find 1 to 5 leases held
#   flight-give-back: after 6 leases per limiter were taken, they are given back in the order they were taken: the
#                     give-backs counted find 5 to 1 held (the last one empties the leases key, which Redis deletes)
#   flight-renew:     after 3 leases per limiter were taken, they are renewed in the order they were taken, over and
#                     over: each renewal counted finds 3 held
# One in-flight call costs Redis its acquire and its give-back, and one renewal a third of a lease period after its
# grant and every third after that while it runs. body-acquire and body-refund: the same two scripts
# cut to their files (every function defined, every algorithm registered) and `return 1`, on the keys of the
# sliding window's calls (SCRIPTS="one body-acquire body-refund", about two minutes).
#
# The memory: one token bucket grant of 100,000 per hour (burst 100,000) and one minimal GCRA grant, each on the key
# rate_limit:{memory:token-bucket:100000}:value alone (the harness's memory scenario's name). The figures depend on
# the redis-server's allocator: jemalloc (Debian's redis-server) rounds a string up to its size class, the libc malloc
# of embedded-redis's binary less so.
#
# Needs valgrind, redis-cli, unzip, strings, a redis-server binary (REDIS_SERVER, default: redis-server on PATH; the
# one embedded-redis unpacks works too) and Redisson 4.7.0's jar (REDISSON_JAR, default: the local Maven
# repository's). Run from the repository's root (six to ten minutes; SCRIPTS="sliding rrl" measures only those, and
# SCRIPTS="one sliding flight-acquire flight-give-back flight-renew" the in-flight limit's calls beside the sliding
# window's decision, five to eight minutes):
#   ratelimit-benchmarks/tools/script-instructions.sh
set -euo pipefail
SERVER=${REDIS_SERVER:-redis-server}
PORT=${PORT:-6411}
REDISSON_JAR=${REDISSON_JAR:-$HOME/.m2/repository/org/redisson/redisson/4.7.0/redisson-4.7.0.jar}
LUA=ratelimit-core/src/main/resources/META-INF/scripts/redisson-ratelimit
LIMITERS=256
CLIENT_ID=7c1e5a3b-2f4d-4e6a-9b8c-0d1e2f3a4b5c
# the instance an in-flight lease names as its holder (<pid>@<host>; a Kubernetes pod's name here)
HOLDER=48213@orders-7f9c4b6d5-x2kqp
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# LuaScripts: ACQUIRE_SLIDING, ACQUIRE_BUCKET and ACQUIRE_WINDOW are each their one file
cp $LUA/acquire-sliding.lua "$WORK/sliding.lua"
cp $LUA/acquire-bucket.lua "$WORK/bucket.lua"
cp $LUA/acquire-window.lua "$WORK/window.lua"
# RRateLimiter's tryAcquire script: the one constant of its class that reads the config, takes ARGV[3] as the grant's
# id and decrements the counter
unzip -p "$REDISSON_JAR" org/redisson/RedissonRateLimiter.class | strings -n 200 \
  | grep -o "local rate = redis.call('hget', KEYS\[1\], 'rate');.*" \
  | grep -F "struct.pack('Bc0I', string.len(ARGV[3])" | grep -F "decrby" > "$WORK/rrl.lua" || true
if [ "$(wc -l < "$WORK/rrl.lua")" -ne 1 ]; then
  echo "RRateLimiter's tryAcquire script not found in $REDISSON_JAR" >&2
  exit 1
fi
# the harness's minimal GCRA on the free-permits key, with the token bucket's emission (3.6 s) and burst (1,000 s)
sed -e 's/KEYS\[1\]/KEYS[2]/g' -e 's/tonumber(ARGV\[1\])/3600000/' -e 's/tonumber(ARGV\[2\])/3600000000/' \
  ratelimit-benchmarks/src/main/resources/reference-gcra.lua > "$WORK/gcra.lua"
cat > "$WORK/counter.lua" <<'EOF'
local count = redis.call('incr', KEYS[2])
if count == 1 then
  redis.call('pexpire', KEYS[2], 3600000)
end
return count
EOF
echo 'return 1' > "$WORK/one.lua"

# the in-flight limit's two scripts, made as LuaScripts makes them: the shared files, every algorithm's file in the
# order Algorithms registers them (Algorithms.files()), then the script's own files, each ending with a newline
ALGORITHM_FILES="token-bucket fixed-window in-flight"
for file in $(grep -l '^register_kind(' $LUA/*.lua); do
  case " $ALGORITHM_FILES " in
    *" $(basename "$file" .lua) "*) ;;
    *) echo "$file registers an algorithm this script does not put into the scripts it composes" >&2; exit 1 ;;
  esac
done
compose() { # $1: the script's name, then its own files
  local name=$1
  shift
  for file in clock keyed common $ALGORITHM_FILES "$@"; do
    sed -e '$a\' "$LUA/$file.lua"
  done > "$WORK/$name.lua"
}
compose flight-acquire switch decide algorithms acquire
compose flight-refund refund
# the same two cut to their files' definitions: what every call of them pays before it does anything
compose body-acquire switch decide algorithms
echo 'return 1' >> "$WORK/body-acquire.lua"
compose body-refund
echo 'return 1' >> "$WORK/body-refund.lua"
FLIGHT_LIMITERS=2048
FLIGHT_FEW=2048
FLIGHT_MANY=12288

# the redis-cli commands of $3 calls of script $1 (SHA $2): a trySetRate for rrl first, then the calls
commands() {
  awk -v kind="$1" -v sha="$2" -v calls="$3" -v limiters="$LIMITERS" -v client="$CLIENT_ID" -v holder="$HOLDER" 'BEGIN {
    srand(1)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if (kind == "rrl") {
      for (u = 0; u < limiters; u++) {
        printf "HSET rate_limit:{user-%d} rate 1000 interval 100 type 0 keepAliveTime 3600000\n", u
        printf "PEXPIRE rate_limit:{user-%d} 3600000\n", u
      }
    }
    for (i = 0; i < calls; i++) {
      name = sprintf("rate_limit:{user-%d}", i % limiters)
      printf "EVALSHA %s 5 %s %s:value %s:value:%s %s:permits %s:permits:%s ", sha, name, name, name, client, name,
        name, client
      # AcquireScript.nextGrantId: 8 characters of the instance, then a counter in 8 base-36 digits
      n = i + 1; id = ""
      do { id = substr(digits, n % 36 + 1, 1) id; n = int(n / 36) } while (n > 0)
      id = "Xq3_a9Zk" substr("00000000", 1, 8 - length(id)) id
      if (kind == "sliding") {
        printf "\"1 0 %s 1000 100 0 3600000 -\"\n", id
      } else if (kind == "bucket") {
        printf "\"g 1 0 0 - 1000:3600000:1000 %s\"\n", id
      } else if (kind == "window") {
        printf "\"f 1 0 1000 3600000 0 - 0 %s\"\n", id
      } else if (kind == "rrl") {
        random = ""
        for (b = 0; b < 16; b++) {
          random = random sprintf("\\x%02x", int(rand() * 256))
        }
        printf "1 %.0f \"%s\"\n", 1700000000000 + i, random
      } else {
        printf "\"1 0 %s 1000 100 0 3600000 -\"\n", id
      }
    }
  }'
}

# the redis-cli commands of $2 in-flight grants (SHA $1), one per limiter in turn: a limit of 8, a lease of 1 h
flight_acquires() {
  awk -v sha="$1" -v calls="$2" -v limiters="$FLIGHT_LIMITERS" -v client="$CLIENT_ID" -v holder="$HOLDER" 'BEGIN {
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    for (i = 0; i < calls; i++) {
      name = sprintf("rate_limit:{tenant-%d}", i % limiters)
      n = i + 1; id = ""
      do { id = substr(digits, n % 36 + 1, 1) id; n = int(n / 36) } while (n > 0)
      id = "Xq3_a9Zk" substr("00000000", 1, 8 - length(id)) id
      printf "EVALSHA %s 5 %s %s:value %s:value:%s %s:permits %s:permits:%s \"i 1 0 0 - 8:3600000 %s %s -\"\n", sha, name,
        name, name, client, name, name, client, id, holder
    }
  }'
}

# the redis-cli commands of $2 give-backs (SHA $1) of the leases listed in file $3 (lease i taken by limiter i mod
# FLIGHT_LIMITERS), in that order and round again; renewals with $4 = renew
flight_returns() {
  awk -v sha="$1" -v calls="$2" -v limiters="$FLIGHT_LIMITERS" -v client="$CLIENT_ID" -v holder="$HOLDER" -v renew="${4:-}" '
    { lease[count++] = $1 }
    END {
      for (k = 0; k < calls; k++) {
        i = k % count
        name = sprintf("rate_limit:{tenant-%d}", i % limiters)
        printf "EVALSHA %s 5 %s %s:value %s:value:%s %s:permits %s:permits:%s 1 0 0 r%s %s%s\n", sha, name, name,
          name, client, name, name, client, lease[i], holder, renew == "" ? "" : " renew"
      }
    }' "$3"
}

# fails when a server already answers on $PORT (another run of this script, say): the counts would be of a server
# this script did not start
port_free() {
  if [ "$(redis-cli -p "$PORT" PING 2>/dev/null)" = PONG ]; then
    echo "a server already answers on port $PORT: set PORT to a free port" >&2
    exit 1
  fi
}

wait_for_server() {
  for _ in $(seq 1 200); do
    [ "$(redis-cli -p "$PORT" PING 2>/dev/null)" = PONG ] && return
    sleep 0.3
  done
  echo "redis-server did not answer on port $PORT" >&2
  exit 1
}

# fails unless the calls of script $1 were what is counted: the last one's limiter in the state described above,
# and the last call, sent again, granted
check() {
  local last name expected
  last=$(tail -1 "$WORK/commands")
  name=$(echo "$last" | awk '{print $4}')
  if [ "$1" = sliding ] || [ "$1" = rrl ]; then
    # the limiter's previous grant had left the window: the counter is the rate less the last grant
    expected=999
    [ "$(redis-cli -p "$PORT" GET "$name:value")" = "$expected" ] || fail "$1" "$name:value is not $expected"
  fi
  case "$1" in
    rrl) expected='' ;; # RRateLimiter answers a grant with nil
    one | body-*) expected=1 ;;
    counter) return ;;
    *) expected=0 ;;
  esac
  [ "$(echo "$last" | redis-cli -p "$PORT" | head -1)" = "$expected" ] || fail "$1" "the last call is not granted"
}

fail() {
  echo "$1: not the state counted: $2" >&2
  redis-cli -p "$PORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
  exit 1
}

# total instructions of a redis-server that ran $2 calls of script $1
run() {
  local out="$WORK/callgrind.$1.$2"
  port_free
  valgrind --tool=callgrind --callgrind-out-file="$out" "$SERVER" --port "$PORT" --save '' --appendonly no \
    >/dev/null 2>&1 &
  local pid=$!
  wait_for_server
  local sha
  sha=$(redis-cli -p "$PORT" SCRIPT LOAD "$(cat "$WORK/$1.lua")")
  commands "$1" "$sha" "$2" > "$WORK/commands"
  redis-cli -p "$PORT" < "$WORK/commands" > "$WORK/replies"
  # an error, or -1 (more than the limit), -4 (handed to the full script) or -5 (stale bounds) of a fast path
  if grep -q -m 1 '^ERR\|^(error)\|^-[145]$' "$WORK/replies"; then
    fail "$1" "$(grep -m 1 '^ERR\|^(error)\|^-[145]$' "$WORK/replies")"
  fi
  check "$1"
  redis-cli -p "$PORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
  wait "$pid" || true
  grep '^totals:' "$out" | awk '{print $2}'
}

# total instructions of a redis-server that answered $2 in-flight calls of kind $1 (see the header), after the same
# grants taken as setup for a give-back or a renewal
run_flight() {
  local out="$WORK/callgrind.$1.$2" setup acquire refund
  port_free
  valgrind --tool=callgrind --callgrind-out-file="$out" "$SERVER" --port "$PORT" --save '' --appendonly no \
    >/dev/null 2>&1 &
  local pid=$!
  wait_for_server
  acquire=$(redis-cli -p "$PORT" -x SCRIPT LOAD < "$WORK/flight-acquire.lua")
  refund=$(redis-cli -p "$PORT" -x SCRIPT LOAD < "$WORK/flight-refund.lua")
  case $1 in
    flight-acquire) setup=$2 ;;
    flight-give-back) setup=$FLIGHT_MANY ;;
    flight-renew) setup=$((FLIGHT_LIMITERS * 3)) ;;
    *) fail "$1" "no such in-flight case (flight-acquire, flight-give-back, flight-renew)" ;;
  esac
  flight_acquires "$acquire" "$setup" | redis-cli -p "$PORT" > "$WORK/replies"
  # a grant answers 0, the free permits, 0 and its lease id, one per line
  awk -v leases="$WORK/leases" 'NR % 4 == 1 && $1 != "0" { bad = 1 } NR % 4 == 0 { print $1 > leases }
    END { exit bad }' "$WORK/replies" || fail "$1" "not every call was granted: $(head -4 "$WORK/replies" | tr '\n' ' ')"
  [ "$(wc -l < "$WORK/leases")" -eq "$setup" ] || fail "$1" "$(wc -l < "$WORK/leases") grants of $setup"
  if [ "$1" != flight-acquire ]; then
    flight_returns "$refund" "$2" "$WORK/leases" "$([ "$1" = flight-renew ] && echo renew)" \
      | redis-cli -p "$PORT" > "$WORK/returned"
    # 1: the lease was held, and is now given back or renewed
    [ "$(grep -c '^1$' "$WORK/returned")" -eq "$2" ] || fail "$1" "a lease was not held: $(sort "$WORK/returned" | uniq -c)"
  fi
  redis-cli -p "$PORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
  wait "$pid" || true
  grep '^totals:' "$out" | awk '{print $2}'
}

measure() {
  local few many
  case $1 in
    flight-*)
      few=$(run_flight "$1" $FLIGHT_FEW)
      many=$(run_flight "$1" $FLIGHT_MANY)
      echo "$1: $(( (many - few) / (FLIGHT_MANY - FLIGHT_FEW) )) instructions per call" ;;
    *)
      few=$(run "$1" 2000)
      many=$(run "$1" 12000)
      echo "$1: $(( (many - few) / 10000 )) instructions per call" ;;
  esac
}

for script in ${SCRIPTS:-one counter gcra rrl sliding bucket window flight-acquire flight-give-back flight-renew}; do
  measure $script
done

# MEMORY USAGE of one key of the same name after one grant: the token bucket's, then the minimal GCRA's
port_free
"$SERVER" --port "$PORT" --save '' --appendonly no >/dev/null 2>&1 &
server=$!
wait_for_server
name='rate_limit:{memory:token-bucket:100000}'
key_usage() { # $1: script, $2: argument
  redis-cli -p "$PORT" DEL "$name:value" >/dev/null
  redis-cli -p "$PORT" EVAL "$(cat "$WORK/$1.lua")" 5 "$name" "$name:value" "$name:value:$CLIENT_ID" \
    "$name:permits" "$name:permits:$CLIENT_ID" "$2" >/dev/null
  redis-cli -p "$PORT" MEMORY USAGE "$name:value"
}
echo "bucket-key: $(key_usage bucket 'g 1 0 0 - 100000:3600000:100000 Xq3_a9Zk00000001') bytes"
echo "gcra-key: $(key_usage gcra x) bytes"
redis-cli -p "$PORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
wait "$server" || true
