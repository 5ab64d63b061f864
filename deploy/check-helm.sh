#!/usr/bin/env bash
# Check the Helm chart helm/fleetdesk, for the default values and for each
# helm/fleetdesk/ci/*-values.yaml:
#   1. helm lint --strict
#   2. helm template, validated with kubernetes-validate --strict against the
#      oldest Kubernetes the chart supports and the newest schemas we have
#   3. deploy/check-helm-render.py: the rendered objects fit together
# and that every value is documented in the chart README
# (deploy/chart-values-doc.py). Installs helm and kubernetes-validate into
# .tools/ when missing. One line per values file on success; fails on any error.
set -euo pipefail
# shellcheck source=deploy/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CHART="$REPO/helm/fleetdesk"
# Oldest supported (Chart.yaml kubeVersion) and newest known.
KUBE_VERSIONS=(1.27.0 1.37.0)
RELEASE=fleetdesk
NAMESPACE=fleetdesk

"$REPO/deploy/ensure-tools.sh" helm kubevalidate
PY="$TOOLS_DIR/venv/bin/python"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

failed=0
fail() {
    log "FAIL $*"
    failed=1
}

# check LABEL [helm values args...]
check() {
    local label="$1" out="$WORK/render.yaml" summary v
    shift
    if ! helm lint --strict "$CHART" "$@" >"$WORK/lint.log" 2>&1; then
        cat "$WORK/lint.log" >&2
        fail "$label: helm lint"
        return
    fi
    if ! helm template "$RELEASE" "$CHART" --namespace "$NAMESPACE" "$@" >"$out" 2>"$WORK/template.log"; then
        cat "$WORK/template.log" >&2
        fail "$label: helm template"
        return
    fi
    for v in "${KUBE_VERSIONS[@]}"; do
        if ! kubernetes-validate --strict --quiet --kubernetes-version "$v" "$out" >&2; then
            fail "$label: kubernetes-validate --strict (Kubernetes $v)"
            return
        fi
    done
    if ! summary="$("$PY" "$REPO/deploy/check-helm-render.py" "$out")"; then
        fail "$label: rendered objects do not fit together"
        return
    fi
    echo "ok   $label: $summary"
}

[ -f "$CHART/Chart.yaml" ] || die "no chart at $CHART"
check "default values"
shopt -s nullglob
for f in "$CHART"/ci/*-values.yaml; do
    check "ci/$(basename "$f")" -f "$f"
done

if "$PY" "$REPO/deploy/chart-values-doc.py" "$CHART" --check; then
    echo "ok   values documented in helm/fleetdesk/README.md"
else
    fail "values documentation"
fi

[ "$failed" -eq 0 ] || die "the Helm chart has problems (above)"
