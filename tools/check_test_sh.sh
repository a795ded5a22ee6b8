#!/usr/bin/env bash
# Checks scripts/test.sh against stand-ins for apt-get, sudo, pip, chromium,
# fc-list and cargo, on a PATH of its own, so that it installs nothing and
# needs no network: a machine with nothing installed gets everything
# installed, and the tests run with the arguments given; a second run
# installs nothing, nor does a font that only fontconfig knows; a machine
# where nothing can be installed, or a user who is neither root nor has
# sudo, gets a message naming what is missing and how to install it, and
# exit status 1, before any test runs. It passes as root and as any other
# user.
# Usage: tools/check_test_sh.sh (prints "ok" and exits 0 when all hold);
# cli/tests/test_script.rs runs it with the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/bin
mkdir "$bin"
# The files, not shell builtins: sudo runs `true` as a program.
for tool in bash env dirname grep awk sed mktemp cat rm id chmod touch true; do
  ln -s "$(type -P "$tool")" "$bin/$tool"
done

# Stand-ins. Each logs its command line; apt-get and pip "install" by
# creating what the script looks for afterwards, unless $work/offline exists.
cat >"$bin/apt-get" <<EOF
#!/usr/bin/env bash
echo "apt-get \$*" >>"$work/log"
[ -e "$work/offline" ] && exit 100
if [ "\$1" = install ]; then
  for deb in "\$@"; do
    case \$deb in
    chromium) printf '#!/bin/sh\necho chromium' >"$bin/chromium"; chmod +x "$bin/chromium" ;;
    fonts-wqy-zenhei) touch "$work/font" ;;
    xboard | xvfb | xauth | imagemagick) touch "$work/deb-\$deb" ;;
    slurm-wlm) printf '#!/bin/sh\n' >"$bin/slurmctld"; chmod +x "$bin/slurmctld" ;;
    munge) printf '#!/bin/sh\n' >"$bin/munged"; chmod +x "$bin/munged" ;;
    esac
  done
fi
exit 0
EOF
cat >"$bin/dpkg-query" <<EOF
#!/usr/bin/env bash
package=\${!#}
if [ "\$package" = fonts-wqy-zenhei ]; then [ -e "$work/font" ] && printf 'install ok installed'
else [ -e "$work/deb-\$package" ] && printf 'install ok installed'; fi
exit 0
EOF
cat >"$bin/python3" <<EOF
#!/usr/bin/env bash
echo "python3 \$*" >>"$work/log"
if [ "\$1 \$2 \$3" = "-m pip install" ]; then
  [ -e "$work/offline" ] && { echo "ERROR: no network" >&2; exit 1; }
  touch "$work/cchess"; exit 0
fi
if [ "\$1" = - ]; then
  cat >/dev/null
  [ -e "$work/cchess" ] && { echo 1.25.5; exit 0; }
  echo "ModuleNotFoundError: No module named 'cchess'" >&2; exit 1
fi
exit 0
EOF
cat >"$bin/cargo" <<EOF
#!/usr/bin/env bash
echo "cargo \$*" >>"$work/log"
EOF
# A user who is not root reaches apt-get through sudo.
cat >"$bin/sudo" <<EOF
#!/usr/bin/env bash
exec "\$@"
EOF
# A font list far longer than a pipe holds (about 700 KB), the font first:
# a reader that stops at the font kills it by SIGPIPE (141, also where
# SIGPIPE is ignored and the write fails instead).
cat >"$work/fc-list" <<EOF
#!/usr/bin/env bash
echo '/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc: WenQuanYi Zen Hei:style=Regular'
for i in {1..10000}; do
  echo '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf: DejaVu Sans:style=Book' || exit 141
done
EOF
# Not root, as `id -u` tells the script.
mkdir "$work/user"
cat >"$work/user/id" <<EOF
#!/usr/bin/env bash
[ "\$1" = -u ] && { echo 65534; exit 0; }
exec "$(type -P id)" "\$@"
EOF
# Only the stand-ins: the links lead to the system's own tools.
chmod +x "$bin"/{apt-get,dpkg-query,python3,cargo,sudo} "$work/fc-list" "$work/user/id"

# As root, the script also installs Slurm and runs the Slurm test.
debs="chromium fonts-wqy-zenhei xboard xvfb xauth imagemagick"
[ "$(id -u)" = 0 ] && debs="$debs slurm-wlm munge"

run() { PATH=$bin "$root/scripts/test.sh" "$@" >"$work/out" 2>&1; }
fail() {
  echo "FAILED: $*"
  echo "--- output:"; cat "$work/out"
  echo "--- commands:"; cat "$work/log" 2>/dev/null
  exit 1
}

# Nothing installed, nothing can be installed.
touch "$work/offline"

# Not root and no sudo: said once, apt-get never run, and the packages
# named with how to install them.
mv "$bin/sudo" "$work/sudo"
if PATH=$work/user:$bin "$root/scripts/test.sh" >"$work/out" 2>&1; then fail "run without sudo passed"; fi
[ "$(grep -c 'not root' "$work/out")" = 1 ] || fail "not root and no sudo not said once"
! grep -q '^apt-get' "$work/log" 2>/dev/null || fail "apt-get run without root"
grep -q 'apt-get install --no-install-recommends chromium fonts-wqy-zenhei xboard xvfb xauth imagemagick (as root)' "$work/out" ||
  fail "no apt-get advice without sudo"
mv "$work/sudo" "$bin/sudo"
rm -f "$work/log"

# Nothing installed, nothing can be installed: a clear refusal, no test run.
if run; then fail "offline run passed"; fi
grep -q "apt-get install --no-install-recommends $debs" "$work/out" || fail "no apt-get advice"
grep -q 'python3 -m pip install cchess==1.25.5' "$work/out" || fail "no pip advice"
! grep -q '^cargo' "$work/log" || fail "tests ran without their prerequisites"
rm "$work/offline" "$work/log"

# Nothing installed: everything installed, then the tests with the arguments.
run --release -- --ignored || fail "first run failed"
grep -q "apt-get install -y -q --no-install-recommends $debs" "$work/log" || fail "apt-get not asked"
grep -q 'python3 -m pip install -q cchess==1.25.5' "$work/log" || fail "pip not asked"
grep -qx 'cargo test --workspace --locked --release -- --ignored' "$work/log" || fail "arguments not passed"
grep -q "installing the Debian packages $debs" "$work/out" || fail "install not said"
grep -q "^test.sh: installed $debs\$" "$work/out" || fail "installed not said"
rm "$work/log"

# Everything there: nothing installed, the tests run.
run || fail "second run failed"
! grep -q -e '^apt-get' -e 'pip install' "$work/log" || fail "second run installed again"
grep -qx 'cargo test --workspace --locked' "$work/log" || fail "second run ran no tests"
if [ "$(id -u)" = 0 ]; then
  grep -qx 'cargo test --workspace --locked --test slurm -- --ignored --test-threads 1' "$work/log" ||
    fail "no Slurm test as root"
fi
grep -q "found the Debian packages $debs\$" "$work/out" && grep -q 'found cchess 1.25.5' "$work/out" ||
  fail "found not said"
rm "$work/log"

# The font known only to fontconfig, in a long list: found, not installed.
rm "$work/font"
mv "$work/fc-list" "$bin/fc-list"
run || fail "run with the font in fc-list failed"
! grep -q '^apt-get' "$work/log" 2>/dev/null || fail "the font in fc-list installed again"
grep -q "found the Debian packages $debs\$" "$work/out" || fail "the font in fc-list not found"
rm "$bin/fc-list"
rm -f "$work/log"

# Only the font missing: only the font installed, and only it named so.
run || fail "third run failed"
grep -q 'apt-get install -y -q --no-install-recommends fonts-wqy-zenhei$' "$work/log" ||
  fail "not the font alone asked for"
grep -q '^test.sh: installing the Debian packages fonts-wqy-zenhei with' "$work/out" &&
  grep -q '^test.sh: installed fonts-wqy-zenhei$' "$work/out" ||
  fail "the font's install not said alone"
! grep -q '^test.sh: found the Debian packages.*fonts-wqy-zenhei' "$work/out" || fail "the font said found"
echo ok
