// The ceiling for `locsim serve` on this machine: a bare Hummingbird 2 server answering
// `GET /hello` with `ok`, no log, no metrics, no audit, the same HTTP/1.1 stack and defaults.
// scripts/bench-serve.sh runs it beside `locsim serve` so the two rates come from one run.
//
//   HelloServer PORT
import Foundation
import Hummingbird

let arguments = CommandLine.arguments
guard arguments.count == 2, let port = Int(arguments[1]), (1...65_535).contains(port) else {
    print("usage: HelloServer PORT")
    exit(2)
}
let router = Router()
router.get("hello") { _, _ in "ok\n" }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "hello"))
try await app.runService()
