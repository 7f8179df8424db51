// The ceiling for `locsim serve` on this machine: a bare Hummingbird 2 server answering
// `GET /hello` with `ok`, no log, no metrics, no audit, the same HTTP/1.1 stack and defaults.
// scripts/bench-serve.sh runs it beside `locsim serve` so the two rates come from one run.
//
//   HelloServer PORT [LOOPS]
//
// With LOOPS, Swift's tasks run on NIO's event loops (LOOPS of them), as `locsim serve` runs
// them (NearbyServer.runTasksOnEventLoops); without, Hummingbird's defaults.
import Foundation
import Hummingbird
import NIOCore
import NIOPosix

let arguments = CommandLine.arguments
guard (2...3).contains(arguments.count), let port = Int(arguments[1]), (1...65_535).contains(port),
    arguments.count == 2 || Int(arguments[2]) != nil
else {
    print("usage: HelloServer PORT [LOOPS]")
    exit(2)
}
if arguments.count == 3, let loops = Int(arguments[2]) {
    NIOSingletons.groupLoopCountSuggestion = max(1, loops)
    guard NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() else {
        print("HelloServer: cannot run tasks on NIO's event loops here")
        exit(1)
    }
}
let router = Router()
router.get("hello") { _, _ in "ok\n" }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "hello"))
try await app.runService()
