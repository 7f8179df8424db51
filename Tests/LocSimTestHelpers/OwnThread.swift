import Foundation
public import Testing

/// Runs each test case on a thread of its own instead of Swift's cooperative pool.
///
/// For tests that compute for seconds without awaiting (an import of 144,563 places, thousands
/// of brute-force queries, any synchronous test function, which Swift also runs on the pool): on
/// the pool, two of them side by side hold both of a two-core machine's pool threads, and every
/// timer, server and child-process wait of the other tests waits for them. On a thread of their
/// own they share the cores like any other thread. Every suite in a file that never awaits has it
/// (`TestHygieneTests` checks). Not for a test that runs a server or a player in-process: the
/// tasks it starts in task groups inherit the preference and would all run on the one thread.
///
/// ```swift
/// @Suite(.ownThread) struct ImportTests { … }
/// @Test(.ownThread) func largeFile() throws { … }
/// ```
public struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let executor = ThreadExecutor(name: "locsim.test.\(test.name)")
        defer { executor.finish() }
        // The closure starts where the caller is; the test's body, an async function, runs on the
        // executor.
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension OwnThreadTrait {
    /// Whether the calling code runs on a thread of this trait (synchronous: an async function's
    /// thread can change at each await).
    public static var isCurrentThreadOwn: Bool {
        Thread.current.threadDictionary[ThreadExecutor.marker] != nil
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Each test case runs on a thread of its own: see ``OwnThreadTrait``.
    public static var ownThread: Self { Self() }
}

/// A task executor with one thread: runs its jobs in the order they come, until ``finish()``
/// and the last job are done.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    /// The key in its thread's `threadDictionary` that marks the thread as an executor's.
    static let marker = "locsim.test.ThreadExecutor"
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    init(name: String) {
        let thread = Thread { [self] in
            Thread.current.threadDictionary[Self.marker] = true
            run()
        }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
