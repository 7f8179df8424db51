import LocationCore

/// A provider's fixes, unchanged, each also handed to a ``FixRecording`` as it passes
/// (`replay --gpsd … --record FILE`).
struct RecordedProvider<Base: LocationProvider>: LocationProvider {
    typealias Element = Fix

    let base: Base
    let recording: FixRecording

    func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator(), recording: recording) }

    struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let recording: FixRecording

        mutating func next() async throws -> Fix? {
            guard let fix = try await base.next() else { return nil }
            try recording.record(fix)
            return fix
        }
    }
}

@available(*, unavailable)
extension RecordedProvider.Iterator: Sendable {}
