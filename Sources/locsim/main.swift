// The `locsim` executable: everything it does lives in the LocSimCommand library target, so the
// option parsers can be fuzzed and tested in-process (scripts/fuzz, Tests/locsimTests).
import LocSimCommand

await LocSimCommandLine.main()
