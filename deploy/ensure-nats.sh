#!/usr/bin/env bash
# Make sure NATS with JetStream answers on 127.0.0.1:${NATS_PORT:-4222}, and
# print the NATS_URL to use as stdout's last line.
#
# In order: use one that already answers; start a private nats-server in the
# background with its store in .data/nats (pid in .data/nats.pid, log in
# .data/nats.log); install Debian's nats-server (as root) when it is missing.
# Safe to run again: it only starts what is not running.
#
# Env: NATS_PORT (4222).
set -euo pipefail
# shellcheck source=deploy/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOST=127.0.0.1
PORT="${NATS_PORT:-4222}"
[[ "$PORT" =~ ^[0-9]+$ ]] || die "NATS_PORT must be a port number, not '$PORT'"
URL="nats://$HOST:$PORT"
STORE_DIR="$DATA_DIR/nats"
PID_FILE="$DATA_DIR/nats.pid"
LOG_FILE="$DATA_DIR/nats.log"

nats_up() { tcp_open "$HOST" "$PORT"; }

# The server's greeting is one INFO line; it says whether JetStream is on.
check_jetstream() {
    local info=""
    {
        exec 3<>"/dev/tcp/$HOST/$PORT"
        IFS= read -r -t 3 info <&3 || true
        exec 3>&-
    } 2>/dev/null || true
    case "$info" in
        INFO*'"jetstream":true'*) ;;
        INFO*) die "NATS on $HOST:$PORT runs without JetStream (start it with -js), or set NATS_PORT to a free port to get a private one" ;;
        *) die "something answers on $HOST:$PORT but it is not a NATS server; set NATS_PORT to a free port" ;;
    esac
}

done_ok() {
    check_jetstream
    echo "$URL"
    exit 0
}

nats_bin() {
    local b
    for b in "$(command -v nats-server || true)" /usr/sbin/nats-server /usr/bin/nats-server; do
        [ -n "$b" ] && [ -x "$b" ] && { echo "$b"; return; }
    done
}

nats_up && done_ok

if pid_alive "$PID_FILE" nats-server; then
    wait_until 10 nats_up && done_ok
    die "our nats-server (pid $(cat "$PID_FILE")) runs but $HOST:$PORT does not answer; stop it (deploy/stop-private.sh) or use its port"
fi

BIN="$(nats_bin)"
if [ -z "$BIN" ]; then
    log "no nats-server found"
    apt_install nats-server
    # The package may have started its own service on the default port.
    nats_up && done_ok
    BIN="$(nats_bin)"
    [ -n "$BIN" ] || die "installed nats-server but cannot find its binary"
fi

mkdir -p "$STORE_DIR"
rm -f "$PID_FILE"
log "starting a private nats-server with JetStream on $HOST:$PORT (store $STORE_DIR)"
setsid "$BIN" -a "$HOST" -p "$PORT" -js -sd "$STORE_DIR" -P "$PID_FILE" -l "$LOG_FILE" \
    </dev/null >/dev/null 2>&1 &
if ! wait_until 20 nats_up; then
    tail -n 20 "$LOG_FILE" >&2 2>/dev/null || true
    die "nats-server did not come up on $HOST:$PORT (log: $LOG_FILE)"
fi
done_ok
