#!/usr/bin/env bash
# Installs what locsim needs on Debian 12 with Swift 6.3, or prints the exact command to run.
# Sourced by scripts/main-job.sh and scripts/test.sh; safe to run again (installs only what is missing).
set -euo pipefail

apt_packages=(pkg-config libsqlite3-dev libgps-dev gpsd gpsbabel socat)
# Each entry is a module, or MODULE:DISTRIBUTION when pip names it otherwise.
python_packages=(geographiclib gpxpy)
# The gpsd feed's tests read it with real gpsd clients: gpspipe (gpsd-clients; it also pulls in
# GTK and matplotlib for xgps, which no test uses) and Python's gps module (python3-gps, for
# Debian's /usr/bin/python3). Without them those tests are skipped and say so.
apt_packages+=(gpsd-clients python3-gps)
# ... and with the clients users run beside them: cgps (in tmux), gpxlogger, and the PyPI clients
# gps3, gpsd-py3 and gpsdclient, each against locsim and a real gpsd in one test.
apt_packages+=(tmux)
python_packages+=(gps3 gpsd:gpsd-py3 gpsdclient)
# serve's OpenAPI document is checked against the running server by schemathesis.
python_packages+=(schemathesis)
# LocationPostGIS tests start a private PostgreSQL 15 + PostGIS 3 server per test (initdb, pg_ctl).
apt_packages+=(postgresql-15 postgresql-15-postgis-3)
# ... and the TLS test makes its own certificate authority and server certificate with openssl.
apt_packages+=(openssl)
# serve's gzip (compress-nio) links the system's zlib.
apt_packages+=(zlib1g-dev)
# scripts/scale-out.sh puts Debian's nginx in front of several `locsim serve` (docs/guides/scale-out.md).
apt_packages+=(nginx)
# The live map's browser test drives headless Chromium over its DevTools pipe (no driver needed).
apt_packages+=(chromium)
# scripts/test.sh ends the tests' whole session with pkill (procps; setsid is util-linux's).
apt_packages+=(procps)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "bootstrap: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "bootstrap: missing system packages. Run:" >&2
    echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi

# gpsd's Debian package starts a system daemon on port 2947 and a socket unit; the tests start
# their own gpsd on private ports and need neither.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet gpsd.socket 2>/dev/null; then
  systemctl stop gpsd.socket gpsd.service >/dev/null 2>&1 || true
fi

missing_py=()
for p in "${python_packages[@]}"; do
  python3 -c "import ${p%%:*}" 2>/dev/null || missing_py+=("${p#*:}")
done
if [ ${#missing_py[@]} -gt 0 ]; then
  if python3 -m pip --version >/dev/null 2>&1; then
    echo "bootstrap: installing Python reference packages ${missing_py[*]}" >&2
    python3 -m pip install -q --disable-pip-version-check "${missing_py[@]}" >&2 2>/dev/null \
      || python3 -m pip install -q --disable-pip-version-check --break-system-packages "${missing_py[@]}" >&2
  else
    echo "bootstrap: missing Python packages. Run:" >&2
    echo "  python3 -m pip install ${missing_py[*]}" >&2
    exit 1
  fi
fi

command -v swift >/dev/null || { echo "bootstrap: Swift 6.3 is not on PATH (https://www.swift.org/install/linux/)" >&2; exit 1; }
