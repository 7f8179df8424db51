import Foundation
import GPXFormat
import LocationCore
import LocationSimulation
import LocationTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Noise and accuracy model", .timeLimit(.minutes(1))) struct NoiseModelTests {
    static let truth = coordinate(35.6812, 139.7671)

    /// Feeds `count` fixes at 1 Hz (all at `truth`) through the model.
    func run(_ model: NoiseModel, count: Int) -> [(time: Double, reported: Fix)] {
        var process = NoiseProcess(model: model)
        return (0..<count).compactMap { k in
            let time = wallStart.addingTimeInterval(Double(k))
            let fix = Fix(time: time, coordinate: Self.truth, source: .synthetic)
            return process.apply(to: fix).map { (Double(k), $0) }
        }
    }

    func error(_ fix: Fix) -> Double { Self.truth.distance(to: fix.coordinate!) }

    @Test("About 68% of errors fall within the reported accuracy", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func honestAccuracy(seed: UInt64) {
        let n = 20_000
        let fixes = run(NoiseModel(seed: seed, correlationTime: 5, warmUp: nil), count: n)
        let within = fixes.filter { error($0.reported) <= $0.reported.horizontalAccuracy! }.count
        let fraction = Double(within) / Double(n)
        // The errors are correlated (Gauss–Markov, φ = e^(−1/5) = 0.82 per 1 s step), so the
        // effective sample size is at least n(1−φ)/(1+φ) ≈ 1,990. The standard error of a 68%
        // proportion is then √(0.68·0.32/1990) ≈ 0.0105; ±0.045 is 4.3 standard errors
        // (a false failure less than once in 50,000 seeds).
        #expect(abs(fraction - 0.68) < 0.045, "fraction \(fraction)")
        #expect(fixes.allSatisfy { abs($0.reported.horizontalAccuracy! - 5) < 1e-12 })
    }

    @Test("Accuracy stays honest during warm-up, over many starts")
    func honestWarmUp() {
        var within = 0, total = 0
        for seed in 0..<500 as Range<UInt64> {
            for (_, fix) in run(NoiseModel(seed: seed, correlationTime: 5), count: 30) {
                total += 1
                if error(fix) <= fix.horizontalAccuracy! { within += 1 }
            }
        }
        // 500 independent starts of 30 correlated fixes: at least 500·30·(1−φ)/(1+φ) ≈ 1,500
        // effective samples, standard error ≈ 0.012; ±0.05 is over 4 standard errors.
        let fraction = Double(within) / Double(total)
        #expect(abs(fraction - 0.68) < 0.05, "fraction \(fraction)")
    }

    @Test("Warm-up: reported accuracy falls from 50 m to 5 m over the first 30 s")
    func warmUp() {
        let fixes = run(NoiseModel(seed: 1), count: 60)
        let accuracy = fixes.map { $0.reported.horizontalAccuracy! }
        #expect(abs(accuracy[0] - 50) < 1e-9)
        #expect(abs(accuracy[15] - 27.5) < 1e-9)
        #expect(accuracy[30...].allSatisfy { abs($0 - 5) < 1e-9 })
        #expect(zip(accuracy, accuracy.dropFirst()).allSatisfy { $0 >= $1 })
    }

    @Test("The error is correlated with the stated correlation time")
    func correlation() {
        let tau = 10.0
        let fixes = run(NoiseModel(seed: 3, correlationTime: tau, warmUp: nil), count: 40_000)
        let north = fixes.map { fix -> Double in
            let d = error(fix.reported)
            return d * cos(Self.truth.bearing(to: fix.reported.coordinate!) * .pi / 180)
        }
        let mean = north.reduce(0, +) / Double(north.count)
        var c0 = 0.0, c1 = 0.0
        for k in north.indices {
            c0 += (north[k] - mean) * (north[k] - mean)
            if k > 0 { c1 += (north[k] - mean) * (north[k - 1] - mean) }
        }
        let phi = exp(-1 / tau)
        // Lag-1 autocorrelation of an AR(1) series estimates φ with standard error ≈ √((1−φ²)/n_eff);
        // with n_eff ≈ 40,000·(1−φ)/(1+φ) ≈ 1,900 that is 0.01; ±0.04 is 4 standard errors.
        #expect(abs(c1 / c0 - phi) < 0.04)
        // And the per-axis variance is σ² (σ = 5/1.5096 m): standard error of the variance ≈ σ²√(2/n_eff).
        let sigma = 5 / NoiseModel.accuracyPerSigma
        #expect(abs(c0 / Double(north.count) / (sigma * sigma) - 1) < 4 * (2.0 / 1900).squareRoot())
    }

    @Test("Outliers jump 30–150 m at the stated rate")
    func outliers() {
        let n = 20_000
        let fixes = run(
            NoiseModel(seed: 5, sigma: 0.001, warmUp: nil, outliers: .init(probability: 0.05, distance: 30...150)),
            count: n)
        let jumps = fixes.map { error($0.reported) }.filter { $0 > 1 }
        // Binomial(20000, 0.05): mean 1,000, standard deviation 30.8; ±130 is 4.2 of them.
        #expect(abs(jumps.count - 1000) < 130)
        #expect(jumps.allSatisfy { $0 > 29.9 && $0 < 150.1 })
    }

    @Test("Dropouts silence the receiver for their duration")
    func dropouts() {
        let fixes = run(NoiseModel(seed: 11, warmUp: nil, dropouts: .init(meanInterval: 120, duration: 10)), count: 7200)
        let steps = zip(fixes, fixes.dropFirst()).map { $1.time - $0.time }
        let silences = steps.filter { $0 > 1 }
        #expect(silences.allSatisfy { $0 == 11 })  // fixes at t … t+9 are missing
        // A Poisson process at 1/120 s over ~6,600 s of reception: ~55 dropouts (sd ~7.4).
        #expect(silences.count > 25 && silences.count < 85)
    }

    @Test("Noise applies to a replay too, reproducibly")
    func replayNoise() async throws {
        let clock = VirtualClock()
        func play() async throws -> [Fix] {
            let replay = try GPXReplay(
                path: track((0..<60).map(Double.init)), configuration: .init(pacing: .virtual, noise: NoiseModel(seed: 4)),
                clock: clock, now: fixedNow)
            return try await collect(replay, on: clock).map(\.fix)
        }
        let a = try await play(), b = try await play()
        #expect(a.map(bits) == b.map(bits))
        #expect(a.first?.horizontalAccuracy == 50)
        let clean = track((0..<60).map(Double.init)).segments[0]
        #expect(zip(a, clean).allSatisfy { $0.coordinate != $1.coordinate && $0.time == $1.time })
    }
}
