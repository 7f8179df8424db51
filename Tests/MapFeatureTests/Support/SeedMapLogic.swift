import Foundation
import LocationCore
import LocationTestSupport
import MapFeature

/// The seed's `MapViewModel` (../shared/seeds/000_ed93f8dd6295bf40.txt, "MapViewModel"),
/// transcribed line for line into a discrete-event simulation in virtual time, so the defect
/// tests can show the same scenario failing on the game's original logic.
///
/// What is kept from the seed, exactly:
/// - `didUpdateLocations`: `guard let current = locations.last?.coordinate` (a report without a
///   coordinate is dropped, nothing else is checked), `userLocation = current`, then
///   `if shouldFetchLocations(current) { Task { await fetchNearbyLocations(current) } }`:
///   an unstructured task per fetch, any number at once, never cancelled.
/// - `shouldFetchLocations`: `true` when `lastFetchLocation == nil`; otherwise
///   `distance > 100 || Date().timeIntervalSince(lastFetchTime) > 30` (`Date()` is the current
///   virtual time).
/// - `fetchNearbyLocations`: `nearbyLocations = .loading` first; on success `.loaded(result)`,
///   `lastFetchLocation = coordinate`, `lastFetchTime = Date()` (the answer's time); on failure
///   `.error(.from(error))` and nothing else.
struct SeedMapLogic {
    /// The seed's `Loadable<T>`: no value while loading or after an error.
    enum SeedLoadable: Equatable {
        case idle, loading
        case loaded([Place])
        case error(AppError)

        var value: [Place]? { if case .loaded(let places) = self { places } else { nil } }
    }

    struct Request: Equatable {
        var id: Int
        var center: Coordinate
        var time: Date
    }

    /// One scripted answer: latency and result, chosen per call.
    typealias Server = (_ callIndex: Int, _ center: Coordinate) -> (latency: Duration, result: Result<[Place], AppError>)

    // The seed's state.
    private(set) var userLocation: Coordinate?
    private(set) var nearbyLocations: SeedLoadable = .idle
    private(set) var lastFetchLocation: Coordinate?
    private(set) var lastFetchTime: Date?

    // What the simulation observed.
    private(set) var requests: [Request] = []
    private(set) var maximumInFlight = 0
    /// Request ids in the order their answers were applied.
    private(set) var appliedAnswers: [Int] = []
    /// `nearbyLocations` after every change, with the time.
    private(set) var history: [(time: Date, state: SeedLoadable)] = []

    /// Runs `fixes`; `stopAt` is when the view goes away (the seed has no way to stop, so its
    /// tasks carry on); answers are processed until none remain.
    static func run(fixes: [Fix], server: Server, stopAt: Date? = nil) -> (logic: SeedMapLogic, changesAfterStop: Int) {
        var logic = SeedMapLogic()
        var pending: [(time: Date, sequence: Int, request: Request, result: Result<[Place], AppError>)] = []
        var sequence = 0
        var fixIndex = 0
        while fixIndex < fixes.count || !pending.isEmpty {
            let nextAnswer = pending.indices.min { (pending[$0].time, pending[$0].sequence) < (pending[$1].time, pending[$1].sequence) }
            // Answers first at equal times, as in MapReplay.
            if let index = nextAnswer, fixIndex >= fixes.count || pending[index].time <= fixes[fixIndex].time {
                let answer = pending.remove(at: index)
                logic.answer(answer.request, answer.result, at: answer.time)
                continue
            }
            let fix = fixes[fixIndex]
            fixIndex += 1
            if let request = logic.didUpdate(fix) {
                let (latency, result) = server(request.id - 1, request.center)
                pending.append((VirtualTime.date(request.time, plus: latency), sequence, request, result))
                sequence += 1
            }
            logic.maximumInFlight = max(logic.maximumInFlight, pending.count)
        }
        let changesAfterStop = stopAt.map { stop in logic.history.count { $0.time > stop } } ?? 0
        return (logic, changesAfterStop)
    }

    /// `locationManager(_:didUpdateLocations:)`.
    mutating func didUpdate(_ fix: Fix) -> Request? {
        guard let current = fix.coordinate else { return nil }
        userLocation = current
        guard shouldFetchLocations(current, now: fix.time) else { return nil }
        // `fetchNearbyLocations` runs up to its first `await` at once.
        set(.loading, at: fix.time)
        let request = Request(id: requests.count + 1, center: current, time: fix.time)
        requests.append(request)
        return request
    }

    /// `shouldFetchLocations(_:)`.
    func shouldFetchLocations(_ newLocation: Coordinate, now: Date) -> Bool {
        guard let last = lastFetchLocation else { return true }
        let distanceCheck = newLocation.distance(to: last) > 100
        let timeCheck = lastFetchTime.map { now.timeIntervalSince($0) > 30 } ?? true
        return distanceCheck || timeCheck
    }

    /// The rest of `fetchNearbyLocations(_:)`, when the answer arrives.
    mutating func answer(_ request: Request, _ result: Result<[Place], AppError>, at time: Date) {
        switch result {
        case .success(let places):
            set(.loaded(places), at: time)
            lastFetchLocation = request.center
            lastFetchTime = time
            appliedAnswers.append(request.id)
        case .failure(let error):
            set(.error(error), at: time)
        }
    }

    private mutating func set(_ state: SeedLoadable, at time: Date) {
        nearbyLocations = state
        history.append((time, state))
    }
}
