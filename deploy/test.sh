#!/usr/bin/env bash
# `make test`: every check — contracts, Rust (format, lints, unit and
# integration tests against real PostgreSQL and NATS), Helm, the console
# (lint, types, unit tests, build) and, against the running stack, the
# bytes on the wire in Chromium, browser tests and a bounded schemathesis run
# over the OpenAPI document.
set -euo pipefail
# shellcheck source=deploy/stack.sh
source "$(dirname "${BASH_SOURCE[0]}")/stack.sh"

started=$SECONDS
# The commit under test, when the tree is clean: the Rust build below is then
# noted as that commit's, for a later clean clone to reuse (build-freshness.sh).
clean_commit=""
[ -z "$(git -C "$REPO" status --porcelain 2>/dev/null)" ] && clean_commit="$(git -C "$REPO" rev-parse HEAD 2>/dev/null || true)"
# Each step says when it starts (seconds into the run), so a slow one shows.
step() { printf '\n==> [%ss] %s\n' "$((SECONDS - started))" "$*" >&2; }

# cargo_step ARGS...: runs cargo, its output kept too; when it fails, the
# first errors are printed again last, so the end of a CI log names them
# (rather than cargo's closing "could not compile"), with the disk and memory
# left, two causes that name no line of code.
cargo_step() {
    local output status=0
    output="$(mktemp -t fleetdesk-cargo.XXXXXX.log)"
    (cd "$REPO" && cargo "$@") 2>&1 | tee "$output" || status=$?
    if [ "$status" -ne 0 ]; then
        printf '\n==> cargo %s failed (exit %s); its first errors:\n' "$1" "$status" >&2
        # Each failure's test, scenario and panic message; backtrace frames
        # left out, so that one long backtrace does not hide the next failure.
        grep -E -A8 '^(error|\s*thread .* panicked|\s*scenario .*: FAILED|        FAIL|     SIGKILL|   TIMEOUT)' "$output" |
            grep -Ev '^\s+([0-9]+: |at )' | head -n 150 >&2 || true
        df -h "${CARGO_TARGET_DIR:-$REPO/target}" >&2 || true
        free -m >&2 || true
        exit "$status"
    fi
    rm -f "$output"
}

step "services and tools"
bootstrap_services
ensure_rust
"$REPO/deploy/ensure-tools.sh" buf helm kubevalidate chromium nextest schemathesis ffmpeg

step "contracts: buf lint"
(cd "$REPO" && buf lint)

step "contracts: nothing broken against the baseline (proto/CHANGELOG.md)"
(cd "$REPO" && buf breaking --against proto/baseline/fleetdesk.binpb)

step "rust: format and lints"
(cd "$REPO" && cargo fmt --all --check)
cargo_step clippy --workspace --all-targets --quiet -- -D warnings

step "rust: tests"
# The console's checks (lint, types, unit tests, build: CPU work, about 350 s
# alone) run beside the Rust tests, which mostly wait on their stacks; niced,
# so that the tests' processes get the CPU first and the checks mostly take
# what the tests leave idle. Their output is printed after the tests.
# In a process group of their own, so that a failed step stops npm, Nx and
# vitest with them, not just the shell that started them. Not a session of
# their own (setsid): the kernel's autogroups would then give them an equal
# share of the CPU beside the tests, whatever their nice.
ensure_node_packages
console_log="$(mktemp -t fleetdesk-console-check.XXXXXX.log)"
(cd "$REPO" && exec perl -e 'setpgrp(0, 0); exec @ARGV or die "$ARGV[0]: $!"' nice -n 10 npm run --silent check) >"$console_log" 2>&1 &
console_pid=$!
stop_console_checks() { kill -- "-$console_pid" 2>/dev/null || true; }
# Four tests at once: they mostly wait (two at a time, the API tests' own
# processes used under a quarter of both cores; four at once took the whole
# suite from 620 s to 320 s). Four whole stacks (about 30 connections each) outgrow
# the 100 connections of a stock PostgreSQL, so the tests get a private
# cluster of their own (ensure-postgres.sh's: 200 connections, throwaway
# durability) on FLEETDESK_TEST_PGPORT, stopped after them. Its data, and so
# the migrated templates the tests copy, outlive the run in
# FLEETDESK_TEST_PGDATA, outside the clone: the server's user must reach it.
test_pgdata="${FLEETDESK_TEST_PGDATA:-/var/tmp/fleetdesk-pg-tests}"
test_pg_url="$(PGPORT="${FLEETDESK_TEST_PGPORT:-55433}" FLEETDESK_PGDATA="$test_pgdata" "$REPO/deploy/ensure-postgres.sh")" ||
    die "no PostgreSQL cluster for the Rust tests"
trap 'stop_private_postgres "$test_pgdata"; stop_console_checks' EXIT
DATABASE_URL="$test_pg_url" NATS_URL="$NATS_URL" cargo_step nextest run --workspace --no-fail-fast --test-threads 4
stop_private_postgres "$test_pgdata"
trap stop_console_checks EXIT

step "helm chart"
"$REPO/deploy/check-helm.sh"

step "console: lint, types, unit tests, build (run beside the Rust tests)"
console_status=0
wait "$console_pid" || console_status=$?
trap - EXIT
cat "$console_log" >&2
rm -f "$console_log"
[ "$console_status" -eq 0 ] || die "the console's checks failed (exit $console_status)"

cargo_step build --bin fleetdesk --quiet
"$REPO/deploy/build-freshness.sh" record "$clean_commit"

step "contracts: the console's API types are what the gateway generates"
generated="$(mktemp -d -t fleetdesk-openapi.XXXXXX)"
"$(fleetdesk_bin)" openapi >"$generated/openapi.json"
(cd "$REPO" && npx --no-install openapi-typescript "$generated/openapi.json" -o "$generated/schema.d.ts" >/dev/null 2>&1)
for f in openapi.json schema.d.ts; do
    diff -q "$generated/$f" "$REPO/apps/console/src/lib/api/$f" >/dev/null ||
        die "apps/console/src/lib/api/$f differs from what the gateway generates: run \`make openapi\` and commit it"
done
rm -rf "$generated"

# schemathesis_run REPORT_DIR: the bounded schemathesis run (about 150 s)
# over the OpenAPI document, against a stack and database of its own, so its
# writes never reach what the browser tests see, and run beside them (they
# leave about half of the two cores idle). As the demo administrator. Left
# out: logout and the password change, which would end the very session the
# run uses (and the password later runs sign in with); the live SSE stream
# and the camera's live and playback video, which never end by themselves (a
# request to them hangs the run); and the private-car list and its export,
# where schemathesis' only finding is false (its "invalid" plate is valid
# plate text or an object that serialises to nothing, sent with an invalid
# page or size that serialises to nothing; the API tests cover both). One
# worker: with two threads, hypothesis' concurrent `ast.parse` of its filter
# lambdas hits a CPython 3.11 race ("AST constructor recursion depth
# mismatch") that schemathesis reports as an error of whichever operation it
# was generating.
schemathesis_run() {
    local report_dir="$1" db="fleetdesk_schemathesis_$$" port token status=0
    port="$(free_port)"
    trap 'kill "$STACK_PID" 2>/dev/null; wait "$STACK_PID" 2>/dev/null; psql "$PG_ADMIN_URL" -qc "drop database if exists '"$db"' with (force)" >/dev/null 2>&1' EXIT
    start_stack "127.0.0.1:$port" "$db" "$report_dir/stack.log"
    echo "$STACK_PID" >"$report_dir/stack.pid"
    token="$(curl -fsS "http://127.0.0.1:$port/api/v1/auth/login" -H 'content-type: application/json' \
        -d '{"loginType":1,"username":"demo","password":"Demo@12345"}' |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["token"])')"
    (cd "$report_dir" && schemathesis run "http://127.0.0.1:$port/api/openapi.json" \
        --url "http://127.0.0.1:$port" \
        --header "token: $token" \
        --checks not_a_server_error,status_code_conformance,negative_data_rejection \
        --exclude-path /api/v1/auth/logout \
        --exclude-path /api/v1/auth/password \
        --exclude-path /api/v1/monitor/stream \
        --exclude-path /api/v1/private-cars \
        --exclude-path /api/v1/private-cars/export \
        --exclude-path '/api/v1/video/vehicles/{vehicleId}/live' \
        --exclude-path '/api/v1/video/vehicles/{vehicleId}/playback' \
        --max-time 150 --workers 1 --seed 8 \
        --suppress-health-check all --warnings off \
        --report junit --report-dir "$report_dir") || status=$?
    return "$status"
}

# pools_for NUM DEN: FLEETDESK_DB_MAX_CONNECTIONS for a `fleetdesk all` given
# NUM/DEN of what the server has free now (its 7 pools, the capture pool and
# the listener: about 8 shares), between 2 and the default 10. The two stacks
# below share one server, and each fits its pools to what is free only as it
# starts, before the other has opened any: unsplit, together they outgrow
# `max_connections` and requests wait out the pools' acquire timeout.
pools_for() {
    local free per
    free="$(psql "$PG_ADMIN_URL" -Atc "select current_setting('max_connections')::int
        - current_setting('superuser_reserved_connections')::int
        - (select count(*) from pg_stat_activity where backend_type = 'client backend') - 10")"
    per=$((free * $1 / $2 / 8))
    echo $((per > 10 ? 10 : per < 2 ? 2 : per))
}
e2e_pools="$(pools_for 2 3)"
schemathesis_pools="$(pools_for 1 3)"

step "browser tests against the running stack ($e2e_pools connections a pool); beside them, schemathesis on a stack of its own ($schemathesis_pools)"
report_dir="$(mktemp -d -t fleetdesk-schemathesis.XXXXXX)"
FLEETDESK_DB_MAX_CONNECTIONS="$schemathesis_pools" schemathesis_run "$report_dir" >"$report_dir/run.log" 2>&1 &
schemathesis_pid=$!
e2e_db="fleetdesk_e2e_$$"
port="$(free_port)"
log_file="$(mktemp -t fleetdesk-e2e.XXXXXX.log)"
# The device edge on a port of its own, so the simulator below can reach it.
edge_port="$(free_port)"
# The charging platform charges the demo cards gently (a few sessions a
# minute); its admin API on a port of its own, so the charging tests can run
# a session of a card they issued.
standin_port="$(free_port)"
FLEETDESK_JT808_ADDR="127.0.0.1:$edge_port" FLEETDESK_CHARGING_SESSIONS_PER_MINUTE=3 \
    FLEETDESK_CHARGING_STANDIN_ADDR="127.0.0.1:$standin_port" FLEETDESK_DB_MAX_CONNECTIONS="$e2e_pools" \
    start_stack "127.0.0.1:$port" "$e2e_db" "$log_file"
# A small demo fleet reporting every 5 s (real terminals: 10-30 s): the
# monitoring tests watch it move, cross fences and answer lock commands.
start_simulator "127.0.0.1:$edge_port" "$e2e_db" "${log_file%.log}-simulator.log" 60 5
cleanup() {
    kill "$schemathesis_pid" 2>/dev/null || true
    wait "$schemathesis_pid" 2>/dev/null || true
    # Its stack, when the run was cut short ($$ is this shell's in the subshell too).
    [ -s "$report_dir/stack.pid" ] && kill "$(cat "$report_dir/stack.pid")" 2>/dev/null || true
    psql "$PG_ADMIN_URL" -qc "drop database if exists fleetdesk_schemathesis_$$ with (force)" >/dev/null 2>&1 || true
    kill "$SIMULATOR_PID" 2>/dev/null || true
    wait "$SIMULATOR_PID" 2>/dev/null || true
    kill "$STACK_PID" 2>/dev/null || true
    wait "$STACK_PID" 2>/dev/null || true
    psql "$PG_ADMIN_URL" -qc "drop database if exists $e2e_db with (force)" >/dev/null 2>&1 || true
}
trap cleanup EXIT

step "console: bytes on the wire for /login and /dashboard"
(cd "$REPO" && BASE_URL="http://127.0.0.1:$port" npm run --silent size)

e2e_status=0
(cd "$REPO" && BASE_URL="http://127.0.0.1:$port" CHARGING_STANDIN_URL="http://127.0.0.1:$standin_port" npm run --silent e2e) ||
    e2e_status=$?
if [ "$e2e_status" -ne 0 ]; then
    # CI keeps only this output: what the stack and the terminals warned of.
    for log in "$log_file" "${log_file%.log}-simulator.log"; do
        printf '\n==> warnings and errors in %s (last 60):\n' "$log" >&2
        grep -aE '\b(WARN|ERROR)\b' "$log" | tail -n 60 >&2 || true
    done
    die "browser tests failed (exit $e2e_status)"
fi

step "API contract: schemathesis, run beside the browser tests"
schemathesis_status=0
wait "$schemathesis_pid" || schemathesis_status=$?
cat "$report_dir/run.log" >&2
[ "$schemathesis_status" -eq 0 ] || die "schemathesis found contract failures (report: $report_dir)"

printf '\nmake test: every check passed in %ss\n' "$((SECONDS - started))" >&2
