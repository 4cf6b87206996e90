#!/usr/bin/env bash
# Idempotent set-up for a fresh machine; each step prints what it does and how long it took, and is
# skipped when its result is already there and current.
#
#   scripts/setup.sh        everything `make test` needs: Graphviz and Chromium (system packages), the
#                           Python venv with every extra and the dev tools, the npm packages
#   scripts/setup.sh demo   only what `make demo` needs: the venv with the core package (no extras, no npm)
#
# Python packages install at the exact versions of requirements/lock.txt (pip constraints), so every
# machine runs what CI ran; pyproject.toml itself holds compatible ranges for users' own installs.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=${1:-full}
case "$MODE" in full|demo) ;; *) echo "usage: scripts/setup.sh [full|demo]" >&2; exit 2 ;; esac
PYTHON=${PYTHON:-python3}
LOCK=requirements/lock.txt
SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

T0=$(date +%s.%N)
STEP_T=$T0
step() {  # step "what": announce a step and remember when it began
  STEP_T=$(date +%s.%N)
  echo "setup: $1 ..."
}
done_step() {
  awk -v a="$STEP_T" -v b="$(date +%s.%N)" 'BEGIN { printf "setup:   done in %.1f s\n", b - a }'
}

if [ "$MODE" = full ]; then
  need_apt=()
  command -v dot >/dev/null 2>&1 || need_apt+=(graphviz)
  if [ "${CRAFTBT_SKIP_CHROMIUM:-0}" != "1" ]; then
    command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
  fi
  if [ ${#need_apt[@]} -gt 0 ]; then
    step "installing system packages: ${need_apt[*]} (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    if ! { $SUDO apt-get install -y -q "${need_apt[@]}" >/dev/null 2>&1 \
        || { $SUDO apt-get update -q >/dev/null 2>&1 && $SUDO apt-get install -y -q "${need_apt[@]}" >/dev/null 2>&1; }; }
    then
      # Not fatal: rendering PNG/SVG needs Graphviz and the SLA chart test needs Chromium (it skips without it).
      echo "setup: WARNING: could not install ${need_apt[*]} (need root or sudo); install them by hand" >&2
    fi
    done_step
  fi
fi

if [ ! -x .venv/bin/python ]; then
  step "creating .venv with $("$PYTHON" --version 2>&1)"
  "$PYTHON" -m venv .venv
  done_step
fi

# .stamp-pip: every extra and the dev tools; .stamp-core: the package alone (a full install covers it)
current() { [ -f "$1" ] && [ ! pyproject.toml -nt "$1" ] && [ ! "$LOCK" -nt "$1" ]; }
if [ "$MODE" = full ]; then
  if ! current .venv/.stamp-pip; then
    step "installing craftbt with every extra and the dev tools (pip, versions from $LOCK)"
    .venv/bin/python -m pip install -q --disable-pip-version-check -c "$LOCK" -e ".[dev]"
    touch .venv/.stamp-pip .venv/.stamp-core
    done_step
  fi
elif ! current .venv/.stamp-core && ! current .venv/.stamp-pip; then
  step "installing craftbt, no extras (pip, versions from $LOCK)"
  .venv/bin/python -m pip install -q --disable-pip-version-check -c "$LOCK" -e .
  touch .venv/.stamp-core
  done_step
fi

if [ "$MODE" = full ]; then
  if [ ! -f node_modules/.stamp-npm ] || [ package-lock.json -nt node_modules/.stamp-npm ]; then
    step "installing the Node packages (npm ci: mineflayer, flying-squid)"
    npm ci --no-audit --no-fund --loglevel=error
    touch node_modules/.stamp-npm
    done_step
  fi
fi
awk -v a="$T0" -v b="$(date +%s.%N)" -v m="$MODE" 'BEGIN { printf "setup: ready (%s) in %.1f s\n", m, b - a }'
