import Foundation
import LocSimTestHelpers
import Testing

/// What the repository promises about its own documentation: the README links only files of the
/// repository (a fresh clone, offline, has every page it names), and every library product has a
/// DocC catalog with an overview and a getting-started article (scripts/docs.sh builds them and
/// fails on unresolved links; this checks that none is missing).
@Suite(.timeLimit(.minutes(1)), .ownThread) struct RepositoryDocsTests {
    /// `text` without fenced code blocks and inline code spans, which are shown, not linked.
    static func prose(_ text: String) -> String {
        var kept: [Substring] = []
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if !inFence { kept.append(line) }
        }
        return kept.joined(separator: "\n").replacing(/`[^`\n]*`/, with: "")
    }

    /// The targets of `[text](target)` and `![alt](target)` links, without a `#fragment`.
    static func linkTargets(_ prose: String) -> [String] {
        prose.matches(of: /\]\(([^)\s]+)\)/).map { String($0.output.1) }
    }

    @Test("README links only files inside the repository, each one present")
    func readmeLinksStayInside() throws {
        let text = Self.prose(try String(contentsOfFile: PackagePaths.path("README.md"), encoding: .utf8))
        let targets = Self.linkTargets(text)
        #expect(!targets.isEmpty, "found no links at all: the link pattern is wrong")
        for target in targets {
            #expect(!target.contains("://") && !target.hasPrefix("mailto:"), "README links outside the repository: \(target)")
            let file = String(target.prefix { $0 != "#" })
            guard !file.isEmpty else { continue }  // an anchor in the README itself
            #expect(!file.hasPrefix("/") && !file.hasPrefix(".."), "README links outside the repository: \(target)")
            #expect(FileManager.default.fileExists(atPath: PackagePaths.path(file)), "README links a missing file: \(target)")
        }
        // A bare address in prose becomes a link on most renderers.
        for address in text.matches(of: /(https?:\/\/|www\.)[^\s)>]+/) {
            Issue.record("README has an address outside code: \(String(address.output.0))")
        }
    }

    @Test("The link checks catch an outside link, a bare address and a missing file")
    func linkChecksCatchProblems() {
        let text = Self.prose("""
            See [the site](https://example.com/x) or https://example.com, [here](docs/none.md).
            `https://in.code` is shown, not linked.
            ```
            [in a block](https://fenced.example)
            ```
            """)
        #expect(Self.linkTargets(text) == ["https://example.com/x", "docs/none.md"])
        #expect(text.matches(of: /(https?:\/\/|www\.)[^\s)>]+/).count == 2)
    }

    @Test("Every library product has a DocC catalog with an overview and a getting-started article")
    func everyLibraryHasACatalog() throws {
        let manifest = try String(contentsOfFile: PackagePaths.path("Package.swift"), encoding: .utf8)
        // The products every build has (the fuzz-only products are appended in a loop, not listed).
        let libraries = manifest.matches(of: /(?m)^\s*\.library\(name: "(\w+)"/).map { String($0.output.1) }
        #expect(libraries.count >= 5, "found \(libraries.count) .library products: the pattern is wrong")
        for module in libraries {
            let catalog = "Sources/\(module)/\(module).docc"
            let overview = try String(contentsOfFile: PackagePaths.path("\(catalog)/\(module).md"), encoding: .utf8)
            #expect(overview.hasPrefix("# ``\(module)``"), "\(catalog)/\(module).md is not the module's landing page")
            #expect(overview.contains("<doc:GettingStarted>"), "\(catalog)/\(module).md does not list its getting-started article")
            #expect(FileManager.default.fileExists(atPath: PackagePaths.path("\(catalog)/GettingStarted.md")))
        }
    }
}
