#if Server
@testable import LocSimCommand
import Testing

/// `serve --player NAME=SPEC`, parsed in-process (FeedCommandTests runs the players).
@Suite struct PlayerSpecTests {
    @Test("A player without --seed moves by the FNV-1a 64 of its name (LocationCore's), the same in every release")
    func seedFromName() throws {
        #expect(PlayerSpec.seed(of: "alice") == 0x508b_2abb_65a0_3907)
        #expect(PlayerSpec.seed(of: "") == 0xcbf2_9ce4_8422_2325)
        #expect(try PlayerSpec("bob=line:35.68,139.76:35.69,139.75", defaultSpeed: 1).seed == 0x004d_4419_134a_0a54)
        #expect(try PlayerSpec("bob=line:35.68,139.76:35.69,139.75 --seed 7", defaultSpeed: 1).seed == 7)
    }
}
#endif
