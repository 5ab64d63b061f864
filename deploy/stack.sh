# shellcheck shell=bash
# Helpers for run.sh and test.sh: the services the stack needs, the Rust
# build, and a `fleetdesk all` started in the background. Source it.

# shellcheck source=deploy/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The binary's allocator (mimalloc) returns freed pages at once, as the image
# does: by default it keeps them a while, and an export's pages, freed on its
# writer thread, then nearly doubled the process's peak memory.
export MIMALLOC_PURGE_DELAY="${MIMALLOC_PURGE_DELAY:-0}"

# bootstrap_services: PostgreSQL and NATS reachable; exports PG_ADMIN_URL and NATS_URL.
bootstrap_services() {
    PG_ADMIN_URL="$("$REPO/deploy/ensure-postgres.sh")" || die "PostgreSQL is not available"
    NATS_URL="$("$REPO/deploy/ensure-nats.sh")" || die "NATS is not available"
    export PG_ADMIN_URL NATS_URL
}

# database_url NAME: the URL of database NAME on the bootstrapped server.
database_url() {
    printf '%s/%s\n' "${PG_ADMIN_URL%/*}" "$1"
}

# ensure_rust: cargo is on PATH (rustup's default location included).
ensure_rust() {
    [ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
    have cargo || die "cargo not found: install Rust (https://rustup.rs) and rerun"
}

# ensure_node_packages: node_modules matches package-lock.json.
ensure_node_packages() {
    have npm || apt_install nodejs npm
    local stamp="$REPO/node_modules/.package-lock.json"
    if [ ! -f "$stamp" ] || [ "$REPO/package-lock.json" -nt "$stamp" ]; then
        log "npm ci"
        (cd "$REPO" && npm ci --no-audit --no-fund --loglevel=error) >&2 || die "npm ci failed"
    fi
}

# build_console: the production console in dist/apps/console.
build_console() {
    ensure_node_packages
    log "building the console"
    (cd "$REPO" && npm run --silent build) >&2 || die "console build failed"
}

# fleetdesk_bin: path of the built binary.
fleetdesk_bin() {
    printf '%s/debug/fleetdesk\n' "${CARGO_TARGET_DIR:-$REPO/target}"
}

# start_stack ADDR DATABASE LOGFILE: migrate, seed and start `fleetdesk all`
# in the background; sets STACK_PID; waits until /readyz answers. The
# charging platform inside starts FLEETDESK_CHARGING_SESSIONS_PER_MINUTE
# sessions a minute (none unless set).
start_stack() {
    local addr="$1" db="$2" logfile="$3"
    DATABASE_URL="$(database_url "$db")" NATS_URL="$NATS_URL" FLEETDESK_JT808_ADDR="${FLEETDESK_JT808_ADDR:-127.0.0.1:0}" \
        FLEETDESK_OCPI_ADDR="${FLEETDESK_OCPI_ADDR:-127.0.0.1:0}" \
        FLEETDESK_CONSOLE_DIR="$REPO/dist/apps/console" FLEETDESK_LOG_FORMAT="${FLEETDESK_LOG_FORMAT:-text}" \
        "$(fleetdesk_bin)" all --demo --http-addr "$addr" >"$logfile" 2>&1 &
    STACK_PID=$!
    if ! wait_until 60 curl -fsS -o /dev/null "http://$addr/readyz"; then
        tail -n 40 "$logfile" >&2
        die "fleetdesk did not become ready on $addr (log: $logfile)"
    fi
}

# start_simulator EDGE_ADDR DATABASE LOGFILE VEHICLES INTERVAL_SECS: simulated
# terminals of the demo fleet reporting to the JT/T 808 edge at EDGE_ADDR, in
# the background; sets SIMULATOR_PID. It waits for the fleet by itself.
start_simulator() {
    local edge="$1" db="$2" logfile="$3" vehicles="$4" interval="$5"
    DATABASE_URL="$(database_url "$db")" FLEETDESK_LOG_FORMAT="${FLEETDESK_LOG_FORMAT:-text}" \
        "$(fleetdesk_bin)" simulate --vehicles "$vehicles" --interval-secs "$interval" --edge-addr "$edge" >"$logfile" 2>&1 &
    SIMULATOR_PID=$!
}
