import Foundation
import LocationCore
import MapFeature

/// Fixes → ``MapFeature/MapViewModel`` → what the player sees: the pipeline behind
/// `locsim replay` and `locsim simulate --map`.
@MainActor
struct MapPipeline {
    let repository: any LocationRepository
    let configuration: FetchThrottle.Configuration
    let recorder: ReplayRecorder
    let progress: Progress

    /// Virtual time: each fix is handed to the model as soon as the previous one is dealt with,
    /// and fetches answer at the requesting fix's own time (zero latency), so what happens
    /// depends only on the inputs: the same inputs give a byte-identical log.
    func runVirtual(_ provider: some LocationProvider) async throws {
        let recorder = recorder
        let model = MapViewModel(
            repository: repository, configuration: configuration, clock: ContinuousClock(),
            onEvent: { recorder.record($0) })
        for try await fix in provider {
            var request = model.receive(fix)
            while let current = request {
                let result: Result<[Place], AppError>
                do {
                    result = .success(try await repository.fetchNearby(center: current.center, radius: current.radius))
                } catch {
                    result = .failure(AppError.from(error))
                }
                request = model.complete(current, with: result, at: current.time)
            }
        }
        model.stop()
        recorder.finish()
    }

    /// Real time: the model consumes the provider on the continuous clock until the provider
    /// ends or SIGINT/SIGTERM arrives; either way the summary is printed.
    ///
    /// - Throws: ``CommandFailure`` when the provider failed.
    func runRealTime(_ provider: some LocationProvider) async throws {
        let recorder = recorder, progress = progress
        let model = MapViewModel(
            repository: repository, configuration: configuration, clock: ContinuousClock(),
            onEvent: { event in
                recorder.record(event)
                progress.update(recorder: recorder, latest: event.time)
            })
        _ = try await runUntilInterrupted { await model.run(provider) }
        let finalState = model.providerState
        model.stop()
        progress.clear()
        recorder.finish()
        if case .failed(let error) = finalState {
            throw CommandFailure("the location source failed: \(error)")
        }
    }
}
