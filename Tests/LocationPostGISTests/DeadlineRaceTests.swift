@testable import LocationPostGIS
import Testing

/// The race a read's deadline is decided by: the caller is answered by the first of the read, the
/// deadline and its own cancellation, and never waits for the others, which is what keeps a read
/// whose connection wait ignores cancellation from outliving its deadline.
@Suite(.timeLimit(.minutes(1))) struct DeadlineRaceTests {
    @Test("The first end wins, whether it comes before or after the caller waits; later ones are dropped")
    func firstWins() async {
        let early = DeadlineRace<Int>()
        early.finish(.deadline)
        early.finish(.read(.success(1)))
        guard case .deadline = await early.wait() else {
            Issue.record("the deadline came first")
            return
        }
        let late = DeadlineRace<Int>()
        async let answer = late.wait()
        late.finish(.read(.success(7)))
        late.finish(.cancelled)
        guard case .read(.success(7)) = await answer else {
            Issue.record("the read came first")
            return
        }
    }

    @Test("A read that never ends does not hold the caller: the deadline answers it")
    func neverEndingRead() async {
        let race = DeadlineRace<Int>()
        let (never, _) = AsyncStream.makeStream(of: Int.self)
        // A read that ignores cancellation and never finishes (as a pool's lost wait would).
        let read = Task {
            for await _ in never {}
            race.finish(.read(.success(0)))
        }
        race.finish(.deadline)
        guard case .deadline = await race.wait() else {
            Issue.record("the deadline answers")
            return
        }
        read.cancel()
    }
}
