import LocationCore
import LocationTestSupport
import MapFeature
import Testing

@Suite(.timeLimit(.minutes(1))) struct RecordingRepositoryTests {
    let here = Coordinate(uncheckedLatitude: 48.8584, longitude: 2.2945)
    let tower = Place(id: "eiffel", name: "Eiffel Tower", coordinate: Coordinate(uncheckedLatitude: 48.8584, longitude: 2.2945))

    @Test("Answers from the script in order, then the fallback; records time, centre, radius and outcome")
    func script() async throws {
        let clock = VirtualClock(autoAdvance: true)
        let repository = RecordingRepository(clock: clock, script: [
            .failure(.networkUnavailable("down"), after: .seconds(2)),
            .places([tower], after: .seconds(1)),
        ], otherwise: .places([], after: .milliseconds(250)))

        await #expect(throws: AppError.self) { try await repository.fetchNearby(center: here, radius: 5_000) }
        #expect(try await repository.fetchNearby(center: here, radius: 100) == [tower])
        #expect(try await repository.fetchNearby(center: here, radius: 100).isEmpty)
        let calls = repository.calls
        #expect(calls.map(\.time) == [.zero, .seconds(2), .seconds(3)])
        #expect(calls.map(\.radius) == [5_000, 100, 100])
        #expect(calls.map(\.latency) == [.seconds(2), .seconds(1), .milliseconds(250)])
        #expect(calls.map(\.outcome) == [.failed(.networkUnavailable("down")), .answered(count: 1), .answered(count: 0)])
        #expect(clock.now.offset == .milliseconds(3_250))
    }

    @Test("An unscripted call fails loudly, naming the call")
    func exhausted() async {
        let repository = RecordingRepository(clock: VirtualClock())
        do {
            _ = try await repository.fetchNearby(center: here, radius: 10)
            Issue.record("an unscripted call succeeded")
        } catch let error as AppError {
            #expect(error.parameter == "script")
            #expect(error.message.contains("call 1 (calls[0]: centre"), "\(error.message)")
            #expect(error.message.contains("the script has 0 answers and no fallback"), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("Past the script, every failing call says the script's own length (given and enqueued), not its own index")
    func exhaustedLength() async throws {
        let repository = RecordingRepository(clock: VirtualClock(), script: [.places([]), .places([])])
        repository.enqueue(.places([]))
        for _ in 0..<3 { _ = try await repository.fetchNearby(center: here, radius: 10) }
        for call in 4...6 {
            await #expect {
                _ = try await repository.fetchNearby(center: here, radius: 10)
            } throws: { error in
                let message = (error as? AppError)?.message ?? ""
                return message.contains("call \(call) (calls[\(call - 1)]: centre") && message.contains("the script has 3 answers and no fallback")
            }
        }
    }

    @Test("A caller cancelled during the latency gets CancellationError and the call is recorded as cancelled")
    func cancellation() async {
        let clock = VirtualClock()
        let repository = RecordingRepository(clock: clock, places: [tower], latency: .seconds(5))
        let call = Task { try await repository.fetchNearby(center: here, radius: 10) }
        await clock.waitForSleepers(1)
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(repository.calls.map(\.outcome) == [.cancelled])
    }

    @Test("forward(to:) answers from another repository with a latency")
    func forward() async throws {
        let clock = VirtualClock(autoAdvance: true)
        let index = InMemoryNearbyIndex(places: [tower])
        let repository = RecordingRepository(clock: clock, otherwise: .forward(to: index, after: .milliseconds(80)))
        #expect(try await repository.fetchNearby(center: here, radius: 10) == [tower])
        #expect(clock.now.offset == .milliseconds(80))
    }

    @Test("respond(center:radius:at:) answers without waiting and records the given time")
    func respond() async throws {
        let repository = RecordingRepository(clock: VirtualClock(), places: [tower], latency: .seconds(3))
        let answer = await repository.respond(center: here, radius: 10, at: .seconds(42))
        #expect(answer.latency == .seconds(3))
        let places = try answer.result.get()
        #expect(places == [tower])
        #expect(repository.calls.map(\.time) == [.seconds(42)])
    }
}
