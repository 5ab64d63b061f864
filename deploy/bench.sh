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
# process's peak memory can be read on its own. The stack gets a private
# nats-server, so the bench's 100,000s of fixes never reach the telemetry
# stream other stacks on the machine read.
#
# BENCH_ONLY=f,g,h runs just those figures (letters a-n; default all).
# BENCH_PERF=DIR samples (a) and (b) with perf (see the measure loop).
set -euo pipefail
# shellcheck source=deploy/stack.sh
source "$(dirname "${BASH_SOURCE[0]}")/stack.sh"

VEHICLES="${BENCH_VEHICLES:-1000000}"
SECONDS_PER_RUN="${BENCH_SECONDS:-8}"
ROUNDS="${BENCH_ROUNDS:-2}"
CONNECTIONS="${BENCH_CONNECTIONS:-64}"
DB=fleetdesk_bench
ONLY="${BENCH_ONLY:-a,b,c,d,e,f,g,h,i,j,k,l,m,n}"
# want LETTER: the figure is asked for.
want() { [[ ",$ONLY," == *",$1,"* ]]; }

bootstrap_services
ensure_rust
have wrk || apt_install wrk
have psql && have pgbench || apt_install postgresql-client
if [ -n "${BENCH_PERF:-}" ]; then have perf || apt_install linux-perf; fi
# (m)'s camera streams H.264 that ffmpeg encodes.
if want m; then "$REPO/deploy/ensure-tools.sh" ffmpeg || die "(m) needs ffmpeg"; fi

target="${CARGO_TARGET_DIR:-$REPO/target}"
log "release build"
(cd "$REPO" && cargo build --release --quiet -p fleetdesk -p fleetdesk-bench --bins) || die "release build failed"
bin="$target/release/fleetdesk"
bench_bin="$target/release/fleetdesk-bench"
db_url="$(database_url "$DB")"

run_dir="$(mktemp -d -t fleetdesk-bench.XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT
# start_nats NAME: a private JetStream nats-server; sets STARTED_NATS_URL.
nats_bin="$(command -v nats-server || echo /usr/sbin/nats-server)"
start_nats() {
    local port
    port="$(free_port)"
    "$nats_bin" -a 127.0.0.1 -p "$port" -js -sd "$run_dir/nats-$1" >"$run_dir/nats-$1.log" 2>&1 &
    pids+=($!)
    wait_until 10 tcp_open 127.0.0.1 "$port" || die "the bench's nats-server ($1) did not start"
    STARTED_NATS_URL="nats://127.0.0.1:$port"
}
start_nats stack
NATS_URL="$STARTED_NATS_URL"

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
# A kept database takes the migrations added since it was built.
DATABASE_URL="$db_url" NATS_URL="$NATS_URL" "$bin" migrate >/dev/null

# --- the stack, one process per target ----------------------------------
export DATABASE_URL="$db_url" NATS_URL RUST_LOG="${RUST_LOG:-warn}"
FLEETDESK_INTERNAL_SIGNING_KEY="$(head -c 32 /dev/urandom | base64)"
export FLEETDESK_INTERNAL_SIGNING_KEY FLEETDESK_DB_MAX_CONNECTIONS=16
# One object store for every process, as the chart's shared volume: imports
# are staged by the gateway and read by vehicle, exports the other way round.
export FLEETDESK_OBJECT_STORE_DIR="$run_dir/objects"
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
# (m) The device edge (telematics): JT/T 808 for the bench's terminal, its
# media ports, and MediaService for the gateway.
if want m; then
    port[telematics]="$(free_port)"
    jt808_port="$(free_port)"
    export FLEETDESK_TELEMATICS_URL="http://127.0.0.1:${port[telematics]}"
    FLEETDESK_GRPC_ADDR="127.0.0.1:${port[telematics]}" FLEETDESK_JT808_ADDR="127.0.0.1:$jt808_port" \
        FLEETDESK_MEDIA_ADDR=127.0.0.1:0 FLEETDESK_MEDIA_PLAYBACK_ADDR=127.0.0.1:0 FLEETDESK_ATTACHMENT_ADDR=127.0.0.1:0 \
        "$bin" telematics >"$run_dir/telematics.log" 2>&1 &
    pids+=($!)
    pid_telematics=$!
    wait_until 30 tcp_open 127.0.0.1 "$jt808_port" || { tail -n 30 "$run_dir/telematics.log" >&2; die "the device edge did not start"; }
fi
http_port="$(free_port)"
"$bin" gateway --http-addr "127.0.0.1:$http_port" >"$run_dir/gateway.log" 2>&1 &
pids+=($!)
pid_gateway=$!
base="http://127.0.0.1:$http_port"
wait_until 60 curl -fsS -o /dev/null "$base/readyz" || { tail -n 30 "$run_dir"/*.log >&2; die "stack not ready"; }

# settle LIMIT WHAT: waits, at most LIMIT s, until the machine's CPUs are
# under 10 % busy over 2 s (/proc/stat), and says how long it took. A stack
# that answers /readyz may still run its start-up jobs (a first due-warning
# round over 1M vehicles, the outbox relaying it), and a figure timed over
# them measures them too.
cpu_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $5+$6}' /proc/stat; }
settle() {
    local limit="$1" what="$2" started=$SECONDS b0 i0 b1 i1 busy
    while :; do
        read -r b0 i0 < <(cpu_ticks)
        sleep 2
        read -r b1 i1 < <(cpu_ticks)
        busy=$(( 100 * (b1 - b0) / (b1 - b0 + i1 - i0 + 1) ))
        if [ "$busy" -lt 10 ]; then
            log "quiet before $what after $((SECONDS - started)) s (${busy}% busy)"
            return 0
        fi
        if [ $((SECONDS - started)) -ge "$limit" ]; then
            log "warning: still ${busy}% busy before $what after $limit s; its figures include that load"
            return 0
        fi
    done
}
settle "${BENCH_SETTLE_SECONDS:-900}" "the first figure"

sign_in() {
    curl -fsS "$base/api/v1/auth/login" -H 'content-type: application/json' \
        -d "{\"loginType\":1,\"username\":\"$1\",\"password\":\"Demo@12345\"}" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["token"])'
}
token_admin="$(sign_in demo)"
token_small="$(sign_in demo2)"
token_subtree="$(sign_in demo_ops)"

demo_enterprise="$(psql "$db_url" -tAc "select id from org.enterprise where name = '演示物流有限公司'")"
if want a || want b; then
    list="$base/api/v1/vehicles?page=1&size=20"
    # (b)'s plates: the same 250 every run (as fleetdesk-bench vehicle-batch takes them).
    plates="$(psql "$db_url" -tAc "select plate_number from vehicle.vehicle v join org.enterprise e on e.id = v.enterprise_id where e.name = '演示物流有限公司' order by md5(v.plate_number) limit 250" |
        python3 -c 'import sys, urllib.parse; print(urllib.parse.urlencode([("plate", l.strip()) for l in sys.stdin if l.strip()]))')"
    body_bytes="$(curl -fsS -H "token: $token_admin" "$list" | wc -c)"
    baseline_port="$(free_port)"
    "$bench_bin" baseline --addr "127.0.0.1:$baseline_port" --body-bytes "$body_bytes" &
    pids+=($!)
    wait_until 10 curl -fsS -o /dev/null "http://127.0.0.1:$baseline_port/json"
fi

printf '\nmake bench (%s vehicles, %s s x %s rounds, %s connections; figures %s)\n' "$VEHICLES" "$SECONDS_PER_RUN" "$ROUNDS" "$CONNECTIONS" "$ONLY"

# --- HTTP figures ---------------------------------------------------------
if want a || want b; then
    # measure URL [TOKEN]: "rps p50 p99 errors" over one wrk run.
    measure() {
        local args=(-t2 "-c$CONNECTIONS" "-d${SECONDS_PER_RUN}s" -s "$REPO/deploy/bench/report.lua")
        [ -n "${2:-}" ] && args+=(-H "token: $2")
        wrk "${args[@]}" "$1" | tail -n 1
    }
    declare -A sum_rps sum_p50 sum_p99 errs
    names=(baseline) urls=("http://127.0.0.1:$baseline_port/json") tokens=("")
    if want a; then
        names+=(a_admin a_small) urls+=("$list" "$list") tokens+=("$token_admin" "$token_small")
    fi
    if want b; then
        names+=(b_plates b_subtree) urls+=("$list&$plates" "$list") tokens+=("$token_admin" "$token_subtree")
    fi
    for ((round = 1; round <= ROUNDS; round++)); do
        for i in "${!names[@]}"; do
            # BENCH_PERF=DIR: the first round of each figure is also sampled
            # by perf (call graphs of the gateway and the vehicle service),
            # into DIR/<figure>.perf.data, for `perf report -i`; its figures
            # then carry perf's own cost, so profile and measure in separate runs.
            if [ -n "${BENCH_PERF:-}" ] && [ "$round" -eq 1 ] && [ "${names[$i]}" != baseline ]; then
                mkdir -p "$BENCH_PERF"
                perf record --call-graph dwarf -F 499 -p "$pid_gateway,$pid_vehicle" -o "$BENCH_PERF/${names[$i]}.perf.data" \
                    -- sleep "$SECONDS_PER_RUN" >"$BENCH_PERF/${names[$i]}.perf.log" 2>&1 &
                perf_pid=$!
            fi
            read -r rps p50 p99 e < <(measure "${urls[$i]}" "${tokens[$i]}")
            if [ -n "${perf_pid:-}" ]; then
                wait "$perf_pid" || log "warning: perf did not sample ${names[$i]}: $(tail -n 1 "$BENCH_PERF/${names[$i]}.perf.log")"
                perf_pid=""
            fi
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
    printf '\n%-58s %9s %8s %8s %7s  %s\n' figure 'req/s' 'p50 ms' 'p99 ms' ratio target
    row "baseline: bare axum /json, ${body_bytes} B" baseline ""
    if want a; then
        row "(a) vehicle list, page of 20 + total, 100k-vehicle tenant" a_admin ">=0.12"
        row "(a) the same, small tenant (demo2)" a_small ""
    fi
    if want b; then
        row "(b) with a 250-plate batch filter" b_plates ""
        row "(b) as a user reaching one organisation subtree" b_subtree ""
    fi
fi

# --- (a) and (b) beside their Postgres-only ceilings: pgbench of their own transactions
# `--token=…`: a token may begin with "-", which a separate argument would
# turn into an unknown option.
for figure in a:vehicle-list b:vehicle-batch; do
    letter="${figure%%:*}"
    want "$letter" || continue
    settle 60 "($letter)'s ceiling"
    "$bench_bin" "${figure#*:}" --database-url "$db_url" --base-url "$base" --token="$token_admin" \
        --gateway-pid "$pid_gateway" --vehicle-pid "$pid_vehicle" \
        --connections "${FLEETDESK_DB_MAX_CONNECTIONS}" --seconds "$SECONDS_PER_RUN" --rounds "$ROUNDS" ||
        die "($letter) against its Postgres-only ceiling failed"
done

# --- (c) export of the 100k-vehicle tenant vs COPY of the same rows --------
if want c; then
    settle 60 "(c)"
    # The same rows as the export reads: every column of its select, the
    # organisation name from the replica, in its order (newest first).
    copy_seconds() {
        local t0 t1
        t0="$(date +%s.%N)"
        psql "$db_url" -qc "\\copy (select v.id, v.org_id, coalesce((select o.name from vehicle.org_unit o where o.id = v.org_id), '') as org_name, v.created_by, v.updated_by, v.plate_number, v.plate_color, v.vin, v.engine_number, v.brand, v.model, v.category, v.energy_type, v.body_color, v.seat_count, v.rated_load_kg, v.curb_weight_kg, v.battery_capacity_wh, v.rated_range_km, v.ownership_type, v.status, v.register_time, v.licence_owner, v.licence_issue_time, v.inspection_expire_time, v.insurance_expire_time, v.terminal_id, v.terminal_sim, v.terminal_bound_at, v.driver_id, v.driver_name, v.usage_kind, v.usage_status, v.lease_start_time, v.lease_end_time, v.tags, v.licence_images, v.remark, v.created_at, v.updated_at from vehicle.vehicle v where v.enterprise_id = '$demo_enterprise' order by v.created_at desc, v.id desc) to stdout" >/dev/null
        t1="$(date +%s.%N)"
        awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}'
    }
    # export_seconds: start an export as the demo admin and wait for its record to finish.
    export_seconds() {
        local t0 id status t1
        t0="$(date +%s.%N)"
        id="$(curl -fsS -X POST "$base/api/v1/vehicles/export" -H "token: $token_admin" -H 'content-type: application/json' -d '{}' |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')"
        while :; do
            status="$(curl -fsS "$base/api/v1/export-records/$id" -H "token: $token_admin" |
                python3 -c 'import json,sys; d=json.load(sys.stdin)["data"]; print(d["status"], d["rowsDone"])')"
            case "${status%% *}" in
                3) break ;;
                4 | 5 | 6) die "export $id ended with status $status" ;;
            esac
            sleep 0.2
        done
        t1="$(date +%s.%N)"
        awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}'
    }
    export_rows="$(psql "$db_url" -tAc "select count(*) from vehicle.vehicle where enterprise_id = '$demo_enterprise'")"
    copy_total=0 export_total=0
    for ((round = 1; round <= ROUNDS; round++)); do
        copy_total="$(awk -v a="$copy_total" -v b="$(copy_seconds)" 'BEGIN{print a+b}')"
        export_total="$(awk -v a="$export_total" -v b="$(export_seconds)" 'BEGIN{print a+b}')"
    done
    vehicle_peak_mb="$(awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$pid_vehicle/status")"
    printf '\n%-58s %9s %9s %7s  %s\n' figure 'seconds' 'rows/s' ratio target
    awk -v l="COPY (select …) TO STDOUT, $export_rows rows" -v s="$copy_total" -v k="$ROUNDS" -v n="$export_rows" \
        'BEGIN{printf "%-58s %9.2f %9.0f %7s\n", l, s/k, n*k/s, "1.000"}'
    awk -v l="(c) export to xlsx, $export_rows rows (job, object store)" -v s="$export_total" -v c="$copy_total" -v k="$ROUNDS" -v n="$export_rows" \
        'BEGIN{printf "%-58s %9.2f %9.0f %7.3f  >=0.4\n", l, s/k, n*k/s, c/s}'
    printf '%-58s %8s MB\n' "(c) vehicle process peak RSS after the exports" "$vehicle_peak_mb"
    # A million rows through the same worker, in a process of its own.
    "$bench_bin" export-million --database-url "$db_url" --rounds 1 || die "(c) at a million rows failed"
fi

# --- (d) import of 10,000 vehicle rows (small tenant; removed afterwards) --
if want d; then
    IMPORT_ROWS="${BENCH_IMPORT_ROWS:-10000}"
    small_enterprise="$(psql "$db_url" -tAc "select enterprise_id from org.member where user_name = 'demo2'")"
    small_root="$(psql "$db_url" -tAc "select org_code from org.org_unit where enterprise_id = '$small_enterprise' and parent_id is null")"
    import_file="$run_dir/import.xlsx"
    "$bench_bin" import-file --rows "$IMPORT_ROWS" --org "$small_root" --remark "bench import" --out "$import_file"
    remove_imported() {
        psql "$db_url" -qc "delete from vehicle.vehicle where enterprise_id = '$small_enterprise' and remark = 'bench import'" >/dev/null
    }
    remove_imported
    import_total=0
    for ((round = 1; round <= ROUNDS; round++)); do
        t0="$(date +%s.%N)"
        imported="$(curl -fsS "$base/api/v1/vehicles/import" -H "token: $token_small" -F "file=@$import_file" |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["imported"])')" ||
            die "the bench import was refused"
        t1="$(date +%s.%N)"
        [ "$imported" = "$IMPORT_ROWS" ] || die "imported $imported of $IMPORT_ROWS rows"
        import_total="$(awk -v a="$import_total" -v a0="$t0" -v a1="$t1" 'BEGIN{print a+a1-a0}')"
        remove_imported
    done
    awk -v l="(d) import of $IMPORT_ROWS vehicle rows (xlsx, one transaction)" -v s="$import_total" -v k="$ROUNDS" -v n="$IMPORT_ROWS" \
        'BEGIN{printf "%-58s %9.2f %9.0f\n", l, s/k, n*k/s}'
fi

# --- (e) JT/T 808 frames decoded and published, one core ------------------
if want e; then
    # Its own nats-server: these frames' fixes belong to no known vehicle and
    # must not reach the stack's telemetry stream (and its ingest).
    start_nats jt808
    "$bench_bin" jt808 --nats-url "$STARTED_NATS_URL" --frames "${BENCH_JT808_FRAMES:-100000}" --rounds "$ROUNDS"
fi

# --- (f) ingest from the telemetry stream vs COPY of the same rows --------
# The demo fleet's first BENCH_FLEET vehicles report every 10 s to the
# stack's stream; its vehicle process stores history and latest positions
# and evaluates 1,000 fences of the enterprise.
# (l) runs each round twice, with the demo's alarm rules and without.
FLEET="${BENCH_FLEET:-10000}"
if want f || want l; then
    settle 60 "(f)"
    compare=()
    want l && compare=(--compare-rules)
    "$bench_bin" ingest --database-url "$db_url" --nats-url "$NATS_URL" --vehicles "$FLEET" \
        --fixes "${BENCH_INGEST_FIXES:-10}" --fences 1000 --vehicle-pid "$pid_vehicle" --rounds "$ROUNDS" \
        "${compare[@]}" || die "(f)/(l) failed"
fi

# --- (g) one vehicle's 7-day track through the edge vs the bare select ----
if want g; then
    "$bench_bin" track --database-url "$db_url" --base-url "$base" --token="$token_admin" \
        --connections "${BENCH_TRACK_CONNECTIONS:-4}" --seconds "$SECONDS_PER_RUN" --rounds "$ROUNDS" ||
        die "(g) failed"
fi

# --- (h) SSE: browser streams while the fleet moves vs a bare relay -------
if want h; then
    settle 60 "(h)"
    relay_port="$(free_port)"
    "$bench_bin" relay --addr "127.0.0.1:$relay_port" --nats-url "$NATS_URL" --enterprise "$demo_enterprise" &
    pids+=($!)
    relay_pid=$!
    wait_until 10 tcp_open 127.0.0.1 "$relay_port" || die "the SSE relay did not start"
    "$bench_bin" sse --database-url "$db_url" --nats-url "$NATS_URL" --base-url "$base" --token="$token_admin" \
        --relay-url "http://127.0.0.1:$relay_port/stream" --relay-pid "$relay_pid" \
        --gateway-pid "$pid_gateway" --vehicle-pid "$pid_vehicle" --vehicles "$FLEET" \
        --streams "${BENCH_SSE_STREAMS:-100}" --seconds "${BENCH_SSE_SECONDS:-20}" || die "(h) failed"
fi

# --- (i) session captures on one hot account vs bare single-row updates ---
if want i; then
    settle 60 "(i)"
    "$bench_bin" energy-captures --database-url "$db_url" \
        --sessions "${BENCH_CAPTURES:-2000}" --cards "${BENCH_CAPTURE_CARDS:-64}" \
        --connections "${BENCH_ENERGY_CONNECTIONS:-16}" --rounds "$ROUNDS" || die "(i) failed"
fi

# --- (j) allocation latency under the acceptance test's concurrency -------
# 1,000 allocations and reclaims on one account tree, 64 in flight, through
# the stack's energy process over gRPC, in an enterprise of the bench's own
# opened in energy's schema (as the demo seed does).
if want j; then
    "$bench_bin" energy-allocations --database-url "$db_url" --energy-url "$FLEETDESK_ENERGY_URL" \
        --moves "${BENCH_ALLOCATIONS:-1000}" --in-flight "${BENCH_ALLOCATIONS_IN_FLIGHT:-64}" \
        --rounds "$ROUNDS" || die "(j) failed"
fi

# --- (k) the monthly operation log vs pgbench of its own transaction -----
if want k; then
    settle 60 "(k)"
    "$bench_bin" monthly-log --database-url "$db_url" --base-url "$base" --token="$token_admin" \
        --gateway-pid "$pid_gateway" --vehicle-pid "$pid_vehicle" \
        --connections "${FLEETDESK_DB_MAX_CONNECTIONS}" --seconds "$SECONDS_PER_RUN" --rounds "$ROUNDS" ||
        die "(k) failed"
fi

# --- (m) one camera fanned out to 50 viewers vs a bare TCP relay ----------
# A terminal of the demo enterprise streams real H.264 (ffmpeg, 25 fps) over
# JT/T 1078; viewers read /video/vehicles/{id}/live through the gateway and,
# first, in the same run, a bare relay's copy of the same bytes.
if want m; then
    "$bench_bin" video --database-url "$db_url" --base-url "$base" --token="$token_admin" \
        --edge-addr "127.0.0.1:$jt808_port" --gateway-pid "$pid_gateway" --edge-pid "$pid_telematics" \
        --viewers "${BENCH_VIDEO_VIEWERS:-50}" --seconds "${BENCH_VIDEO_SECONDS:-20}" || die "(m) failed"
fi

# --- (n) bill payments from one main account vs bare single-row updates ---
# BENCH_PAYERS (64) payers at once, each paying the next unpaid bill in full
# from the prepaid balance through the stack's finance process over gRPC
# (PayBill, its own Idempotency-Key each), in a fresh enterprise of the
# bench's own per round; beside it pgbench with as many clients of a bare
# `update … set balance_fen = balance_fen - 1` of one row.
if want n; then
    settle 60 "(n)"
    "$bench_bin" finance-payments --database-url "$db_url" --finance-url "$FLEETDESK_FINANCE_URL" \
        --finance-pid "$pid_finance" --payers "${BENCH_PAYERS:-64}" --bills "${BENCH_PAYMENT_BILLS:-20000}" \
        --seconds "$SECONDS_PER_RUN" --rounds "$ROUNDS" || die "(n) failed"
fi
