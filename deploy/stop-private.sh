#!/usr/bin/env bash
# Stop the private PostgreSQL cluster and nats-server that ensure-postgres.sh and
# ensure-nats.sh started under .data/ (never the machine's own services).
# With --purge, also delete their data. Safe to run when nothing is running.
set -euo pipefail
# shellcheck source=deploy/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PURGE=""
case "${1:-}" in
    "") ;;
    --purge) PURGE=1 ;;
    *) die "usage: $0 [--purge]" ;;
esac

PGDATA_DIR="${FLEETDESK_PGDATA:-$DATA_DIR/postgres}"
PID_FILE="$DATA_DIR/nats.pid"

stop_private_postgres "$PGDATA_DIR"

if pid_alive "$PID_FILE" nats-server; then
    pid="$(cat "$PID_FILE")"
    log "stopping the private nats-server (pid $pid)"
    kill "$pid"
    wait_until 15 bash -c "! kill -0 $pid 2>/dev/null" || die "nats-server (pid $pid) did not stop"
fi
rm -f "$PID_FILE"

if [ -n "$PURGE" ]; then
    rm -rf "$PGDATA_DIR" "$DATA_DIR/nats" "$DATA_DIR/nats.log"
    rmdir "$DATA_DIR" 2>/dev/null || true
fi
