import CommandTestHelpers
import Foundation
import LocSimTestHelpers
import Testing

/// The published contract (#33 item 4): `GET /openapi.json` describes every route, and
/// schemathesis (PyPI; scripts/bootstrap.sh installs it), a tool no one here wrote, generates
/// requests from it against a running `locsim serve` with players and checks every answer
/// against the document: status codes, content types, headers and bodies, and no 5xx.
@Suite(.timeLimit(.minutes(1))) struct ServeContractTests {
    /// Every operation but adding a player, with every check. The two event streams never end
    /// (a heartbeat every 15 s): they are read for a second each in ``eventStreams()``.
    @Test("schemathesis finds every answer of serve as its OpenAPI document says")
    func everyOperation() async throws {
        try await Self.check([
            "--exclude-operation-id", "streamAllPlayerEvents", "--exclude-operation-id", "streamPlayerEvents",
            "--exclude-operation-id", "addPlayer",
        ])
    }

    /// The two event streams, read for a second each (they never end): schemathesis parses their
    /// events and checks each against the document's event schema.
    @Test("schemathesis reads the event streams' events as the document describes them")
    func eventStreams() async throws {
        try await Self.check([
            "--include-operation-id", "streamAllPlayerEvents", "--include-operation-id", "streamPlayerEvents",
            "--phases", "examples,coverage", "--request-timeout", "1",
        ])
    }

    /// Adding a player: its body is a GPX file or a player spec, which no schema can say is
    /// valid, so a generated one that is refused (400) is not a finding here; and a body over the
    /// 16 MiB the players' routes read is a 413 with its own code, as documented.
    @Test("schemathesis on POST /players, and its 413")
    func addingPlayers() async throws {
        try await Self.check(
            ["--include-operation-id", "addPlayer", "--exclude-checks", "positive_data_acceptance", "--phases", "examples,coverage,fuzzing"]
        ) { server in
            let huge = try await server.call("POST", "/players", String(repeating: "x", count: 17 << 20), contentType: "application/gpx+xml")
            #expect(huge.status == 413)
            #expect((huge.json["error"] as? [String: Any])?["code"] as? String == "payload_too_large", "\(huge.body.prefix(300))")
        }
    }

    /// docs/openapi.yaml, the document for people to read, says what the served one says
    /// (scripts/openapi-yaml.py writes it from Contract/openapi.json, and checks it here).
    @Test("docs/openapi.yaml is the document GET /openapi.json answers")
    func yamlDocument() async throws {
        let probe = try await ChildProcess.run(["/usr/bin/env", "python3", "-c", "import yaml"])
        guard probe.termination == .exited(0) else {
            print("skipped: PyYAML is not installed (scripts/bootstrap.sh installs schemathesis, which brings it)")
            return
        }
        let outcome = try await ChildProcess.run(
            ["/usr/bin/env", "python3", PackagePaths.path("scripts/openapi-yaml.py"), "--check"], timeout: .seconds(30))
        #expect(outcome.termination == .exited(0), "\(outcome.errors)")
    }

    /// Starts `serve --token … --player …`, runs schemathesis with `arguments` against its
    /// document, and `more` with the server. With a token: the document says every route but
    /// /healthz, /openapi.json and / needs it, and schemathesis checks that a call without it, or
    /// with a wrong one, is refused. Ten examples an operation, seeded, keep it short on a loaded
    /// machine (about 1,000 requests); no response-time check (a timing assertion).
    static func check(_ arguments: [String], more: (ServeProcess) async throws -> Void = { _ in }) async throws {
        let probe = try await ChildProcess.run(["/usr/bin/env", "python3", "-c", "import schemathesis"])
        guard probe.termination == .exited(0) else {
            print("skipped: schemathesis is not installed (scripts/bootstrap.sh installs it)")
            return
        }
        let token = "contract-check-token"
        let server = try await ServeProcess.start(["--token", token, "--player", "walker=tracks/tokyo-marunouchi-walk.gpx"])
        defer { server.command.stop() }
        let document = try await RawHTTP.get(server.base + "/openapi.json")
        #expect(document.status == 200)
        try await more(server)
        // In a folder of its own: schemathesis keeps a cache (.schemathesis/) where it runs.
        try await withScratchFolder("locsim-schemathesis") { folder in
            let outcome = try await ChildProcess.run(
                [
                    "/usr/bin/env", "python3", "-m", "schemathesis.cli", "run", server.base + "/openapi.json", "-H",
                    "Authorization: Bearer \(token)", "--checks", "all", "--max-examples", "10", "--workers", "1", "--seed", "1",
                    "--no-color",
                ] + arguments, directory: folder, timeout: .seconds(55))
            #expect(outcome.termination == .exited(0), "\(outcome.output.suffix(6_000))\(outcome.errors.suffix(2_000))")
        }
    }
}
