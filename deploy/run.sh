#!/usr/bin/env bash
# `make run`: PostgreSQL and NATS, the console build, the binary, demo data,
# then the whole stack in the foreground on FLEETDESK_HTTP_ADDR (127.0.0.1:8080).
set -euo pipefail
# shellcheck source=deploy/stack.sh
source "$(dirname "${BASH_SOURCE[0]}")/stack.sh"

addr="${FLEETDESK_HTTP_ADDR:-127.0.0.1:8080}"
bootstrap_services
ensure_rust
# The console builds and ffmpeg installs (the demo's cameras stream real
# H.264 that it encodes) while cargo compiles: a fresh clone waits for the
# slowest of the three, not their sum.
build_console &
console_pid=$!
"$REPO/deploy/ensure-tools.sh" ffmpeg &
ffmpeg_pid=$!
log "building fleetdesk"
(cd "$REPO" && cargo build --bin fleetdesk) >&2 || die "cargo build failed"
wait "$console_pid" || die "console build failed"
wait "$ffmpeg_pid" || log "no ffmpeg: the demo's cameras will refuse to stream"

export DATABASE_URL="${DATABASE_URL:-$(database_url fleetdesk)}" NATS_URL
export FLEETDESK_CONSOLE_DIR="$REPO/dist/apps/console" FLEETDESK_LOG_FORMAT="${FLEETDESK_LOG_FORMAT:-text}"
cat >&2 <<MSG

  Fleetdesk console: http://$addr
  Demo sign-ins (password Demo@12345):
    demo      演示物流有限公司, every permission
    demo_ops  演示物流有限公司, vehicle operations only
    demo2     示例冷链科技有限公司, every permission
    demo_multi  both enterprises: choose one on /selectNet
  Phone sign-in: 13800000001..4; codes appear at /api/v1/dev/sms-outbox?phone=…
  QR sign-in: the local WeCom stand-in lists the demo users to pick.
  Terminals: JT/T 808 on ${FLEETDESK_JT808_ADDR:-127.0.0.1:8808}, the demo fleet simulated (some with cameras).
  Charging: the local charging platform starts ${FLEETDESK_CHARGING_SESSIONS_PER_MINUTE:-4} sessions a minute for the demo cards.
  Ctrl-C stops it.

MSG
# The device edge runs inside `all`; simulated terminals drive the demo fleet.
jt808="${FLEETDESK_JT808_ADDR:-127.0.0.1:8808}"
export FLEETDESK_JT808_ADDR="$jt808"
"$(fleetdesk_bin)" simulate --vehicles "${FLEETDESK_SIMULATE_VEHICLES:-2000}" --edge-addr "$jt808" &
sim_pid=$!
trap 'kill "$sim_pid" 2>/dev/null || true' EXIT
# The charging platform runs inside `all` and keeps charging the demo cards.
export FLEETDESK_CHARGING_SESSIONS_PER_MINUTE="${FLEETDESK_CHARGING_SESSIONS_PER_MINUTE:-4}"
"$(fleetdesk_bin)" all --demo --http-addr "$addr"
