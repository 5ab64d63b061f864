#!/usr/bin/env bash
# `make test`: every check — contracts, Rust (format, lints, unit and
# integration tests against real PostgreSQL and NATS), Helm, the console
# (lint, types, unit tests, build, bundle size) and browser tests against the
# running stack in Chromium.
set -euo pipefail
# shellcheck source=deploy/stack.sh
source "$(dirname "${BASH_SOURCE[0]}")/stack.sh"

step() { printf '\n==> %s\n' "$*" >&2; }
started=$SECONDS

step "services and tools"
bootstrap_services
ensure_rust
"$REPO/deploy/ensure-tools.sh" buf helm kubevalidate chromium nextest

step "contracts: buf lint"
(cd "$REPO" && buf lint)

step "rust: format and lints"
(cd "$REPO" && cargo fmt --all --check)
(cd "$REPO" && cargo clippy --workspace --all-targets --quiet -- -D warnings)

step "rust: tests"
(cd "$REPO" && DATABASE_URL="$PG_ADMIN_URL" NATS_URL="$NATS_URL" cargo nextest run --workspace --no-fail-fast)

step "helm chart"
"$REPO/deploy/check-helm.sh"

step "console: lint, types, unit tests, build"
ensure_node_packages
(cd "$REPO" && npm run --silent check)
(cd "$REPO" && npm run --silent size)

step "browser tests against the running stack"
(cd "$REPO" && cargo build --bin fleetdesk --quiet)
e2e_db="fleetdesk_e2e_$$"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
log_file="$(mktemp -t fleetdesk-e2e.XXXXXX.log)"
start_stack "127.0.0.1:$port" "$e2e_db" "$log_file"
cleanup() {
    kill "$STACK_PID" 2>/dev/null || true
    wait "$STACK_PID" 2>/dev/null || true
    psql "$PG_ADMIN_URL" -qc "drop database if exists $e2e_db with (force)" >/dev/null 2>&1 || true
}
trap cleanup EXIT
(cd "$REPO" && BASE_URL="http://127.0.0.1:$port" npm run --silent e2e)

printf '\nmake test: every check passed in %ss\n' "$((SECONDS - started))" >&2
