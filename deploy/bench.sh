#!/usr/bin/env bash
# `make bench`: release build, realistic volumes, and every figure as a ratio
# to a bare baseline measured in the same run (so machine noise hits both).
#
# Data: a database `fleetdesk_bench` with the demo data plus
# BENCH_VEHICLES (default 1,000,000) vehicles over 200 enterprises, the demo
# enterprise holding 100,000 of them. It is kept between runs and rebuilt only
# when it holds fewer vehicles than asked.
#
# Each service runs as its own process (as in Kubernetes), so the exporting
# process's peak memory can be read on its own.
set -euo pipefail
# shellcheck source=deploy/stack.sh
source "$(dirname "${BASH_SOURCE[0]}")/stack.sh"

VEHICLES="${BENCH_VEHICLES:-1000000}"
SECONDS_PER_RUN="${BENCH_SECONDS:-8}"
ROUNDS="${BENCH_ROUNDS:-2}"
CONNECTIONS="${BENCH_CONNECTIONS:-64}"
DB=fleetdesk_bench

bootstrap_services
ensure_rust
have wrk || apt_install wrk
have psql || apt_install postgresql-client

target="${CARGO_TARGET_DIR:-$REPO/target}"
log "release build"
(cd "$REPO" && cargo build --release --quiet -p fleetdesk -p fleetdesk-bench --bins) || die "release build failed"
bin="$target/release/fleetdesk"
bench_bin="$target/release/fleetdesk-bench"
db_url="$(database_url "$DB")"

# --- data ---------------------------------------------------------------
have_rows="$(psql "$db_url" -tAc 'select count(*) from vehicle.vehicle' 2>/dev/null || echo 0)"
if [ "${have_rows:-0}" -lt "$VEHICLES" ]; then
    log "building the bench database: $VEHICLES vehicles (once; kept for later runs)"
    psql "$PG_ADMIN_URL" -qc "drop database if exists $DB with (force)" >/dev/null
    started=$SECONDS
    DATABASE_URL="$db_url" NATS_URL="$NATS_URL" "$bin" migrate >/dev/null
    DATABASE_URL="$db_url" NATS_URL="$NATS_URL" "$bin" seed >/dev/null
    DATABASE_URL="$db_url" NATS_URL="$NATS_URL" "$bin" seed --vehicles "$VEHICLES" >&2
    psql "$db_url" -qc 'vacuum analyze' >/dev/null
    log "bench database built in $((SECONDS - started)) s"
fi

# --- the stack, one process per target ----------------------------------
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
run_dir="$(mktemp -d -t fleetdesk-bench.XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT

export DATABASE_URL="$db_url" NATS_URL RUST_LOG="${RUST_LOG:-warn}"
FLEETDESK_INTERNAL_SIGNING_KEY="$(head -c 32 /dev/urandom | base64)"
export FLEETDESK_INTERNAL_SIGNING_KEY FLEETDESK_DB_MAX_CONNECTIONS=16
declare -A port
for svc in auth org vehicle energy finance; do port[$svc]="$(free_port)"; done
for svc in auth org vehicle energy finance; do
    export "FLEETDESK_$(tr a-z A-Z <<<"$svc")_URL=http://127.0.0.1:${port[$svc]}"
done
for svc in auth org vehicle energy finance; do
    FLEETDESK_GRPC_ADDR="127.0.0.1:${port[$svc]}" "$bin" "$svc" >"$run_dir/$svc.log" 2>&1 &
    pids+=($!)
    eval "pid_$svc=$!"
done
http_port="$(free_port)"
FLEETDESK_OBJECT_STORE_DIR="$run_dir/objects" \
    "$bin" gateway --http-addr "127.0.0.1:$http_port" >"$run_dir/gateway.log" 2>&1 &
pids+=($!)
base="http://127.0.0.1:$http_port"
wait_until 60 curl -fsS -o /dev/null "$base/readyz" || { tail -n 30 "$run_dir"/*.log >&2; die "stack not ready"; }

sign_in() {
    curl -fsS "$base/api/v1/auth/login" -H 'content-type: application/json' \
        -d "{\"loginType\":1,\"username\":\"$1\",\"password\":\"Demo@12345\"}" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["token"])'
}
token_admin="$(sign_in demo)"
token_small="$(sign_in demo2)"
token_subtree="$(sign_in demo_ops)"

list="$base/api/v1/vehicles?page=1&size=20"
plates="$(psql "$db_url" -tAc "select plate_number from vehicle.vehicle v join org.enterprise e on e.id = v.enterprise_id where e.name = '演示物流有限公司' order by random() limit 250" |
    python3 -c 'import sys, urllib.parse; print(urllib.parse.urlencode([("plate", l.strip()) for l in sys.stdin if l.strip()]))')"
body_bytes="$(curl -fsS -H "token: $token_admin" "$list" | wc -c)"
baseline_port="$(free_port)"
"$bench_bin" baseline --addr "127.0.0.1:$baseline_port" --body-bytes "$body_bytes" &
pids+=($!)
wait_until 10 curl -fsS -o /dev/null "http://127.0.0.1:$baseline_port/json"

# --- HTTP figures ---------------------------------------------------------
# measure URL [TOKEN]: "rps p50 p99 errors" over one wrk run.
measure() {
    local args=(-t2 "-c$CONNECTIONS" "-d${SECONDS_PER_RUN}s" -s "$REPO/deploy/bench/report.lua")
    [ -n "${2:-}" ] && args+=(-H "token: $2")
    wrk "${args[@]}" "$1" | tail -n 1
}
declare -A sum_rps sum_p50 sum_p99 errs
names=(baseline a_admin a_small b_plates b_subtree)
urls=("http://127.0.0.1:$baseline_port/json" "$list" "$list" "$list&$plates" "$list")
tokens=("" "$token_admin" "$token_small" "$token_admin" "$token_subtree")
for ((round = 1; round <= ROUNDS; round++)); do
    for i in "${!names[@]}"; do
        read -r rps p50 p99 e < <(measure "${urls[$i]}" "${tokens[$i]}")
        n="${names[$i]}"
        sum_rps[$n]="$(awk -v a="${sum_rps[$n]:-0}" -v b="$rps" 'BEGIN{print a+b}')"
        sum_p50[$n]="$(awk -v a="${sum_p50[$n]:-0}" -v b="$p50" 'BEGIN{print a+b}')"
        sum_p99[$n]="$(awk -v a="${sum_p99[$n]:-0}" -v b="$p99" 'BEGIN{print a+b}')"
        errs[$n]=$(( ${errs[$n]:-0} + e ))
    done
done

row() { # label name target
    local n="$2"
    awk -v l="$1" -v r="${sum_rps[$n]}" -v p5="${sum_p50[$n]}" -v p9="${sum_p99[$n]}" \
        -v b="${sum_rps[baseline]}" -v k="$ROUNDS" -v t="$3" -v e="${errs[$n]}" \
        'BEGIN{printf "%-58s %9.0f %8.2f %8.2f %7.3f  %-8s %s\n", l, r/k, p5/k, p9/k, r/b, t, (e>0 ? e " errors" : "")}'
}
printf '\nmake bench (%s vehicles, %s s x %s rounds, %s connections)\n\n' "$VEHICLES" "$SECONDS_PER_RUN" "$ROUNDS" "$CONNECTIONS"
printf '%-58s %9s %8s %8s %7s  %s\n' figure 'req/s' 'p50 ms' 'p99 ms' ratio target
row "baseline: bare axum /json, ${body_bytes} B" baseline ""
row "(a) vehicle list, page of 20 + total, 100k-vehicle tenant" a_admin ">=0.12"
row "(a) the same, small tenant (demo2)" a_small ""
row "(b) with a 250-plate batch filter" b_plates ""
row "(b) as a user reaching one organisation subtree" b_subtree ""
