// Does ThreadSanitizer see Synchronization.Mutex on this toolchain? Two threads update state that
// only `withLock` reaches; a toolchain whose Mutex TSan understands prints no warning.
//
//   swiftc -sanitize=thread -use-ld=lld scripts/sanitizers/mutex-under-tsan.swift -o /tmp/mutex-tsan
//   /tmp/mutex-tsan 2>&1 | grep -c 'WARNING: ThreadSanitizer'     # Swift 6.3.1 on Linux: > 0
//
// See docs/development/sanitizers.md ("ThreadSanitizer").
import Foundation
import Synchronization

final class Counter: Sendable {
    struct State {
        var count = 0
        var last = ""
    }
    let state = Mutex(State())
}

let counter = Counter()
let done = DispatchGroup()
for worker in 0..<2 {
    done.enter()
    Thread {
        for step in 0..<20_000 {
            counter.state.withLock { state in
                state.count += 1
                state.last = "\(worker)-\(step)"
            }
        }
        done.leave()
    }.start()
}
done.wait()
print("count:", counter.state.withLock { $0.count }, "(40000 expected)")
