import LocationCore
import Swarm
import Testing
import LocSimTestHelpers

@Suite("SwarmMix", .ownThread)
struct SwarmMixTests {
    @Test("parses kinds and shares, scaling them to sum to 1")
    func parses() throws {
        let mix = try SwarmMix(parsing: "walk=7,cycle=2,drive=1")
        #expect(mix.shares.map(\.mover.name) == ["walk", "cycle", "drive"])
        let sum = mix.shares.reduce(0) { $0 + $1.share }
        #expect(abs(sum - 1) < 1e-12)
        #expect(mix.shares[0].share == 7.0 / 10.0)
    }

    @Test("Shares written to sum to 1 are kept as written (0.7, not 0.7000000000000001)")
    func sharesAsWritten() throws {
        let mix = try SwarmMix(parsing: "walk=0.7,cycle=0.2,drive=0.1")
        let shares = mix.shares.map(\.share)
        #expect(shares == [0.7, 0.2, 0.1])
        let four = try SwarmMix(parsing: "walk=0.5,run=0.2,cycle=0.2,drive=0.1")
        #expect(four.shares.map(\.share) == [0.5, 0.2, 0.2, 0.1])
    }

    @Test("refuses bad text, naming the part", arguments: ["walk", "walk=x", "fly=1", "walk=1,walk=2", "walk=-1", "walk=0", ""])
    func refuses(_ text: String) {
        #expect(throws: ConfigurationError.self) { try SwarmMix(parsing: text) }
    }
}
