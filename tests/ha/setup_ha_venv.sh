#!/usr/bin/env bash
# Builds the Home Assistant virtualenv the real-HA tests run against.
# homeassistant 2025.4.4 needs Python 3.13 (2025.5 and later need 3.13.2+); it is pinned
# with the constraints file shipped inside its own wheel. The venv is cached so later runs
# reuse it: HOMEAGENT_HA_VENV overrides the location, HOMEAGENT_HA_PYTHON the interpreter.
set -euo pipefail

HA_VERSION="${HOMEAGENT_HA_VERSION:-2025.4.4}"
VENV="${HOMEAGENT_HA_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/homeagent/ha-$HA_VERSION}"
STAMP="$VENV/.homeagent-ready"

if [ -f "$STAMP" ] && [ -x "$VENV/bin/hass" ]; then
    echo "ha-venv: ready at $VENV"
    exit 0
fi

find_python() {
    if [ -n "${HOMEAGENT_HA_PYTHON:-}" ]; then echo "$HOMEAGENT_HA_PYTHON"; return; fi
    for cand in python3.13 /root/.pyenv/versions/3.13.*/bin/python3.13 /usr/bin/python3.13 \
                /usr/local/bin/python3.13; do
        # pyenv shims exist for versions that are not active: ask the interpreter itself.
        if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys, venv; sys.exit(sys.version_info[:2] != (3, 13))' 2>/dev/null; then
            "$cand" -c 'import sys; print(sys.executable)'; return
        fi
    done
    # Debian trixie and later package 3.13; install it when nothing else is there.
    if command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq >/dev/null 2>&1 || true
        apt-get install -y -qq python3.13 python3.13-venv >/dev/null 2>&1 || true
        if [ -x /usr/bin/python3.13 ]; then echo /usr/bin/python3.13; return; fi
    fi
    echo ""
}

PY="$(find_python)"
if [ -z "$PY" ]; then
    echo "ha-venv: no Python 3.13 interpreter found (set HOMEAGENT_HA_PYTHON)" >&2
    exit 1
fi
echo "ha-venv: building $VENV with $PY ($("$PY" --version))"
start=$(date +%s)

CONSTRAINTS="$VENV/ha-constraints.txt"
if [ ! -f "$VENV/.core-ready" ]; then
    rm -rf "$VENV"
    mkdir -p "$(dirname "$VENV")"
    "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip --disable-pip-version-check install --quiet --upgrade pip
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    "$VENV/bin/python" -m pip --disable-pip-version-check download --quiet --no-deps \
        --dest "$work" "homeassistant==$HA_VERSION"
    wheel="$(ls "$work"/homeassistant-*.whl)"
    "$VENV/bin/python" - "$wheel" "$CONSTRAINTS" <<'PYEOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    data = z.read("homeassistant/package_constraints.txt").decode()
lines = [l for l in data.splitlines() if l.strip() and not l.lstrip().startswith("#")]
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PYEOF
    "$VENV/bin/python" -m pip --disable-pip-version-check install --quiet -c "$CONSTRAINTS" \
        "homeassistant==$HA_VERSION"
    touch "$VENV/.core-ready"
    echo "ha-venv: core installed after $(( $(date +%s) - start ))s"
fi
# The requirements of the integrations the test configuration loads, under HA's pins.
"$VENV/bin/python" "$(dirname "$0")/ha_requirements.py" "$VENV" "$CONSTRAINTS"
touch "$STAMP"
echo "ha-venv: ready at $VENV after $(( $(date +%s) - start ))s"
