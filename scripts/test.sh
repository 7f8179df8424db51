#!/usr/bin/env bash
# Runs every test: installs what is missing, builds, and runs the Swift Testing suites, then
# builds the documentation (scripts/docs.sh) and a short fuzz smoke.
# Tests that need ../shared/data (real recordings, receiver logs, GeoNames) say so when it is absent.
#
# LOCSIM_SANITIZE=address (or thread) runs the same tests built with that sanitizer, in
# .build-asan (.build-tsan), without the docs and the fuzz smoke; see docs/sanitizers.md.
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
    # The sanitizer runtimes link with the toolchain's lld (scripts/lib/lld-toolset.sh says why).
    source scripts/lib/lld-toolset.sh
    scratch=.build-${sanitize:0:1}san
    toolset=$(lld_toolset "$scratch") || exit 1
    flags=(--sanitize="$sanitize" --scratch-path "$scratch" --toolset "$toolset")
    # ThreadSanitizer does not see Synchronization.Mutex on Linux; LOCSIM_TSAN swaps in a lock
    # it does see (LocationCore/Concurrency/TSanVisibleMutex.swift, docs/sanitizers.md).
    if [ "$sanitize" = thread ]; then
      flags+=(-Xswiftc -DLOCSIM_TSAN)
      # A module that uses Mutex without its TSanMutex.swift would be reported wrongly again.
      for dir in Sources/* Tests/*; do
        if grep -rhE --include='*.swift' '\bMutex[<(]' "$dir" | grep -qvE '^ *//' && [ ! -f "$dir/TSanMutex.swift" ]; then
          echo "test: error: $dir uses Mutex but has no TSanMutex.swift (see docs/sanitizers.md)" >&2
          exit 1
        fi
      done
    fi
    # Reports that are not locsim's: scripts/sanitizers/*.supp says what each one is and why.
    export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan.supp:print_suppressions=0"
    export TSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/tsan.supp:print_suppressions=0"
    ;;
  *) echo "test: error: LOCSIM_SANITIZE must be address or thread, got '$sanitize'" >&2; exit 2 ;;
esac
swift build --build-tests "${flags[@]}"
if [ $# -gt 0 ]; then
  swift test --skip-build "${flags[@]}" "$@"
else
  # Suites that drive a live gpsd run in a process of their own: in one process, the command
  # suites' blocking waits fill Swift's two-thread pool on a 2-core machine for a minute at a
  # time, and the daemons' feeds and sessions stall and time out. Headless Chromium (the live
  # map's test) is as heavy, and as starved beside a hundred suites: it runs here too.
  # The feed server's own suites (GPSDFeedLiveTests, GPSDOutboxTests) serve real clients on
  # the same pool, and are starved the same way; so are the emulator-console bridges
  # (BridgeTests: a CI run on a loaded machine saw their stand-in wait in vain for `geo fix`).
  live='LocationGPSDTests\.|GPSDCommandTests|GPSDCommandFailureTests|FixRecordParityTests|NMEALogCommandTests|GPSDFeedLiveTests|GPSDOutboxTests|BridgeTests|FeedCommandTests|LiveMapBrowserTests'
  # Suites that start a PostgreSQL server and compare thousands of queries keep both pool threads
  # busy for minutes; beside them, short async suites (MapReplayLoopTests) hit their time limits.
  postgres='LocationPostGISTests\.|PostGISCommandTests'
  # Every group runs even when an earlier one fails, so one run shows every failure.
  failed=0
  if [ -z "$sanitize" ]; then
    swift test --skip-build --skip "$live|$postgres" || failed=1
    swift test --skip-build --filter "$live" || failed=1
    swift test --skip-build --filter "$postgres" || failed=1
  else
    # A sanitizer makes every test 2-10 times slower, and whole groups in one process starve
    # (gpsd's provider tests waited 30 s for a fix under AddressSanitizer; alone they pass).
    # Each group of each test target runs in a process of its own, and the live tests one at a
    # time: ten gpsd daemons and their feeds at once under ThreadSanitizer kept a provider 30 s
    # behind its daemon's events (each test passed in under a second alone).
    for target in $(sed -n 's/^ *name: "\([A-Za-z]*Tests\)".*/\1/p' Package.swift); do
      echo "test: $target (under the $sanitize sanitizer)" >&2
      swift test --skip-build "${flags[@]}" --filter "^$target\." --skip "$live|$postgres" || failed=1
      swift test --skip-build "${flags[@]}" --no-parallel --filter "^(?=$target\.).*($live)" || failed=1
      swift test --skip-build "${flags[@]}" --filter "^(?=$target\.).*($postgres)" || failed=1
    done
  fi
  [ "$failed" -eq 0 ] || { echo "test: some tests failed (see above)" >&2; exit 1; }
fi
# The DocC catalogs and doc comments, warnings (an unresolved symbol link) failing the run; it
# reuses the debug build above. LOCSIM_SKIP_DOCS=1 leaves it out.
if [ -z "${LOCSIM_SKIP_DOCS:-}" ] && [ -z "$sanitize" ] && [ $# -eq 0 ]; then
  scripts/docs.sh
fi
# libFuzzer smoke (20 s per reader, fixed seed); LOCSIM_SKIP_FUZZ=1 leaves it out.
if [ -z "${LOCSIM_SKIP_FUZZ:-}" ] && [ -z "$sanitize" ] && [ $# -eq 0 ]; then
  scripts/fuzz.sh --smoke
fi
