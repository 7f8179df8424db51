#!/usr/bin/env bash
# check-gpsd-api.sh: does CGPS (Sources/CGPS/shim.h) and LocationGPSD still compile against the
# libgps APIs of newer gpsd releases, not only the one installed on this machine?
#
# The installed libgps-dev (Debian 12: gpsd 3.22, GPSD_API_MAJOR_VERSION 11) is what `swift build`
# and the tests use. This script fetches newer libgps-dev packages from Debian's archive WITHOUT
# touching the system: a private apt source list and state directory under a temporary
# directory, `apt-get download`, `dpkg-deb -x`. Then, for every libgps API it finds:
#   1. C:     a one-line file including shim.h, `cc -fsyntax-only -Werror -I<extracted>/usr/include`,
#             printing the GPSD_API_MAJOR_VERSION and the gps.h it actually included;
#   2. Swift: `swift build --target LocationGPSD --scratch-path .build-gpsapi-<API>
#             -Xcc -I<extracted>/usr/include -Xcc -DLOCSIM_EXPECT_GPSD_API=<API>`.
#             shim.h stops with #error when LOCSIM_EXPECT_GPSD_API differs from the gps.h it
#             included, so the build cannot pass by silently using /usr/include/gps.h.
# Nothing is linked (the extracted package has headers only).
#
# Usage: scripts/check-gpsd-api.sh [--keep] [--clean] [--c-only]
#   --keep     keep the temporary directory (downloaded .debs, extracted headers) and print it
#   --clean    remove the .build-gpsapi-* scratch directories afterwards (kept by default; a
#              re-run reuses what it can; .gitignore's `.build-*/` already ignores them)
#   --c-only   skip the Swift builds (about a minute each on two cores)
# Needs: network access to deb.debian.org, apt-get, dpkg-deb, cc, swift, debian-archive-keyring.
# Exit status: 0 when every API found compiles and every wanted API (14, 16) was found;
# 1 when a compile failed; 2 when a wanted API is not in the archive; 3 on a setup failure.
set -euo pipefail

keep=0 clean=0 c_only=0
for argument in "$@"; do
    case "$argument" in
        --keep) keep=1 ;;
        --clean) clean=1 ;;
        --c-only) c_only=1 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "check-gpsd-api.sh: unknown argument '$argument' (try --help)" >&2; exit 3 ;;
    esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
wanted_apis=(14 16)
# Suites searched for libgps-dev; bookworm-backports is listed to show it has none.
suites=(bookworm-backports trixie forky sid)
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -r $keyring ]] || { echo "check-gpsd-api.sh: $keyring missing (apt-get install debian-archive-keyring)" >&2; exit 3; }

work=$(mktemp -d "${TMPDIR:-/tmp}/check-gpsd-api.XXXXXX")
if ((keep)); then
    trap 'echo "kept $work"' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi

# --- private apt: nothing under /etc/apt or /var/lib/apt is read for sources or written -------
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/apt/none" "$work/debs"
for suite in "${suites[@]}"; do
    echo "deb [signed-by=$keyring] http://deb.debian.org/debian $suite main"
done >"$work/apt/sources.list"
apt_options=(
    -o "Dir::Etc::SourceList=$work/apt/sources.list"
    -o "Dir::Etc::SourceParts=$work/apt/none"
    -o "Dir::Etc::Preferences=$work/apt/none/preferences"
    -o "Dir::Etc::PreferencesParts=$work/apt/none"
    -o "Dir::State::Lists=$work/apt/lists"
    -o "Dir::Cache=$work/apt/cache"
    -o "Dir::State::status=/dev/null"
    -o "APT::Get::List-Cleanup=0"
    -o "Debug::NoLocking=1"
    -o "APT::Sandbox::User=$(id -un)"
    -o "Acquire::Languages=none"
)
echo "== apt-get update (private lists: ${suites[*]})"
apt-get "${apt_options[@]}" -qq update || { echo "check-gpsd-api.sh: apt-get update failed (network to deb.debian.org?)" >&2; exit 3; }
echo "== apt-cache madison libgps-dev"
madison=$(apt-cache "${apt_options[@]}" madison libgps-dev)
printf '%s\n' "$madison"
mapfile -t versions < <(awk -F'|' '{gsub(/ /, "", $2); print $2}' <<<"$madison" | sort -uV)
((${#versions[@]})) || { echo "check-gpsd-api.sh: no libgps-dev in ${suites[*]}" >&2; exit 3; }

# --- download and extract each version; keep the newest version for every API -------------
declare -A include_for_api release_for_api
for version in "${versions[@]}"; do
    (cd "$work/debs" && apt-get "${apt_options[@]}" -qq download "libgps-dev=$version")
    deb=$(ls "$work/debs"/libgps-dev_"${version//:/%3a}"_*.deb)
    tree="$work/x/$version"
    mkdir -p "$tree"
    dpkg-deb -x "$deb" "$tree"
    api=$(awk '$1 == "#define" && $2 == "GPSD_API_MAJOR_VERSION" {print $3}' "$tree/usr/include/gps.h")
    echo "   libgps-dev $version: GPSD_API_MAJOR_VERSION $api"
    include_for_api[$api]="$tree/usr/include"   # versions are ascending: the newest wins
    release_for_api[$api]="$version"
done

# --- compile ------------------------------------------------------------------------------
printf '#include "shim.h"\nint locsim_check_gpsd_api = CGPS_apiMajorVersion;\n' >"$work/check.c"
failures=0
summary=()
check_c() { # api include_dir label
    local api=$1 include=$2 label=$3 seen header
    if ! cc -std=c11 -fsyntax-only -Wall -Wextra -Werror -DLOCSIM_EXPECT_GPSD_API="$api" \
        -I"$root/Sources/CGPS" -I"$include" "$work/check.c"; then
        summary+=("API $api ($label): C shim FAILED"); failures=$((failures + 1)); return 1
    fi
    seen=$(printf '#include "shim.h"\nLOCSIM_API GPSD_API_MAJOR_VERSION\n' |
        cc -E -P -I"$root/Sources/CGPS" -I"$include" -x c - | awk '$1 == "LOCSIM_API" {print $2}')
    header=$(cc -M -I"$root/Sources/CGPS" -I"$include" "$work/check.c" | tr ' \\' '\n\n' | grep '/gps\.h$')
    echo "   C: shim.h compiles; GPSD_API_MAJOR_VERSION $seen from $header"
    summary+=("API $api ($label): C shim ok (saw API $seen)")
}

echo "== API 11 baseline: the installed /usr/include/gps.h (C only; swift build/test cover Swift)"
if [[ -r /usr/include/gps.h ]]; then
    baseline=$(awk '$1 == "#define" && $2 == "GPSD_API_MAJOR_VERSION" {print $3}' /usr/include/gps.h)
    check_c "$baseline" /usr/include "installed $(dpkg-query -W -f='${Version}' libgps-dev 2>/dev/null || echo '?')" || true
else
    echo "   (no /usr/include/gps.h: skipped)"
fi

for api in $(printf '%s\n' "${!include_for_api[@]}" | sort -n); do
    include=${include_for_api[$api]}
    label="libgps-dev ${release_for_api[$api]}"
    echo "== API $api: $label"
    check_c "$api" "$include" "$label" || continue
    if ((c_only)); then continue; fi
    scratch="$root/.build-gpsapi-$api"
    log="$work/swift-build-$api.log"
    echo "   Swift: swift build --target LocationGPSD --scratch-path .build-gpsapi-$api -Xcc -I$include -Xcc -DLOCSIM_EXPECT_GPSD_API=$api"
    if (cd "$root" && swift build --target LocationGPSD --scratch-path "$scratch" \
        -Xcc -I"$include" -Xcc -DLOCSIM_EXPECT_GPSD_API="$api") >"$log" 2>&1; then
        if grep -q 'warning:' "$log"; then
            grep 'warning:' "$log" | sort -u | sed 's/^/   /'
            summary+=("API $api ($label): Swift LocationGPSD built WITH WARNINGS"); failures=$((failures + 1))
        else
            echo "   Swift: $(tail -n 1 "$log")"
            summary+=("API $api ($label): Swift LocationGPSD ok")
        fi
    else
        tail -n 30 "$log" | sed 's/^/   /'
        summary+=("API $api ($label): Swift LocationGPSD FAILED"); failures=$((failures + 1))
    fi
    if ((clean)); then rm -rf "$scratch"; fi
done

missing=()
for api in "${wanted_apis[@]}"; do
    [[ -n ${include_for_api[$api]:-} ]] || missing+=("$api")
done

echo "== summary"
printf '   %s\n' "${summary[@]}"
if ((${#missing[@]})); then echo "   not in Debian's archive (${suites[*]}): API ${missing[*]}"; fi
if ((failures)); then exit 1; fi
if ((${#missing[@]})); then exit 2; fi
exit 0
