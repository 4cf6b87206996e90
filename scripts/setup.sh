#!/usr/bin/env bash
# One-shot, idempotent set-up for a fresh machine: system packages, Python venv, npm packages.
# Re-running it is cheap: each step is skipped when its result is already there and current.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

need_apt=()
command -v dot >/dev/null 2>&1 || need_apt+=(graphviz)
if [ "${CRAFTBT_SKIP_CHROMIUM:-0}" != "1" ]; then
  command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing system packages: ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! { $SUDO apt-get install -y -q "${need_apt[@]}" >/dev/null 2>&1 \
      || { $SUDO apt-get update -q >/dev/null 2>&1 && $SUDO apt-get install -y -q "${need_apt[@]}" >/dev/null 2>&1; }; }
  then
    # Not fatal: rendering PNG/SVG needs Graphviz and the SLA chart test needs Chromium (it skips without it).
    echo "setup: WARNING: could not install ${need_apt[*]} (need root or sudo); install them by hand" >&2
  fi
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PYTHON" -m venv .venv
fi
if [ ! -f .venv/.stamp-pip ] || [ pyproject.toml -nt .venv/.stamp-pip ]; then
  echo "setup: installing Python packages"
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -e ".[dev]"
  touch .venv/.stamp-pip
fi

if [ ! -f node_modules/.stamp-npm ] || [ package-lock.json -nt node_modules/.stamp-npm ]; then
  echo "setup: installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error
  touch node_modules/.stamp-npm
fi
echo "setup: ready"
