#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import LocationCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A running ``NoiseModel``: feed it true fixes in time order and it returns what a receiver
/// would report, or `nil` during a dropout.
///
/// Pure and seeded: the same model and the same input give bit-identical output. Providers use
/// it through their `noise` configuration; it is public so any fix stream can be degraded.
///
/// ```swift
/// var noise = NoiseProcess(model: NoiseModel(seed: 7))
/// let reported = noise.apply(to: truth)   // nil while a dropout lasts
/// ```
package struct NoiseProcess: Sendable {
    /// The model being run.
    package let model: NoiseModel
    private var random: SeededGenerator
    private var east: Double
    private var north: Double
    private var firstTime: Date?
    private var lastTime: Date?
    private var dropoutEnd: Date?

    /// Starts the process; the correlated error starts in its stationary distribution.
    package init(model: NoiseModel) {
        self.model = model
        var random = SeededGenerator(seed: model.seed)
        east = random.nextGaussian()
        north = random.nextGaussian()
        self.random = random
    }

    /// Per-axis σ in metres at `elapsed` seconds after the first fix (the warm-up ramp).
    package func sigma(atElapsed elapsed: Double) -> Double {
        guard let warmUp = model.warmUp, elapsed < warmUp.duration else { return model.sigma }
        let initial = warmUp.initialAccuracy / NoiseModel.accuracyPerSigma
        let progress = max(0, elapsed) / warmUp.duration
        return initial + (model.sigma - initial) * progress
    }

    /// The reported fix for the true fix `fix`, or `nil` when the receiver is in a dropout.
    ///
    /// Fixes without a position pass through unchanged (they still move the process's time).
    /// Times must not go backwards; a fix at or before the previous one's time reuses the
    /// current error without stepping it.
    package mutating func apply(to fix: Fix) -> Fix? {
        let start = firstTime ?? fix.time
        firstTime = start
        let dt = lastTime.map { max(0, fix.time.timeIntervalSince($0)) } ?? 0
        lastTime = max(lastTime ?? fix.time, fix.time)
        if dt > 0 {
            let phi = exp(-dt / model.correlationTime)
            let drive = (1 - phi * phi).squareRoot()
            east = phi * east + drive * random.nextGaussian()
            north = phi * north + drive * random.nextGaussian()
        }
        if let dropouts = model.dropouts {
            if let end = dropoutEnd, fix.time < end { return nil }
            // The first fix after an outage is always delivered; the next outage can start after it.
            let justRecovered = dropoutEnd != nil
            dropoutEnd = nil
            if dt > 0, !justRecovered, random.nextUnit() < 1 - exp(-dt / dropouts.meanInterval) {
                dropoutEnd = fix.time.addingTimeInterval(dropouts.duration)
                if dropouts.duration > 0 { return nil }
            }
        }
        guard let truth = fix.coordinate else { return fix }
        let sigma = sigma(atElapsed: fix.time.timeIntervalSince(start))
        var dx = sigma * east, dy = sigma * north
        if let outliers = model.outliers, random.nextUnit() < outliers.probability {
            let jump = random.nextDouble(in: outliers.distance)
            let direction = random.nextUnit() * 2 * Double.pi
            dx += jump * sin(direction)
            dy += jump * cos(direction)
        }
        var reported = fix
        let offset = (dx * dx + dy * dy).squareRoot()
        reported.coordinate = offset > 0 ? truth.destination(distance: offset, bearing: atan2(dx, dy) * 180 / .pi) : truth
        reported.horizontalAccuracy = sigma * NoiseModel.accuracyPerSigma
        return reported
    }
}
