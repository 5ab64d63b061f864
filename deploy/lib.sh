# shellcheck shell=bash
# Shared helpers for the scripts in deploy/. Source it; don't run it.
#
# Conventions: stdout carries only a script's result (a URL, nothing else);
# progress and errors go to stderr, and only when something is being done or
# has gone wrong, so a second run on a ready machine prints just the result.

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck disable=SC2034 # used by the scripts that source this file
DATA_DIR="$REPO/.data"
TOOLS_DIR="$REPO/.tools"
export PATH="$TOOLS_DIR/bin:$PATH"

SCRIPT_NAME="$(basename "${BASH_SOURCE[1]:-$0}" .sh)"

log() { printf '%s: %s\n' "$SCRIPT_NAME" "$*" >&2; }
die() { printf '%s: error: %s\n' "$SCRIPT_NAME" "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
is_root() { [ "$(id -u)" -eq 0 ]; }

# free_port: a free loopback port below the kernel's ephemeral range, so no
# port the kernel hands out (to a bind on port 0, or to an outgoing
# connection) takes it before the process we start binds it.
free_port() {
    python3 -c '
import random, socket
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
for _ in range(100 if low > 11000 else 0):
    port = random.randrange(10000, low)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port)); print(port); break
    except OSError:
        pass
    finally:
        s.close()
else:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])
'
}

# tcp_open HOST PORT: true when something accepts a TCP connection there.
tcp_open() {
    (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

# wait_until SECONDS COMMAND...: retry COMMAND every 0.5 s until it succeeds.
wait_until() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.5
    done
}

# run_quiet COMMAND...: run, show its output only when it fails.
run_quiet() {
    local out rc=0
    out="$("$@" 2>&1)" || rc=$?
    if [ "$rc" -ne 0 ]; then
        printf '%s\n' "$out" >&2
        log "failed ($rc): $*"
    fi
    return "$rc"
}

# apt_install PACKAGE...: Debian packages, as root only; 'apt-get update' runs
# once per script run, before the first install.
APT_UPDATED=""
apt_install() {
    is_root || die "need Debian packages '$*' but not root: install them (sudo apt-get install -y $*) and rerun"
    have apt-get || die "need packages '$*' and there is no apt-get here: install them and rerun"
    local opts=(-o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0 -q)
    if [ -z "$APT_UPDATED" ]; then
        log "apt-get update"
        run_quiet apt-get "${opts[@]}" update || die "apt-get update failed"
        APT_UPDATED=1
    fi
    log "apt-get install $*"
    DEBIAN_FRONTEND=noninteractive run_quiet apt-get "${opts[@]}" install -y --no-install-recommends "$@" \
        || die "apt-get install $* failed"
}

# pid_alive PIDFILE NAME: the pid in PIDFILE is a running process called NAME.
pid_alive() {
    local pid
    [ -s "$1" ] || return 1
    pid="$(head -n1 "$1")"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]
}

# stop_private_postgres DIR: stops the private PostgreSQL cluster in DIR
# (deploy/ensure-postgres.sh's) if it runs; never the machine's own.
stop_private_postgres() {
    local dir="$1" ver pg_ctl owner
    [ -s "$dir/postmaster.pid" ] || return 0
    ver="$(cat "$dir/PG_VERSION")"
    pg_ctl="/usr/lib/postgresql/$ver/bin/pg_ctl"
    [ -x "$pg_ctl" ] || pg_ctl="$(command -v pg_ctl || true)"
    [ -n "$pg_ctl" ] || die "cannot find pg_ctl to stop the cluster in $dir"
    owner="$(stat -c %U "$dir")"
    log "stopping the private PostgreSQL cluster in $dir"
    if is_root && [ "$owner" != root ]; then
        (cd / && run_quiet runuser -u "$owner" -- "$pg_ctl" -D "$dir" -m fast -w stop)
    else
        run_quiet "$pg_ctl" -D "$dir" -m fast -w stop
    fi || die "could not stop the cluster in $dir"
}
