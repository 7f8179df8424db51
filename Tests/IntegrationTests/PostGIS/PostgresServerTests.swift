import Foundation
import LocSimTestHelpers
import Testing

/// The test server itself: what it leaves behind when a test process dies is the test's concern
/// too. With `pg_ctl`, the postmaster ran in a session of its own, so a killed run (a trap, a
/// `kill -9`) left running servers and their clusters in memory (`/dev/shm`) until someone
/// removed them by hand.
@Suite(.timeLimit(.minutes(1))) struct PostgresServerTests {
    @Test("the postmaster is this process's child, in this process's session, its cluster in a folder named with this process's id")
    func nothingOutlivesTheTestProcess() async throws {
        if let reason = PostgresServer.unavailableReason {
            print("skipped: \(reason)")
            return
        }
        let server = try await PostgresServer.start()
        let postmaster: Int32
        do {
            postmaster = try Self.postmasterID(of: server)
            let (parent, session) = try Self.parentAndSession(of: postmaster)
            #expect(parent == getpid(), "the postmaster's parent is \(parent), not the test process \(getpid())")
            #expect(session == getsid(0), "the postmaster is in session \(session), not the test process's \(getsid(0))")
            #expect(
                (server.directory as NSString).lastPathComponent.hasPrefix("locsim-pg-\(getpid())-"),
                "\(server.directory) is not named with the test process's id, so a later run would not remove it")
            #expect(try await server.psqlValues("SELECT 1") == "1")

            // halt() ends it (immediate shutdown, as a crash), restart() starts a new one on the port.
            try await server.halt()
            #expect(Self.isRunning(postmaster) == false, "halt() returned with the postmaster \(postmaster) still running")
            try await server.restart()
            #expect(try await server.psqlValues("SELECT 2") == "2")
            #expect(server.log.contains("ready to accept connections"), "the log holds what both postmasters wrote")
        } catch {
            await server.stop()
            throw error
        }
        let restarted = try Self.postmasterID(of: server)
        await server.stop()
        #expect(Self.isRunning(restarted) == false, "stop() returned with the postmaster \(restarted) still running")
        #expect(FileManager.default.fileExists(atPath: server.directory) == false, "stop() left \(server.directory)")
    }

    static func postmasterID(of server: PostgresServer) throws -> Int32 {
        let text = try String(contentsOfFile: server.directory + "/data/postmaster.pid", encoding: .utf8)
        guard let line = text.split(separator: "\n").first, let pid = Int32(line) else {
            throw HarnessError("postmaster.pid does not start with a process id: \(text)")
        }
        return pid
    }

    /// The parent and session of a process (`/proc/<pid>/stat`: the 4th and 6th fields, counted
    /// after the parenthesised command name as the 2nd and 4th).
    static func parentAndSession(of pid: Int32) throws -> (parent: Int32, session: Int32) {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else { throw HarnessError("/proc/\(pid)/stat: \(stat)") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 3, let parent = Int32(fields[1]), let session = Int32(fields[3]) else {
            throw HarnessError("/proc/\(pid)/stat: \(stat)")
        }
        return (parent, session)
    }

    /// Whether the process exists and is not a zombie waiting to be reaped.
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return false
        }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }
}
