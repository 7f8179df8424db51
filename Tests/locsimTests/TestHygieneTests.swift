import Foundation
import LocSimTestHelpers
import Testing

/// Habits of the test suite itself that keep a failure loud: a test that awaits something cannot
/// hang the run, because its suite (or the test, when it stands alone) has a time limit; and the
/// limit is Swift Testing's shortest, one minute, for every test: a test that needs more is
/// starved or does too much, and is fixed rather than given more time.
///
/// On threads of their own: the checks read and match every Swift file of the package, seconds of
/// work that on the cooperative pool held the timers of the tests beside them (a 1.6 s lag seen).
@Suite(.ownThread, .timeLimit(.minutes(1))) struct TestHygieneTests {
    /// Every test source file under Tests/, with its path relative to the package.
    static func testSources() throws -> [(path: String, text: String)] {
        let root = PackagePaths.path("Tests")
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        var files: [(String, String)] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift"), !relative.hasPrefix("LocSimTestHelpers/") else { continue }
            files.append(("Tests/" + relative, try String(contentsOfFile: root + "/" + relative, encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// The attributes `@Suite…` and top-level `@Test…` in `text`, each whole (across lines, up to
    /// the parenthesis that closes its arguments).
    static func attributes(in text: String) -> [(line: Int, text: String)] {
        var result: [(Int, String)] = []
        let lines = text.components(separatedBy: "\n")
        var index = 0
        while index < lines.count {
            let line = lines[index]
            guard line.hasPrefix("@Suite") || line.hasPrefix("@Test") else {
                index += 1
                continue
            }
            var attribute = line, depth = 0, end = index
            func balance(_ s: String) -> Int { s.filter { $0 == "(" }.count - s.filter { $0 == ")" }.count }
            depth = balance(line)
            while depth > 0, end + 1 < lines.count {
                end += 1
                attribute += "\n" + lines[end]
                depth += balance(lines[end])
            }
            result.append((index + 1, attribute))
            index = end + 1
        }
        return result
    }

    @Test("Every suite, and every stand-alone test, in a file that awaits has a one-minute .timeLimit")
    func awaitingSuitesHaveTimeLimits() throws {
        let sources = try Self.testSources()
        #expect(sources.count > 20, "found the test sources under \(PackagePaths.path("Tests"))")
        for (path, text) in sources where text.contains("await ") {
            for (line, attribute) in Self.attributes(in: text) {
                #expect(attribute.contains(".timeLimit(.minutes(1))"), "\(path):\(line): \(attribute.prefix(80)) has no .timeLimit(.minutes(1))")
            }
        }
    }

    @Test("Every suite, and every stand-alone test, in a file that never awaits runs on a thread of its own (.ownThread)")
    func synchronousTestsOnTheirOwnThread() throws {
        for (path, text) in try Self.testSources() where !text.contains("await ") {
            // The documentation's examples (between `// BEGIN … EXAMPLE` and `// END … EXAMPLE`)
            // are an app's tests, which have no such trait.
            let lines = text.components(separatedBy: "\n")
            func inExample(_ line: Int) -> Bool {
                let before = lines[..<(line - 1)]
                let begin = before.lastIndex { $0.hasPrefix("// BEGIN ") && $0.hasSuffix("EXAMPLE") }
                let end = before.lastIndex { $0.hasPrefix("// END ") && $0.hasSuffix("EXAMPLE") }
                guard let begin else { return false }
                return end.map { $0 < begin } ?? true
            }
            for (line, attribute) in Self.attributes(in: text) where !inExample(line) {
                #expect(attribute.contains(".ownThread"), "\(path):\(line): \(attribute.prefix(80)) has no .ownThread")
            }
        }
    }

    /// Every Swift file under Sources/ and Tests/, with its path relative to the package.
    static func swiftFiles() throws -> [(path: String, text: String)] {
        var files: [(String, String)] = []
        for folder in ["Sources", "Tests"] {
            let root = PackagePaths.path(folder)
            let enumerator = try #require(FileManager.default.enumerator(atPath: root))
            while let relative = enumerator.nextObject() as? String {
                guard relative.hasSuffix(".swift") else { continue }
                files.append(("\(folder)/\(relative)", try String(contentsOfFile: root + "/" + relative, encoding: .utf8)))
            }
        }
        return files
    }

    @Test("No test blocks a thread waiting: no waitUntilExit, usleep, Thread.sleep, sleep() or Foundation Process")
    func noBlockingWaits() throws {
        let blocking = /waitUntilExit\(\)|usleep\(|Thread\.sleep|(^|[^.A-Za-z])sleep\(|= Process\(\)/
        for (path, text) in try Self.testSources() where path != "Tests/locsimTests/TestHygieneTests.swift" {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(blocking) && !line.contains("func sleep(until") {
                Issue.record("\(path):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
    }

    @Test("Tests get temporary paths from withScratchFolder (or newScratchFolder, processScratchFolder), never from the temporary directory itself")
    func oneWayToScratch() throws {
        // What may name the temporary directory: this file (it plays a killed process's folder),
        // the guide's runnable example (users copy it and have no helper), and the live-map
        // pictures kept on request (LOCSIM_LIVEMAP_KEEP=1) for a person to look at.
        let allowed: Set<String> = [
            "Tests/locsimTests/TestHygieneTests.swift", "Tests/LocationSimulationTests/DocumentationExampleTests.swift",
            "Tests/IntegrationTests/Command/LiveMapBrowserTests.swift",
        ]
        let temporary = /NSTemporaryDirectory\(\)|\.temporaryDirectory\b/
        for (path, text) in try Self.testSources() where !allowed.contains(path) {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.contains(temporary) {
                Issue.record("\(path):\(number + 1): \(line.trimmingCharacters(in: .whitespaces)) (use withScratchFolder)")
            }
        }
    }

    @Test("A test marked .ownThread runs on a thread of its own; a task it detaches, on the cooperative pool", .ownThread)
    func ownThread() async throws {
        #expect(Self.onOwnThread())
        // After an await it is still there: the executor is the task's, not only the first job's.
        try await Task.sleep(for: .milliseconds(1))
        #expect(Self.onOwnThread())
        #expect(await Task.detached { Self.onOwnThread() }.value == false)
    }

    @Test("A synchronous test marked .ownThread runs on a thread of its own too", .ownThread, arguments: [1, 2])
    func ownThreadSynchronous(_ argument: Int) {
        #expect(Self.onOwnThread(), "case \(argument)")
    }

    /// Synchronous: `Thread.current` is not for async code, whose thread can change at each await.
    static func onOwnThread() -> Bool { OwnThreadTrait.isCurrentThreadOwn }

    @Test("One lock: LocationCore's Locked; no Synchronization.Mutex anywhere (it needs iOS 18 and TSan does not see it)")
    func oneLock() throws {
        for (path, text) in try Self.swiftFiles() where path != "Tests/locsimTests/TestHygieneTests.swift" {
            #expect(!text.contains("import Synchronization"), "\(path) imports Synchronization")
            #expect(text.firstMatch(of: /\bMutex[<(]/) == nil, "\(path) uses Mutex")
        }
    }

    @Test("Only the library products declare public API, at most 25 declarations per 1,000 lines (scripts/public-symbols.sh)")
    func publicSurface() async throws {
        let result = try await ChildProcess.run([PackagePaths.path("scripts/public-symbols.sh"), "--check"], directory: PackagePaths.root)
        #expect(result.termination == .exited(0), "\(result.output)\(result.errors)")
    }

    @Test("A killed test process leaves no scratch folder behind: the next one's first use of the label removes its folders")
    func scratchFoldersOfGoneProcesses() async throws {
        try await withScratchFolder("locsim-hygiene") { parent in
            let gone = try await ChildProcess(["/bin/true"])
            _ = try await gone.waitForExit()
            let label = "locsim-scan-\(UInt32.random(in: 0...UInt32.max))"
            let names = [
                "\(label)-\(gone.pid)", "\(label)-\(gone.pid)-1B4E28BA", "\(label)-\(getppid())", "\(label)-\(getppid())-1B4E28BA",
                "\(label)-old", "\(label)x-\(gone.pid)",
            ]
            for name in names { try FileManager.default.createDirectory(atPath: parent + "/" + name, withIntermediateDirectories: false) }

            let own = processScratchFolder(label, in: parent)

            let left = Set(try FileManager.default.contentsOfDirectory(atPath: parent))
            #expect(own == parent + "/\(label)-\(getpid())")
            #expect(left == Set(names.dropFirst(2) + ["\(label)-\(getpid())"]), "only the gone process's folders go")

            // A test's own folder (withScratchFolder) left by a killed process goes the same way.
            let abandoned = NSTemporaryDirectory() + "\(label)-own-\(gone.pid)-1B4E28BA"
            try FileManager.default.createDirectory(atPath: abandoned, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(atPath: abandoned) }
            try withScratchFolder("\(label)-own") { _ in }
            #expect(!FileManager.default.fileExists(atPath: abandoned))
        }
    }
}
