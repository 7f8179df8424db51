#!/usr/bin/env bash
# Runs every test: installs what is missing, builds, and runs all test targets in one `swift test`
# (Swift Testing runs them in parallel; nothing in them blocks Swift's cooperative pool, see
# docs/development/testing.md). Arguments go to `swift test` (`--filter IntegrationTests`,
# `--skip IntegrationTests`, ...). Tests that need ../shared/data (real recordings, receiver logs,
# GeoNames) say so when it is absent. The DocC build and the fuzz smoke are steps of their own
# (scripts/docs.sh, scripts/fuzz.sh --smoke; .ci/run runs all three).
#
# LOCSIM_SANITIZE=address (or thread) runs the same tests built with that sanitizer, in
# .build-asan (.build-tsan); see docs/development/sanitizers.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
if [ -d ../shared/data ]; then
  echo "test: using real-world data in $(cd ../shared/data && pwd)"
else
  echo "test: ../shared/data is absent; tests that need it are skipped and say so"
fi
flags=()
sanitize=${LOCSIM_SANITIZE:-}
case $sanitize in
  '') ;;
  address|thread)
    # The sanitizer runtimes link with the toolchain's lld, as every build does (Package.swift).
    flags=(--sanitize="$sanitize" --scratch-path ".build-${sanitize:0:1}san")
    # Reports that are not locsim's: scripts/sanitizers/*.supp says what each one is and why.
    export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan.supp:print_suppressions=0"
    export TSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/tsan.supp:print_suppressions=0"
    ;;
  *) echo "test: error: LOCSIM_SANITIZE must be address or thread, got '$sanitize'" >&2; exit 2 ;;
esac
# By default Swift Testing starts every test case at once (about 250 ran side by side here), and a
# test case's time limit runs from its start: on two cores every test would then take about as long
# as the whole run. Two test cases per core keep the cores busy (most tests also wait on a child
# process or a socket) while each one's time is its own. On two cores with two CPU hogs beside the
# run, eight at a time let one test pass its minute; four at a time, none came near it.
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-$((cores * 2))}
# SwiftPM 6.3 passes the package's traits to every module as -DServer -DPostGIS in the order of
# a hash set, seeded anew in each process: when a build plans again (a new file, an edited
# Package.swift, often just another day's first build) the two may swap, and every locsim module
# is compiled again with nothing changed, about 300 s here (swift-package-manager #10525, fixed
# after 6.3). A fixed seed in SwiftPM's own process keeps the order; the tests keep theirs.
SWIFT_DETERMINISTIC_HASHING=1 swift build --build-tests "${flags[@]}"
# The tests run in a session of their own, whose processes are ended when this script ends: a test
# process that crashes cannot stop the servers and gpsd instances its tests started, and they
# would outlive it (a trap once left 93 running; the PostgreSQL test servers are the test
# process's own children so that this reaches them: Tests/LocSimTestHelpers/PostgresServer.swift).
# `swift test` puts the test process in a process group of its own, so the session is what holds
# them all. Ctrl-C ends this script, and so them.
setsid swift test --skip-build "${flags[@]}" "$@" &
tests=$!
trap 'pkill -TERM -s "$tests" 2>/dev/null || true' EXIT
wait "$tests"
