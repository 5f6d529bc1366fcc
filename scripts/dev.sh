#!/usr/bin/env bash
# The project's two entry points on a fresh machine (Python 3.11 + pip + apt as root):
#   bash scripts/dev.sh demo   -> the app on the bundled sample project
#   bash scripts/dev.sh test   -> the whole test suite (installs what it needs first)
# Everything else (.venv, Chromium, Node for the JS normalizer tests, PostgreSQL,
# Tesseract for OCR) is installed here.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
VENV=.venv
BIN=$VENV/bin

setup_python() {
  local stamp=$VENV/.installed
  if [ ! -x "$BIN/python" ]; then
    "$PY" -m venv "$VENV"
  fi
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    "$BIN/python" -m pip install -q --upgrade pip
    "$BIN/python" -m pip install -q -e '.[dev]'
    "$BIN/python" -m pip install -q --no-deps beir  # its loader needs only the stdlib and tqdm
    touch "$stamp"
  fi
}

apt_install() {
  # $@: Debian packages. Root runs apt-get directly; others need sudo.
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if [ ! -f /tmp/.evaudit-apt-updated ]; then
    $sudo apt-get update -qq && touch /tmp/.evaudit-apt-updated
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

setup_test_tools() {
  local need=()
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v node >/dev/null 2>&1 || need+=(nodejs)
  # Tesseract with English data for `ingest --ocr` (tests/test_ingest_ocr.py).
  command -v tesseract >/dev/null 2>&1 || need+=(tesseract-ocr tesseract-ocr-eng)
  # PostgreSQL for the journal backend's tests (tests/pg_fixture.py starts its own server).
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
  if [ ${#need[@]} -gt 0 ]; then
    echo "installing Debian packages: ${need[*]}" >&2
    apt_install "${need[@]}"
  fi
}

case "${1:-}" in
  demo)
    shift
    setup_python
    exec "$BIN/evaudit" demo --simulate "$@"
    ;;
  test)
    shift
    setup_python
    setup_test_tools
    exec "$BIN/python" -m pytest "$@"
    ;;
  setup)
    setup_python
    setup_test_tools
    ;;
  *)
    echo "usage: bash scripts/dev.sh demo|test|setup [args]" >&2
    exit 2
    ;;
esac
