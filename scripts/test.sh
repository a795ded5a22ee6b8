#!/usr/bin/env bash
# Runs every test of the workspace: `cargo test --workspace --locked`, after
# making sure what the tests need besides Rust is installed, installing what
# is missing:
#
#   chromium, fonts-wqy-zenhei  Debian packages, with apt-get: the analysis
#                               board's test (serve/tests/browser.rs) and
#                               chessdb's query page test
#                               (serve/tests/chessdb_page.rs) drive headless
#                               Chromium; the font draws the pieces' Chinese
#                               names
#   xboard, xvfb, xauth,        Debian packages, with apt-get: the engine's
#   imagemagick                 test against the real XBoard
#                               (engine/tests/real_xboard.rs) plays a game in
#                               it on a virtual display and takes a
#                               screenshot with ImageMagick's `import`
#   cchess==1.25.5              PyPI package, with `python3 -m pip`: the .obk
#                               tests (bookgen/tests/obk.rs) read our books
#                               with it and take BHGUI's key table from it
#   slurm-wlm, munge            Debian packages, with apt-get: the Slurm tests
#                               (egtbgen/tests/slurm.rs, bookgen/tests/slurm.rs)
#                               start a one-node cluster with
#                               scripts/slurm-local.sh
#
# Debian packages are installed without their recommends. After the
# workspace's tests, the Slurm tests run (ignored by a plain `cargo test`:
# they start daemons as root): `cargo test --workspace --test slurm --
# --ignored --test-threads 1`, about 6 minutes, with nothing compiled
# again. Not as root, it is skipped, and said so. Given arguments, the
# script runs `cargo test` with them alone.
#
# What is already there is kept, so a second run installs nothing. Every
# argument goes to `cargo test`: `scripts/test.sh --release -- --ignored`
# runs the long suites too. `scripts/test.sh --setup-only` installs and
# runs no test.
# .ci/run is this script.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "test.sh: $*" >&2; }

case "${1:-}" in
-h | --help)
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
  echo
  echo "usage: scripts/test.sh [--setup-only | CARGO-TEST-ARGS...]"
  exit 0
  ;;
esac
setup_only=false
if [ "${1:-}" = --setup-only ]; then
  setup_only=true
  shift
fi

# Everything that could not be installed, with how to install it by hand;
# all of it is tried before the script gives up.
failed=()

if ! command -v cargo >/dev/null; then
  failed+=("cargo (the Rust toolchain): see https://rustup.rs")
fi

# apt-get runs as root, or through sudo when the user is not root; without
# either it fails, saying nothing (the caller says it once).
as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    return 1
  fi
}

# grep reads to the end: with `grep -q`, fc-list would die of SIGPIPE on a
# long list once the font is found, and pipefail would count it missing.
font_installed() {
  dpkg-query -W -f='${Status}' fonts-wqy-zenhei 2>/dev/null | grep 'ok installed' >/dev/null ||
    fc-list 2>/dev/null | grep -i 'WenQuanYi Zen Hei' >/dev/null
}

# Whether dpkg has the Debian package $1 installed.
deb_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep 'ok installed' >/dev/null
}

# Whether the Debian package $1 is installed, by what the tests use of it.
deb_present() {
  case $1 in
  chromium) command -v chromium >/dev/null ;;
  fonts-wqy-zenhei) font_installed ;;
  xboard | xvfb | xauth | imagemagick) deb_installed "$1" ;;
  slurm-wlm) command -v slurmctld >/dev/null ;;
  munge) command -v munged >/dev/null ;;
  *) return 1 ;;
  esac
}

# The Debian packages the tests use: the Slurm ones only as root, since
# only root runs the Slurm tests.
wanted=(chromium fonts-wqy-zenhei xboard xvfb xauth imagemagick)
[ "$(id -u)" = 0 ] && wanted+=(slurm-wlm munge)
debs=()
found=()
for deb in "${wanted[@]}"; do
  if deb_present "$deb"; then found+=("$deb"); else debs+=("$deb"); fi
done
[ ${#found[@]} -gt 0 ] && say "found the Debian packages ${found[*]}"

# Installs the Debian packages "$@" with apt-get, adding to `failed` those
# still missing afterwards.
install_debs() {
  if ! command -v apt-get >/dev/null; then
    failed+=("$*: no apt-get here; install them with this system's package manager")
    return
  fi
  if ! as_root true; then
    say "not root and no sudo (or sudo refused): cannot run apt-get"
    failed+=("$*: apt-get install --no-install-recommends $* (as root)")
    return
  fi
  # Without recommends: chromium alone would bring some hundred packages
  # (avahi, cups, ...) that a headless browser test never uses.
  say "installing the Debian packages $* with apt-get --no-install-recommends"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q || true
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" || true
  local deb got=() missing=()
  for deb in "$@"; do
    if deb_present "$deb"; then got+=("$deb"); else missing+=("$deb"); fi
  done
  [ ${#got[@]} -gt 0 ] && say "installed ${got[*]}"
  if [ ${#missing[@]} -gt 0 ]; then
    failed+=("${missing[*]}: apt-get install --no-install-recommends ${missing[*]} (as root)")
  fi
}
if [ ${#debs[@]} -gt 0 ]; then
  install_debs "${debs[@]}"
fi

cchess_version() {
  python3 - 2>/dev/null <<'EOF'
import importlib.metadata, cchess
print(importlib.metadata.version("cchess"))
EOF
}

if ! command -v python3 >/dev/null; then
  failed+=("python3, then cchess: apt-get install python3 python3-pip, then python3 -m pip install cchess==1.25.5")
elif version=$(cchess_version); then
  if [ "$version" = 1.25.5 ]; then
    say "found cchess $version for python3 ($(command -v python3))"
  else
    say "found cchess $version for python3 ($(command -v python3)); the .obk tests were checked with 1.25.5"
  fi
else
  say "installing the PyPI package cchess==1.25.5 with python3 -m pip (the .obk tests)"
  log=$(mktemp)
  if python3 -m pip install -q cchess==1.25.5 2>"$log"; then
    pip_ok=true
  elif grep -q externally-managed-environment "$log"; then
    # A system Python that PEP 668 marks as the package manager's (Debian
    # 12's): the package goes to this user's site-packages instead, which
    # no Debian package touches.
    say "this python3 is managed by the system's package manager: installing cchess for this user only (pip --user --break-system-packages)"
    if python3 -m pip install -q --user --break-system-packages cchess==1.25.5 2>"$log"; then
      pip_ok=true
    else
      pip_ok=false
      how="python3 -m pip install --user --break-system-packages cchess==1.25.5"
    fi
  else
    pip_ok=false
    how="python3 -m pip install cchess==1.25.5 (without pip: apt-get install python3-pip)"
  fi
  if $pip_ok && version=$(cchess_version); then
    say "installed cchess $version for python3 ($(command -v python3))"
  elif $pip_ok; then
    failed+=("cchess: pip installed it, yet python3 cannot import it: python3 -c 'import cchess' says why")
  else
    cat "$log" >&2
    failed+=("cchess: $how")
  fi
  rm -f "$log"
fi

if [ ${#failed[@]} -gt 0 ]; then
  say "cannot run the tests: missing what they need, which this script could not install:"
  for f in "${failed[@]}"; do
    say "  $f"
  done
  say "install it by hand, then run scripts/test.sh again"
  exit 1
fi

if $setup_only; then
  say "everything the tests need is installed"
  exit 0
fi
say "running: cargo test --workspace --locked $*"
if [ $# -gt 0 ]; then
  exec cargo test --workspace --locked "$@"
fi
cargo test --workspace --locked
if [ "$(id -u)" = 0 ]; then
  # --workspace, as the run above: the same features, so nothing is
  # compiled again (-p egtbgen -p bookgen would build their own set).
  say "running the Slurm tests: cargo test --workspace --locked --test slurm -- --ignored --test-threads 1"
  cargo test --workspace --locked --test slurm -- --ignored --test-threads 1
else
  say "skipped the Slurm tests: they start a cluster as root (run scripts/test.sh as root)"
fi
