#!/usr/bin/env bash
# Set up everything the project needs on a fresh Debian machine: system packages (when root),
# the virtual environment in .venv and the project with its test extras.
#   scripts/setup.sh            what the companion needs to run
#   scripts/setup.sh --tests    also Chromium, which the real-browser test drives
set -euo pipefail
cd "$(dirname "$0")/.."
with_tests=0
[ "${1:-}" = "--tests" ] && with_tests=1

need_apt=()
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "setup: Python 3.11 or newer is needed, found $(python3 --version 2>&1)." >&2
    exit 1
fi
if [ ! -x .venv/bin/python ] && ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    need_apt+=(python3-venv)
fi
if ! command -v tesseract >/dev/null 2>&1; then
    need_apt+=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu)
fi
# The playing-card rank reader draws its templates in these fonts (vision/read/playing.py).
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSerifCondensed.ttf ] || need_apt+=(fonts-dejavu-core fonts-dejavu-extra)
[ -f /usr/share/fonts/truetype/liberation/LiberationSansNarrow-Bold.ttf ] || need_apt+=(fonts-liberation)
if [ "$with_tests" -eq 1 ] && [ ! -x /usr/bin/chromium ]; then
    need_apt+=(chromium)
fi
# The dashboard load test streams with curl (one process per client).
if [ "$with_tests" -eq 1 ] && ! command -v curl >/dev/null 2>&1; then
    need_apt+=(curl)
fi
if [ "${#need_apt[@]}" -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "setup: installing ${need_apt[*]} with apt-get" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq "${need_apt[@]}" >/dev/null
    else
        echo "setup: please install these Debian packages first (as root: apt-get install ${need_apt[*]})." >&2
        exit 1
    fi
fi

stamp=.venv/.installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    [ -x .venv/bin/python ] || python3 -m venv .venv
    .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
    .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
    touch "$stamp"
fi
