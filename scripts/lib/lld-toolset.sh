# Sourced by scripts/test.sh (sanitizer builds) and scripts/fuzz.sh.
# lld_toolset DIR writes DIR/toolset.json, a SwiftPM toolset that links with the toolchain's
# ld.lld: Debian's ld.gold stops on the sanitizer runtimes' debug info ("internal error in
# format_file_lineno"). Prints the file's path; fails, naming the missing linker, without one.
lld_toolset() {
  local dir=$1 lld
  lld="$(dirname "$(readlink -f "$(command -v swiftc)")")/ld.lld"
  if [ ! -x "$lld" ]; then
    echo "$(basename "$0" .sh): error: no ld.lld beside swiftc ($lld)" >&2
    return 1
  fi
  mkdir -p "$dir"
  printf '{ "schemaVersion": "1.0", "linker": { "path": "%s" } }\n' "$lld" > "$dir/toolset.json"
  echo "$dir/toolset.json"
}
