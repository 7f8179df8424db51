import LocationCore

/// A live provider's fixes, unchanged, as `replay --gpsd` passes them to the map logic: each also
/// handed to a ``FixRecording`` as it passes (`--record FILE`), and the error the provider ends
/// with kept in `failure`, whose kind the map logic (which keeps an error's text) would lose.
struct RecordedProvider<Base: LocationProvider>: LocationProvider {
    typealias Element = Fix

    let base: Base
    let recording: FixRecording?
    let failure: Locked<(any Error)?>

    func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator(), recording: recording, failure: failure) }

    struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let recording: FixRecording?
        let failure: Locked<(any Error)?>

        mutating func next() async throws -> Fix? {
            let fix: Fix?
            do {
                fix = try await base.next()
            } catch {
                failure.withLock { $0 = error }
                throw error
            }
            guard let fix else { return nil }
            try recording?.record(fix)
            return fix
        }
    }
}

@available(*, unavailable)
extension RecordedProvider.Iterator: Sendable {}
