#!/usr/bin/env bash
# Make sure PostgreSQL answers on 127.0.0.1:${PGPORT:-5432} with trust auth for
# user postgres, and print the DATABASE_URL to use as stdout's last line.
#
# In order: use one that already answers; start Debian's cluster configured on
# that port if it is stopped; start a private cluster under .data/postgres with
# the installed binaries; install Debian's postgresql (as root) when there are
# no binaries at all. Safe to run again: it only starts what is not running.
#
# Env: PGPORT (5432), FLEETDESK_PGDATA (private cluster dir, .data/postgres).
set -euo pipefail
# shellcheck source=deploy/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOST=127.0.0.1
PORT="${PGPORT:-5432}"
[[ "$PORT" =~ ^[0-9]+$ ]] || die "PGPORT must be a port number, not '$PORT'"
URL="postgres://postgres@$HOST:$PORT/postgres"
PGDATA_DIR="${FLEETDESK_PGDATA:-$DATA_DIR/postgres}"
# The postmaster must not run as root; as root we run it as this user.
PG_OS_USER=postgres
INSTALLED_NOW=""

# Newest installed server bin dir (Debian keeps them in /usr/lib/postgresql/<v>/bin),
# or the one matching an existing private cluster's version.
pg_bindir() {
    local want="" dir
    [ -s "$PGDATA_DIR/PG_VERSION" ] && want="$(cat "$PGDATA_DIR/PG_VERSION")"
    if [ -n "$want" ] && [ -x "/usr/lib/postgresql/$want/bin/pg_ctl" ]; then
        echo "/usr/lib/postgresql/$want/bin"
        return
    fi
    dir="$(find /usr/lib/postgresql -maxdepth 3 -path '*/bin/initdb' 2>/dev/null | sort -V | tail -n1)"
    if [ -n "$dir" ]; then
        dirname "$dir"
    elif have pg_config && [ -x "$(pg_config --bindir)/initdb" ]; then
        pg_config --bindir
    elif have initdb && have pg_ctl; then
        dirname "$(command -v initdb)"
    fi
}

pg_up() {
    local isready
    isready="$(command -v pg_isready || true)"
    [ -n "$isready" ] || isready="$(pg_bindir)/pg_isready"
    if [ -x "$isready" ]; then
        "$isready" -q -h "$HOST" -p "$PORT" -t 3
    else
        tcp_open "$HOST" "$PORT"
    fi
}

# Trust auth for postgres over TCP is what the URL assumes: say so plainly if not.
check_login() {
    local psql
    psql="$(command -v psql || true)"
    [ -n "$psql" ] || psql="$(pg_bindir)/psql"
    [ -x "$psql" ] || return 0
    if ! PGCONNECT_TIMEOUT=5 "$psql" "$URL" -Atqc 'select 1' >/dev/null 2>&1; then
        die "PostgreSQL on $HOST:$PORT answers but refuses '$URL' (needs trust auth for user postgres from $HOST in pg_hba.conf); fix that, or set PGPORT to a free port to get a private cluster"
    fi
}

done_ok() {
    check_login
    echo "$URL"
    exit 0
}

# A Debian cluster configured on our port: "<version> <name> <status> <conf dir>".
debian_cluster() {
    have pg_lsclusters || return 0
    pg_lsclusters -h 2>/dev/null | awk -v p="$PORT" '$3 == p { print $1, $2, $4; exit }'
}

start_debian_cluster() {
    local ver name status
    read -r ver name status <<<"$(debian_cluster)"
    [ -n "${ver:-}" ] || return 1
    case "$status" in online*) ;; *)
        log "starting Debian's PostgreSQL cluster $ver/$name on port $PORT"
        if ! run_quiet pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start; then
            log "could not start cluster $ver/$name; trying a private cluster"
            return 1
        fi
        ;;
    esac
    if [ -n "$INSTALLED_NOW" ]; then
        # We created this cluster a moment ago, for this project: let local TCP
        # connections in without a password, like the URL says.
        local hba="/etc/postgresql/$ver/$name/pg_hba.conf"
        if [ -w "$hba" ] && ! grep -q '^# fleetdesk: trust local TCP' "$hba"; then
            log "allowing trust auth from 127.0.0.1 in $hba"
            { printf '# fleetdesk: trust local TCP\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n'; cat "$hba"; } >"$hba.new"
            cat "$hba.new" >"$hba" && rm -f "$hba.new"
            run_quiet pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" reload || true
        fi
    fi
    wait_until 30 pg_up || { log "cluster $ver/$name did not come up on port $PORT"; return 1; }
}

# Run a command as the owner of the private cluster (never as root).
as_pg() {
    if is_root; then
        (cd / && runuser -u "$PG_OS_USER" -- "$@")
    else
        "$@"
    fi
}

start_private_cluster() {
    local bindir
    bindir="$(pg_bindir)"
    [ -n "$bindir" ] || return 1

    mkdir -p "$(dirname "$PGDATA_DIR")" "$PGDATA_DIR"
    if is_root; then
        if ! id -u "$PG_OS_USER" >/dev/null 2>&1; then
            log "creating system user $PG_OS_USER to own the private cluster"
            useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$PG_OS_USER"
        fi
        chown "$PG_OS_USER:" "$PGDATA_DIR"
        as_pg test -w "$PGDATA_DIR" \
            || die "user $PG_OS_USER cannot write $PGDATA_DIR (a parent directory is closed to it); set FLEETDESK_PGDATA to a directory it can reach, e.g. /var/tmp/fleetdesk-pg"
    fi
    chmod 700 "$PGDATA_DIR"

    if [ ! -s "$PGDATA_DIR/PG_VERSION" ]; then
        [ -z "$(ls -A "$PGDATA_DIR")" ] \
            || die "$PGDATA_DIR is neither empty nor a PostgreSQL cluster; move it away and rerun"
        log "creating a private PostgreSQL cluster in $PGDATA_DIR"
        run_quiet as_pg "$bindir/initdb" -D "$PGDATA_DIR" -U postgres -A trust -E UTF8 --no-locale \
            || die "initdb failed"
        # The socket lives beside the data when the path fits (108-byte limit).
        local sockdir="''"
        [ "${#PGDATA_DIR}" -lt 90 ] && sockdir="'$PGDATA_DIR'"
        as_pg tee -a "$PGDATA_DIR/postgresql.conf" >/dev/null <<EOF

# fleetdesk: private development cluster (deploy/ensure-postgres.sh).
listen_addresses = '$HOST'
unix_socket_directories = $sockdir
max_connections = 200
# Throwaway data: trade crash safety for speed.
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
    fi

    if as_pg "$bindir/pg_ctl" -D "$PGDATA_DIR" status >/dev/null 2>&1; then
        wait_until 10 pg_up && return 0
        die "the private cluster in $PGDATA_DIR is running but not on $HOST:$PORT; stop it (deploy/stop-private.sh) or use its port"
    fi

    log "starting the private PostgreSQL cluster on $HOST:$PORT"
    if ! as_pg "$bindir/pg_ctl" -D "$PGDATA_DIR" -l "$PGDATA_DIR/server.log" -w -t 60 \
        -o "-p $PORT" start >/dev/null 2>&1; then
        tail -n 20 "$PGDATA_DIR/server.log" >&2 || true
        die "the private cluster did not start (log: $PGDATA_DIR/server.log)"
    fi
    wait_until 30 pg_up || die "the private cluster started but $HOST:$PORT does not answer (log: $PGDATA_DIR/server.log)"
}

pg_up && done_ok
start_debian_cluster && done_ok
start_private_cluster && done_ok

# No server binaries at all.
log "no PostgreSQL server binaries found"
apt_install postgresql
INSTALLED_NOW=1
pg_up && done_ok
start_debian_cluster && done_ok
start_private_cluster && done_ok
die "installed postgresql but could not get a server on $HOST:$PORT"
