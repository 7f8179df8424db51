import NIOCore
import NIOPosix

extension NearbyServer {
    /// Makes SwiftNIO's event loops run every Swift task of the process, so that a request is
    /// read, answered and written on its connection's event loop thread, with no hand-over to
    /// Swift's own thread pool and back (two thread switches per request otherwise).
    ///
    /// Hummingbird 2 answers each connection in a Swift task: by default the bytes arrive on an
    /// event loop thread, the task that answers them runs on the global concurrent executor's
    /// threads, and the answer goes back to the event loop. With this call both are the same
    /// thread. Call it once, at the start of a process that serves (the command does, before
    /// the server starts); it is process-wide, so a library never calls it for its user.
    ///
    /// - Parameter threads: The event loops (threads) of NIO's shared group, which then also
    ///   run all tasks; nil keeps NIO's default (one per core). Takes effect only before anything
    ///   has used the shared group.
    /// - Returns: Whether the takeover happened (false where the platform does not allow it;
    ///   the server then works as before).
    package static func runTasksOnEventLoops(threads: Int? = nil) -> Bool {
        if let threads { NIOSingletons.groupLoopCountSuggestion = max(1, threads) }
        return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
