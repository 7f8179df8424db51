#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Geodesics on an ellipsoid of revolution, after C. F. F. Karney, "Algorithms for geodesics",
// J. Geodesy 87, 43–55 (2013), https://doi.org/10.1007/s00190-012-0578-z. The method:
//
// * The geodesic is mapped onto an auxiliary sphere (reduced latitude β, arc length σ, spherical
//   longitude ω). Distance and longitude are integrals along σ whose integrands are expanded as
//   Fourier series with coefficients given to sixth order in ε (a small parameter of the
//   geodesic, 0 ≤ ε < 0.0017 on WGS-84) and in the third flattening n.
// * The direct problem is then closed-form: invert the distance series, step along the sphere,
//   evaluate the longitude series.
// * The inverse problem becomes one equation in the initial azimuth α₁: the longitude reached
//   at the target's latitude must equal the target's longitude. It is solved with Newton's
//   method (the derivative is the reduced length), started from a spherical estimate or, for
//   nearly antipodal points, from the solution of the astroid equation. Every Newton step keeps
//   a bracket on α₁; a step that would leave it is replaced by bisection, and the iteration
//   count is capped, so the solver always ends.
//
// Angles are carried as (sine, cosine) pairs wherever possible: that keeps full relative
// precision near the poles, the equator and the antipode, where a bare angle would not.

/// The solution of the inverse geodesic problem: the shortest path between two points.
public struct GeodesicSolution: Sendable, Hashable {
    /// Length of the geodesic in metres, ≥ 0.
    public var distance: Double
    /// Azimuth at the start, degrees clockwise from north, −180…180.
    public var initialAzimuth: Double
    /// Azimuth at the end (forward direction), degrees clockwise from north, −180…180.
    public var finalAzimuth: Double
}

/// The solution of the direct geodesic problem: where a geodesic of given start, azimuth and
/// length ends.
public struct GeodesicDestination: Sendable, Hashable {
    /// The end point.
    public var coordinate: Coordinate
    /// Azimuth at the end point (forward direction), degrees clockwise from north, −180…180.
    public var finalAzimuth: Double
}

/// Geodesics (shortest paths) on an ellipsoid of revolution, WGS-84 by default.
///
/// Both geodesic problems are solved to round-off accuracy with Karney's method (2013): series in
/// the third flattening to sixth order, Newton's method on the initial azimuth for the inverse
/// problem, and dedicated treatment of coincident points, meridians, the equator and nearly
/// antipodal points.
///
/// Accuracy on WGS-84, measured by `GeodesicTests` against GeographicLib 2.1 (Python
/// `geographiclib`) on the 3,064 inverse and 1,089 direct cases in
/// `Tests/LocationCoreTests/Fixtures/` (see `docs/reference/geodesy.md`):
///
/// - Pairs up to 1,000 km apart: distance within 2.5 nm of GeographicLib; azimuths within
///   10⁻¹¹° for lines of 1 km or more, and within 1 nm of sideways miss for shorter lines.
/// - Any pair, including nearly antipodal ones, the poles, ±180° and coincident points:
///   distance within 4 nm (one unit in the last place of 2×10⁷ m), azimuths within 10⁻¹¹°.
///   GeographicLib is itself within 15 nm of the exact geodesic (Karney 2013), so these
///   results are within about 20 nm of the truth everywhere.
/// - Direct problem: end point within 1 nm, final azimuth within 10⁻¹³°.
/// - Every result is finite. The inverse solver stops after at most 83 steps (Newton's method,
///   falling back to bisection inside a bracket); in practice it takes 0 to 5.
///
/// For exactly antipodal points, and for points on the equator more than (1 − f)·180° apart,
/// several shortest geodesics exist: the distance is unique, the azimuths are one valid choice
/// (the same one GeographicLib makes).
///
/// ```swift
/// let paris = try Coordinate(latitude: 48.8566, longitude: 2.3522)
/// let tokyo = try Coordinate(latitude: 35.6812, longitude: 139.7671)
/// let line = Geodesic.wgs84.inverse(from: paris, to: tokyo)
/// line.distance        // 9_739_528.71 m
/// line.initialAzimuth  // 33.34°
/// Geodesic.wgs84.direct(from: paris, azimuth: line.initialAzimuth, distance: line.distance)
/// // tokyo, to within a few nanometres
/// ```
///
/// For hot paths where 0.5% is good enough use the spherical ``Coordinate/distance(to:)``
/// (10 to 25 times faster).
public struct Geodesic: Sendable {
    /// Equatorial radius (semi-major axis) in metres.
    public let equatorialRadius: Double
    /// Flattening f = (a − b) / a; positive for an oblate ellipsoid such as the Earth.
    public let flattening: Double

    // Derived constants.
    let polarRadius: Double  // b = a (1 − f)
    let oneMinusF: Double  // 1 − f
    let secondEccentricitySquared: Double  // e′² = e² / (1 − e²)
    let thirdFlattening: Double  // n = f / (2 − f)
    // Below this σ₁₂ the auxiliary-sphere estimate with the mid-latitude scale is already exact
    // to round-off, so no iteration is needed.
    let shortLineArc: Double
    // A₃(ε) = Σ a3[j] εʲ and the longitude series C₃ₗ(ε), with their n-dependence folded in.
    let a3: Polynomial5
    let c3: LongitudeSeriesTable

    /// Creates an ellipsoid.
    ///
    /// - Parameters:
    ///   - equatorialRadius: Semi-major axis in metres; finite and positive.
    ///   - flattening: f = (a − b) / a, −1/50…1/50 (negative is prolate). The series are
    ///     sixth order in f, so beyond that range they would lose accuracy.
    /// - Precondition: both values are in range (programmer error otherwise).
    public init(equatorialRadius: Double, flattening: Double) {
        precondition(
            equatorialRadius.isFinite && equatorialRadius > 0,
            "Geodesic: equatorialRadius \(equatorialRadius) must be finite and positive")
        precondition(
            flattening.isFinite && abs(flattening) <= 0.02,
            "Geodesic: flattening \(flattening) must lie in -1/50...1/50")
        self.equatorialRadius = equatorialRadius
        self.flattening = flattening
        let f = flattening
        oneMinusF = 1 - f
        polarRadius = equatorialRadius * (1 - f)
        let e2 = f * (2 - f)
        secondEccentricitySquared = e2 / ((1 - f) * (1 - f))
        let n = f / (2 - f)
        thirdFlattening = n
        // The relative error of the short-line estimate is about σ₁₂² |f| / 2; set it to a tenth
        // of ε_machine (and keep it finite for a sphere).
        shortLineArc = 0.1 * Tolerance.sqrtEpsilon / (max(0.001, abs(f)) * min(1, 1 - f / 2) / 2).squareRoot()
        a3 = Polynomial5(
            1,
            -(1 - n) / 2,
            -(2 + n - 3 * n * n) / 8,
            -(1 + 3 * n + n * n) / 16,
            -(3 + 2 * n) / 64,
            -3.0 / 128)
        c3 = LongitudeSeriesTable(n: n)
    }

    /// The WGS-84 ellipsoid: a = 6,378,137 m, f = 1/298.257223563.
    public static let wgs84 = Geodesic(equatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

    /// Solves the inverse problem: the shortest geodesic from `start` to `end`.
    ///
    /// Always terminates with finite values. When the points coincide the distance is 0 and the
    /// azimuths follow GeographicLib's convention (the meridian through the points). For exactly
    /// antipodal points, and for points on the equator farther apart than (1 − f)·180° of
    /// longitude, several shortest geodesics exist; one of them is returned.
    ///
    /// - Parameters:
    ///   - start: The first point.
    ///   - end: The second point.
    /// - Returns: Distance in metres and the azimuths at both ends in degrees, −180…180.
    public func inverse(from start: Coordinate, to end: Coordinate) -> GeodesicSolution {
        let result = solveInverse(
            latitude1: start.latitude, longitude1: start.longitude,
            latitude2: end.latitude, longitude2: end.longitude)
        return GeodesicSolution(
            distance: result.distance, initialAzimuth: result.initialAzimuth, finalAzimuth: result.finalAzimuth)
    }

    /// Solves the direct problem: the point `distance` metres from `start` along the geodesic
    /// that leaves it at `azimuth`.
    ///
    /// - Parameters:
    ///   - start: Where the geodesic begins.
    ///   - azimuth: Initial azimuth in degrees clockwise from north; any finite value.
    ///   - distance: Metres along the geodesic; any finite value (negative goes backwards,
    ///     and lengths beyond half the meridian wrap around the ellipsoid).
    /// - Returns: The end point and the forward azimuth there.
    /// - Precondition: `azimuth` and `distance` are finite.
    public func destination(from start: Coordinate, azimuth: Double, distance: Double) -> GeodesicDestination {
        precondition(azimuth.isFinite, "Geodesic.direct: azimuth \(azimuth) is not finite")
        precondition(distance.isFinite, "Geodesic.direct: distance \(distance) is not finite")
        let (latitude, longitude, finalAzimuth) = solveDirect(
            latitude1: start.latitude, longitude1: start.longitude, azimuth1: azimuth, distance: distance)
        return GeodesicDestination(
            coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude), finalAzimuth: finalAzimuth)
    }

    /// Solves the direct problem and returns only the end point; see
    /// ``destination(from:azimuth:distance:)``.
    ///
    /// - Parameters:
    ///   - start: Where the geodesic begins.
    ///   - azimuth: Initial azimuth in degrees clockwise from north; any finite value.
    ///   - distance: Metres along the geodesic; any finite value (negative goes backwards).
    /// - Precondition: `azimuth` and `distance` are finite.
    public func direct(from start: Coordinate, azimuth: Double, distance: Double) -> Coordinate {
        destination(from: start, azimuth: azimuth, distance: distance).coordinate
    }
}

extension Coordinate {
    /// Length in metres of the shortest WGS-84 geodesic to `other`.
    ///
    /// Accurate to a few nanometres for any pair, nearly antipodal ones included (see
    /// ``Geodesic``); 10 to 25 times slower than the spherical ``distance(to:)``, which is off
    /// by up to 0.5%.
    public func geodesicDistance(to other: Coordinate) -> Double {
        Geodesic.wgs84.inverse(from: self, to: other).distance
    }
}

// MARK: - Inverse problem

/// How the inverse solver reached its answer (for tests and diagnostics).
enum InverseMethod: Sendable, Hashable {
    /// Along a meridian (includes coincident points and lines through a pole).
    case meridian
    /// Along the equator.
    case equator
    /// Short line: the auxiliary-sphere estimate is already exact.
    case shortLine
    /// Newton's method (with bisection fallback) on the initial azimuth.
    case iterated
}

/// The inverse solution with the solver's bookkeeping.
struct InverseResult: Sendable {
    var distance: Double
    var initialAzimuth: Double
    var finalAzimuth: Double
    var method: InverseMethod
    /// Newton or bisection steps taken (0 unless ``method`` is ``InverseMethod/iterated``).
    var iterations: Int
    /// Steps that fell back to bisection.
    var bisections: Int
    /// Whether Newton's method started from the astroid solution (nearly antipodal points).
    var startedFromAstroid: Bool
}

/// Convergence tolerances shared by both problems.
enum Tolerance {
    static let epsilon = Double.ulpOfOne
    static let sqrtEpsilon = Double.ulpOfOne.squareRoot()
    /// √(least normal): a positive value whose square is still normal.
    static let tiny = Double.leastNormalMagnitude.squareRoot()
    /// Newton's method is tried for this many steps, then only bisection.
    static let newtonSteps = 20
    /// Absolute cap on iterations: enough bisections to exhaust a double's mantissa after the
    /// Newton steps, plus slack.
    static let maximumSteps = newtonSteps + Double.significandBitCount + 1 + 10
}

extension Geodesic {
    /// The inverse problem on raw degrees (latitudes in −90…90, longitudes any finite value).
    ///
    /// - Parameter newtonStepLimit: Steps of Newton's method tried before bisection takes over;
    ///   tests set 0 to prove the bisection fallback converges on its own.
    func solveInverse(
        latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double,
        newtonStepLimit: Int = Tolerance.newtonSteps
    ) -> InverseResult {
        let f = flattening
        let b = polarRadius

        // Longitude difference, reduced to −180…180 without losing the rounding error of the
        // subtraction, then made non-negative (east-going) by a reflection.
        var (lon12, lon12Error) = angleDifference(from: longitude1, to: longitude2)
        var lonSign = Double(signOf: lon12, magnitudeOf: 1)
        lon12 *= lonSign
        lon12Error *= lonSign
        let lam12 = lon12 * degreesToRadians
        let (slam12, clam12) = sinCosDegrees(lon12, plus: lon12Error)
        let lon12Supplement = (180 - lon12) - lon12Error

        // Make point 1 the one farther from the equator, and put it in the southern hemisphere.
        var lat1 = roundedAngle(latitude1)
        var lat2 = roundedAngle(latitude2)
        let swapped = abs(lat1) < abs(lat2)
        if swapped {
            lonSign = -lonSign
            swap(&lat1, &lat2)
        }
        let latSign = Double(signOf: -lat1, magnitudeOf: 1)
        lat1 *= latSign
        lat2 *= latSign

        // Reduced latitudes β on the auxiliary sphere: tan β = (1 − f) tan φ.
        var (sbet1, cbet1) = sinCosDegrees(lat1)
        (sbet1, cbet1) = normalized(sbet1 * oneMinusF, cbet1)
        cbet1 = max(Tolerance.tiny, cbet1)
        var (sbet2, cbet2) = sinCosDegrees(lat2)
        (sbet2, cbet2) = normalized(sbet2 * oneMinusF, cbet2)
        cbet2 = max(Tolerance.tiny, cbet2)
        // |β₂| = |β₁| must hold exactly when the latitudes match, or the symmetric cases below
        // would see a spurious difference.
        if cbet1 < -sbet1 {
            if cbet2 == cbet1 { sbet2 = Double(signOf: sbet2, magnitudeOf: -sbet1) }
        } else if abs(sbet2) == -sbet1 {
            cbet2 = cbet1
        }
        let ep2 = secondEccentricitySquared
        let dn1 = (1 + ep2 * sbet1 * sbet1).squareRoot()
        let dn2 = (1 + ep2 * sbet2 * sbet2).squareRoot()

        var salp1 = 0.0, calp1 = 0.0, salp2 = 0.0, calp2 = 0.0
        var s12 = 0.0
        var method = InverseMethod.meridian
        var iterations = 0
        var bisections = 0
        var startedFromAstroid = false

        // 1. Along a meridian (also: coincident points, and a start at the pole).
        var meridian = lat1 == -90 || slam12 == 0
        if meridian {
            calp1 = clam12
            salp1 = slam12
            calp2 = 1
            salp2 = 0
            let ssig1 = sbet1, csig1 = calp1 * cbet1
            let ssig2 = sbet2, csig2 = calp2 * cbet2
            var sig12 = atan2(max(0, csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
            let series = lengthSeries(epsilon: thirdFlattening)
            var (s12b, m12b) = series.lengths(
                sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1, ssig2: ssig2, csig2: csig2, dn2: dn2)
            // A meridian is the shortest path unless its reduced length turns negative, which
            // can only happen on a prolate ellipsoid for points near opposite poles.
            if sig12 < Tolerance.sqrtEpsilon || m12b >= 0 {
                if sig12 < 3 * Tolerance.tiny || (sig12 < Tolerance.epsilon && (s12b < 0 || m12b < 0)) {
                    sig12 = 0
                    s12b = 0
                    m12b = 0
                }
                s12 = s12b * b
            } else {
                meridian = false
            }
        }

        if !meridian && sbet1 == 0 && (f <= 0 || lon12Supplement >= f * 180) {
            // 2. Along the equator: valid while the longitude difference is below (1 − f)·180°;
            // beyond that the shortest path leaves the equator.
            method = .equator
            calp1 = 0
            calp2 = 0
            salp1 = 1
            salp2 = 1
            s12 = equatorialRadius * lam12
        } else if !meridian {
            let start = inverseStart(
                sbet1: sbet1, cbet1: cbet1, sbet2: sbet2, cbet2: cbet2, lam12: lam12, slam12: slam12, clam12: clam12)
            salp1 = start.salp1
            calp1 = start.calp1
            startedFromAstroid = start.usedAstroid
            if let sig12 = start.shortLineArc {
                // 3. Short line: the estimate on the auxiliary sphere is exact to round-off.
                method = .shortLine
                salp2 = start.salp2
                calp2 = start.calp2
                s12 = sig12 * b * start.meanScale
            } else {
                // 4. Newton's method on α₁, keeping α₁ bracketed in [α₁a, α₁b] so a bad step can
                // be replaced by bisection. The bracket starts as the full range (0°, 180°).
                method = .iterated
                var salp1a = Tolerance.tiny, calp1a = 1.0
                var salp1b = Tolerance.tiny, calp1b = -1.0
                var nearlyConverged = false
                var bracketExhausted = false
                var state = LongitudeState()
                var step = 0
                while true {
                    state = longitudeMismatch(
                        sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                        salp1: salp1, calp1: calp1, slam12: slam12, clam12: clam12,
                        wantDerivative: step < newtonStepLimit)
                    let v = state.mismatch
                    // `!(|v| >= tol)` also stops on NaN, which cannot arise from valid input but
                    // must never loop.
                    if bracketExhausted || !(abs(v) >= (nearlyConverged ? 8 : 1) * Tolerance.epsilon)
                        || step == Tolerance.maximumSteps
                    {
                        break
                    }
                    // Tighten the bracket (after the Newton phase, unconditionally).
                    if v > 0 && (step > newtonStepLimit || calp1 / salp1 > calp1b / salp1b) {
                        salp1b = salp1
                        calp1b = calp1
                    } else if v < 0 && (step > newtonStepLimit || calp1 / salp1 < calp1a / salp1a) {
                        salp1a = salp1
                        calp1a = calp1
                    }
                    step += 1
                    if step < newtonStepLimit && state.derivative > 0 {
                        let dalp1 = -v / state.derivative
                        if abs(dalp1) < .pi {
                            let sd = sin(dalp1), cd = cos(dalp1)
                            let nsalp1 = salp1 * cd + calp1 * sd
                            if nsalp1 > 0 {
                                (salp1, calp1) = normalized(nsalp1, calp1 * cd - salp1 * sd)
                                // Near convergence round-off can make |v| stall slightly above
                                // ε; accept a little more then.
                                nearlyConverged = abs(v) <= 16 * Tolerance.epsilon
                                continue
                            }
                        }
                    }
                    // Newton failed (no derivative, too big a step, or out of (0°, 180°)): bisect.
                    bisections += 1
                    (salp1, calp1) = normalized((salp1a + salp1b) / 2, (calp1a + calp1b) / 2)
                    nearlyConverged = false
                    // Stop when the midpoint no longer moves away from an end in either
                    // component (relative, so that α₁ near 90° or near 0°/180° is still resolved
                    // to the last bit of its cosine or sine).
                    bracketExhausted =
                        isStalled(salp1, calp1, salp1a, calp1a) || isStalled(salp1, calp1, salp1b, calp1b)
                }
                iterations = step
                salp2 = state.salp2
                calp2 = state.calp2
                let series = lengthSeries(epsilon: state.epsilon)
                s12 = b * series.distance(sig12: state.sig12, ssig1: state.ssig1, csig1: state.csig1,
                                          ssig2: state.ssig2, csig2: state.csig2)
            }
        }

        // Undo the reflections and the swap.
        if swapped {
            swap(&salp1, &salp2)
            swap(&calp1, &calp2)
        }
        let swapSign = swapped ? -1.0 : 1.0
        salp1 *= swapSign * lonSign
        calp1 *= swapSign * latSign
        salp2 *= swapSign * lonSign
        calp2 *= swapSign * latSign
        return InverseResult(
            distance: 0 + s12,  // turns −0 into 0
            initialAzimuth: atan2Degrees(salp1, calp1),
            finalAzimuth: atan2Degrees(salp2, calp2),
            method: method, iterations: iterations, bisections: bisections,
            startedFromAstroid: startedFromAstroid)
    }

    /// Starting azimuth for Newton's method, and the full answer for short lines.
    struct InverseStart {
        var salp1: Double
        var calp1: Double
        /// σ₁₂ when the line is short enough for the auxiliary-sphere answer to be final.
        var shortLineArc: Double?
        var salp2 = Double.nan
        var calp2 = Double.nan
        /// √(1 + e′² sin²β_mid): the distance scale of the auxiliary sphere at mid-latitude.
        var meanScale = Double.nan
        /// Whether the guess came from the astroid (nearly antipodal points).
        var usedAstroid = false
    }

    /// First guess at α₁ (Karney 2013, §5): solve on a sphere, using the mid-latitude scale for
    /// short lines; for nearly antipodal points use the astroid approximation instead, because
    /// the spherical guess can lie outside Newton's basin of convergence there.
    func inverseStart(
        sbet1: Double, cbet1: Double, sbet2: Double, cbet2: Double, lam12: Double, slam12: Double, clam12: Double
    ) -> InverseStart {
        let f = flattening
        let n = thirdFlattening
        let ep2 = secondEccentricitySquared
        let sbet12 = sbet2 * cbet1 - cbet2 * sbet1  // sin(β₂ − β₁)
        let cbet12 = cbet2 * cbet1 + sbet2 * sbet1  // cos(β₂ − β₁)
        let sbet12a = sbet2 * cbet1 + cbet2 * sbet1  // sin(β₂ + β₁)

        let isShort = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5
        var somg12: Double, comg12: Double
        var meanScale = Double.nan
        if isShort {
            // sin²β at the mid-latitude, without computing β.
            var sbetm2 = (sbet1 + sbet2) * (sbet1 + sbet2)
            sbetm2 /= sbetm2 + (cbet1 + cbet2) * (cbet1 + cbet2)
            meanScale = (1 + ep2 * sbetm2).squareRoot()
            let omg12 = lam12 / (oneMinusF * meanScale)
            somg12 = sin(omg12)
            comg12 = cos(omg12)
        } else {
            somg12 = slam12
            comg12 = clam12
        }

        // Great-circle azimuth on the auxiliary sphere, in forms that avoid cancellation.
        var salp1 = cbet2 * somg12
        var calp1 =
            comg12 >= 0
            ? sbet12 + cbet2 * sbet1 * somg12 * somg12 / (1 + comg12)
            : sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
        let ssig12 = hypot(salp1, calp1)
        let csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12

        if isShort && ssig12 < shortLineArc {
            var salp2 = cbet1 * somg12
            var calp2 =
                sbet12 - cbet1 * sbet2 * (comg12 >= 0 ? somg12 * somg12 / (1 + comg12) : 1 - comg12)
            (salp2, calp2) = normalized(salp2, calp2)
            (salp1, calp1) = normalized(salp1, calp1)
            return InverseStart(
                salp1: salp1, calp1: calp1, shortLineArc: atan2(ssig12, csig12),
                salp2: salp2, calp2: calp2, meanScale: meanScale)
        }

        let nearlyAntipodal = !(abs(n) >= 0.1 || csig12 >= 0 || ssig12 >= 6 * abs(n) * .pi * cbet1 * cbet1)
        var usedAstroid = false
        if nearlyAntipodal {
            usedAstroid = true
            // Scale the problem around the antipode of point 1 so that it becomes the astroid
            // problem in (x, y): x measures the longitude shortfall from 180°, y the latitude
            // offset from the antipode, both in units of the "size" of the antipodal caustic.
            let lam12x = atan2(-slam12, -clam12)  // λ₁₂ − π
            let x: Double, y: Double, lamScale: Double
            if f >= 0 {
                let k2 = sbet1 * sbet1 * ep2
                let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
                lamScale = f * cbet1 * a3.evaluate(eps) * .pi
                let betScale = lamScale * cbet1
                x = lam12x / lamScale
                y = sbet12a / betScale
            } else {
                // Prolate: the roles of x and y swap; scales come from the reduced length of the
                // meridian through both points.
                let cbet12a = cbet2 * cbet1 - sbet2 * sbet1
                let bet12a = atan2(sbet12a, cbet12a)
                let series = lengthSeries(epsilon: n)
                let dn1 = (1 + ep2 * sbet1 * sbet1).squareRoot()
                let dn2 = (1 + ep2 * sbet2 * sbet2).squareRoot()
                let (_, m12b) = series.lengths(
                    sig12: .pi + bet12a, ssig1: sbet1, csig1: -cbet1, dn1: dn1, ssig2: sbet2, csig2: cbet2, dn2: dn2)
                let m0 = series.a1MinusA2
                x = -1 + m12b / (cbet1 * cbet2 * m0 * .pi)
                let betScale = x < -0.01 ? sbet12a / x : -f * cbet1 * cbet1 * .pi
                lamScale = betScale / cbet1
                y = lam12x / lamScale
            }

            if y > -200 * Tolerance.epsilon && x > -1 - 1000 * Tolerance.sqrtEpsilon {
                // Point 2 lies (numerically) on the antipodal cut: the azimuth follows directly.
                if f >= 0 {
                    salp1 = min(1, -x)
                    calp1 = -(1 - salp1 * salp1).squareRoot()
                } else {
                    calp1 = max(x > -200 * Tolerance.epsilon ? 0 : -1, x)
                    salp1 = (1 - calp1 * calp1).squareRoot()
                }
            } else {
                let k = astroidRoot(x: x, y: y)
                let omg12a = lamScale * (f >= 0 ? -x * k / (1 + k) : -y * (1 + k) / k)
                somg12 = sin(omg12a)
                comg12 = -cos(omg12a)
                salp1 = cbet2 * somg12
                calp1 = sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
            }
        }

        if salp1 > 0 {
            (salp1, calp1) = normalized(salp1, calp1)
        } else {
            // Includes NaN: head due east, Newton's method and the bracket do the rest.
            salp1 = 1
            calp1 = 0
        }
        return InverseStart(salp1: salp1, calp1: calp1, shortLineArc: nil, usedAstroid: usedAstroid)
    }

    /// The geodesic leaving point 1 at α₁, followed to point 2's latitude.
    struct LongitudeState {
        /// λ(α₁) − λ₁₂ in radians: zero at the solution.
        var mismatch = Double.nan
        /// ∂λ/∂α₁ (zero when not asked for).
        var derivative = 0.0
        var salp2 = Double.nan, calp2 = Double.nan
        var sig12 = Double.nan
        var ssig1 = Double.nan, csig1 = Double.nan, ssig2 = Double.nan, csig2 = Double.nan
        var epsilon = Double.nan
    }

    /// Follows the geodesic that leaves β₁ at azimuth α₁ until it reaches β₂ (on the ascending
    /// side of the auxiliary sphere), and reports how far its longitude misses λ₁₂.
    func longitudeMismatch(
        sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
        salp1: Double, calp1 inputCalp1: Double, slam12: Double, clam12: Double, wantDerivative: Bool
    ) -> LongitudeState {
        let f = flattening
        // A geodesic leaving the equator due north or south is a meridian; nudge it so the
        // spherical formulas below stay determinate.
        let calp1 = sbet1 == 0 && inputCalp1 == 0 ? -Tolerance.tiny : inputCalp1

        // α₀: the azimuth where the geodesic crosses the equator (Clairaut: sin α₀ = sin α cos β).
        let salp0 = salp1 * cbet1
        let calp0 = hypot(calp1, salp1 * sbet1)

        // σ₁ and ω₁ measured from that equator crossing.
        let somg1 = salp0 * sbet1
        let comg1 = calp1 * cbet1
        let (ssig1, csig1) = normalized(sbet1, comg1)

        // α₂ from Clairaut's relation, cos α₂ in the form that keeps precision.
        let salp2 = cbet2 != cbet1 ? salp0 / cbet2 : salp1
        let calp2: Double
        if cbet2 != cbet1 || abs(sbet2) != -sbet1 {
            let radicand =
                calp1 * cbet1 * calp1 * cbet1
                + (cbet1 < -sbet1 ? (cbet2 - cbet1) * (cbet1 + cbet2) : (sbet1 - sbet2) * (sbet1 + sbet2))
            calp2 = radicand.squareRoot() / cbet2
        } else {
            calp2 = abs(calp1)
        }
        let somg2 = salp0 * sbet2
        let comg2 = calp2 * cbet2
        let (ssig2, csig2) = normalized(sbet2, comg2)

        // σ₁₂ and ω₁₂ are non-negative for an east-going line.
        let sig12 = atan2(max(0, csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
        let somg12 = max(0, comg1 * somg2 - somg1 * comg2)
        let comg12 = comg1 * comg2 + somg1 * somg2
        // ω₁₂ − λ₁₂, computed as one angle to keep its small value exact.
        let eta = atan2(somg12 * clam12 - comg12 * slam12, comg12 * clam12 + somg12 * slam12)

        let k2 = calp0 * calp0 * secondEccentricitySquared
        let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
        let series = c3.coefficients(epsilon: eps)
        let b312 = series.sum(ssig2, csig2) - series.sum(ssig1, csig1)
        // λ₁₂ = ω₁₂ − f sin α₀ I₃(σ₁₂).
        let domg12 = -f * a3.evaluate(eps) * salp0 * (sig12 + b312)

        var state = LongitudeState(
            mismatch: eta + domg12, derivative: 0, salp2: salp2, calp2: calp2, sig12: sig12,
            ssig1: ssig1, csig1: csig1, ssig2: ssig2, csig2: csig2, epsilon: eps)
        if wantDerivative {
            if calp2 == 0 {
                // Both points on the same parallel at opposite sides of the vertex.
                state.derivative = -2 * oneMinusF * dn1 / sbet1
            } else {
                // ∂λ₁₂/∂α₁ = m₁₂ / (a cos α₂ cos β₂), with the reduced length m₁₂ in units of b.
                let (_, m12b) = lengthSeries(epsilon: eps).lengths(
                    sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1, ssig2: ssig2, csig2: csig2, dn2: dn2)
                state.derivative = m12b * oneMinusF / (calp2 * cbet2)
            }
        }
        return state
    }
}

// MARK: - Direct problem

extension Geodesic {
    /// The direct problem on raw degrees: returns latitude, longitude (−180..<180) and the
    /// forward azimuth at the end.
    func solveDirect(latitude1: Double, longitude1: Double, azimuth1: Double, distance: Double)
        -> (latitude: Double, longitude: Double, azimuth: Double)
    {
        let f = flattening
        let (salp1, calp1) = sinCosDegrees(roundedAngle(azimuth1))
        var (sbet1, cbet1) = sinCosDegrees(roundedAngle(latitude1))
        (sbet1, cbet1) = normalized(sbet1 * oneMinusF, cbet1)
        cbet1 = max(Tolerance.tiny, cbet1)

        let salp0 = salp1 * cbet1
        let calp0 = hypot(calp1, salp1 * sbet1)
        let somg1 = salp0 * sbet1
        let comg1 = sbet1 != 0 || calp1 != 0 ? cbet1 * calp1 : 1
        let (ssig1, csig1) = normalized(sbet1, comg1)

        let k2 = calp0 * calp0 * secondEccentricitySquared
        let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
        let distanceSeries = DistanceSeries(epsilon: eps)
        let b11 = distanceSeries.c1.sum(ssig1, csig1)
        // τ₁: the start expressed in the "rectified" arc where distance is linear.
        let stau1 = ssig1 * cos(b11) + csig1 * sin(b11)
        let ctau1 = csig1 * cos(b11) - ssig1 * sin(b11)

        // Distance → σ₂ through the reverted series C₁′.
        let tau12 = distance / (polarRadius * (1 + distanceSeries.a1m1))
        let stau12 = sin(tau12), ctau12 = cos(tau12)
        let b12 = -distanceSeries.c1p.sum(stau1 * ctau12 + ctau1 * stau12, ctau1 * ctau12 - stau1 * stau12)
        var sig12 = tau12 - (b12 - b11)
        var ssig12 = sin(sig12), csig12 = cos(sig12)
        if abs(f) > 0.01 {
            // The reverted series is only sixth order; polish with one Newton step.
            let ssig2 = ssig1 * csig12 + csig1 * ssig12
            let csig2 = csig1 * csig12 - ssig1 * ssig12
            let b12exact = distanceSeries.c1.sum(ssig2, csig2)
            let error = (1 + distanceSeries.a1m1) * (sig12 + (b12exact - b11)) - distance / polarRadius
            sig12 -= error / (1 + k2 * ssig2 * ssig2).squareRoot()
            ssig12 = sin(sig12)
            csig12 = cos(sig12)
        }
        let ssig2 = ssig1 * csig12 + csig1 * ssig12
        var csig2 = csig1 * csig12 - ssig1 * ssig12

        let sbet2 = calp0 * ssig2
        var cbet2 = hypot(salp0, calp0 * csig2)
        if cbet2 == 0 {
            // At a pole: keep the azimuth determinate.
            cbet2 = Tolerance.tiny
            csig2 = Tolerance.tiny
        }
        let salp2 = salp0
        let calp2 = calp0 * csig2

        // Longitude: ω₁₂ on the sphere, then the ellipsoidal correction λ − ω = −f sin α₀ I₃.
        let somg2 = salp0 * ssig2
        let comg2 = csig2
        let omg12 = atan2(somg2 * comg1 - comg2 * somg1, comg2 * comg1 + somg2 * somg1)
        let longitudeSeries = c3.coefficients(epsilon: eps)
        let a3c = -f * salp0 * a3.evaluate(eps)
        let lam12 =
            omg12 + a3c * (sig12 + (longitudeSeries.sum(ssig2, csig2) - longitudeSeries.sum(ssig1, csig1)))
        let lon12 = lam12 * radiansToDegrees
        let longitude = normalizedLongitude(
            normalizedLongitude(longitude1) + normalizedLongitude(lon12))
        let latitude = atan2Degrees(sbet2, oneMinusF * cbet2)
        return (latitude, longitude, atan2Degrees(salp2, calp2))
    }
}

/// Whether bisection has stopped making progress: (s, c) equals (s0, c0) to within one
/// rounding in each component.
@inline(__always) private func isStalled(_ s: Double, _ c: Double, _ s0: Double, _ c0: Double) -> Bool {
    abs(s - s0) <= Tolerance.epsilon * abs(s) && abs(c - c0) <= Tolerance.epsilon * abs(c)
}

// MARK: - Series

/// c₀ + c₁x + … + c₅x⁵.
struct Polynomial5: Sendable {
    var c0, c1, c2, c3, c4, c5: Double
    init(_ c0: Double, _ c1: Double, _ c2: Double, _ c3: Double, _ c4: Double, _ c5: Double) {
        (self.c0, self.c1, self.c2, self.c3, self.c4, self.c5) = (c0, c1, c2, c3, c4, c5)
    }
    @inline(__always) func evaluate(_ x: Double) -> Double {
        ((((c5 * x + c4) * x + c3) * x + c2) * x + c1) * x + c0
    }
}

/// A truncated sine series Σₗ₌₁⁶ cₗ sin 2lσ.
struct SineSeries: Sendable {
    var c1, c2, c3, c4, c5, c6: Double

    /// Σ cₗ sin 2lσ for σ given by its sine and cosine, by Clenshaw's recurrence
    /// (bₗ = cₗ + 2 cos 2σ · bₗ₊₁ − bₗ₊₂, sum = b₁ sin 2σ).
    @inline(__always) func sum(_ sinSigma: Double, _ cosSigma: Double) -> Double {
        let twoCos2 = 2 * (cosSigma - sinSigma) * (cosSigma + sinSigma)
        var next = 0.0
        var current = c6
        (current, next) = (c5 + twoCos2 * current - next, current)
        (current, next) = (c4 + twoCos2 * current - next, current)
        (current, next) = (c3 + twoCos2 * current - next, current)
        (current, next) = (c2 + twoCos2 * current - next, current)
        (current, next) = (c1 + twoCos2 * current - next, current)
        return 2 * sinSigma * cosSigma * current
    }
}

/// The distance integral I₁(σ) = ∫ √(1 + k² sin²σ) dσ = A₁ (σ + Σ C₁ₗ sin 2lσ), and its
/// reversion σ = τ + Σ C₁′ₗ sin 2lτ, to sixth order in ε = k² / (√(1 + k²) + 1)².
struct DistanceSeries: Sendable {
    /// A₁ − 1.
    var a1m1: Double
    var c1: SineSeries
    var c1p: SineSeries

    init(epsilon e: Double) {
        let e2 = e * e, e3 = e2 * e, e4 = e2 * e2, e5 = e4 * e, e6 = e3 * e3
        a1m1 = Self.a1m1(epsilon: e)
        c1 = Self.c1(epsilon: e)
        c1p = SineSeries(
            c1: e / 2 - 9 * e3 / 32 + 205 * e5 / 1536,
            c2: 5 * e2 / 16 - 37 * e4 / 96 + 1335 * e6 / 4096,
            c3: 29 * e3 / 96 - 75 * e5 / 128,
            c4: 539 * e4 / 1536 - 2391 * e6 / 2560,
            c5: 3467 * e5 / 7680,
            c6: 38081 * e6 / 61440)
    }

    /// A₁ − 1 (also used by ``LengthSeries``).
    @inline(__always) static func a1m1(epsilon e: Double) -> Double {
        let e2 = e * e, e3 = e2 * e, e4 = e2 * e2, e6 = e3 * e3
        return (e + e2 / 4 + e4 / 64 + e6 / 256) / (1 - e)
    }

    /// The coefficients C₁ₗ of I₁ (also used by ``LengthSeries``).
    @inline(__always) static func c1(epsilon e: Double) -> SineSeries {
        let e2 = e * e, e3 = e2 * e, e4 = e2 * e2, e5 = e4 * e, e6 = e3 * e3
        return SineSeries(
            c1: -e / 2 + 3 * e3 / 16 - e5 / 32,
            c2: -e2 / 16 + e4 / 32 - 9 * e6 / 2048,
            c3: -e3 / 48 + 3 * e5 / 256,
            c4: -5 * e4 / 512 + 3 * e6 / 512,
            c5: -7 * e5 / 1280,
            c6: -7 * e6 / 2048)
    }
}

/// Distance and reduced length along a geodesic with parameter ε. The reduced length needs
/// I₂(σ) = ∫ dσ / √(1 + k² sin²σ) = A₂ (σ + Σ C₂ₗ sin 2lσ) as well.
struct LengthSeries: Sendable {
    var a1: Double
    var c1: SineSeries
    var a2: Double
    var c2: SineSeries
    /// A₁ − A₂, computed without cancellation.
    var a1MinusA2: Double

    init(epsilon e: Double) {
        let e2 = e * e, e3 = e2 * e, e4 = e2 * e2, e5 = e4 * e, e6 = e3 * e3
        let a1m1 = DistanceSeries.a1m1(epsilon: e)
        let a2m1 = (-e - 3 * e2 / 4 - 7 * e4 / 64 - 11 * e6 / 256) / (1 + e)
        a1 = 1 + a1m1
        a2 = 1 + a2m1
        a1MinusA2 = a1m1 - a2m1
        c1 = DistanceSeries.c1(epsilon: e)
        c2 = SineSeries(
            c1: e / 2 + e3 / 16 + e5 / 32,
            c2: 3 * e2 / 16 + e4 / 32 + 35 * e6 / 2048,
            c3: 5 * e3 / 48 + 5 * e5 / 256,
            c4: 35 * e4 / 512 + 7 * e6 / 512,
            c5: 63 * e5 / 1280,
            c6: 77 * e6 / 2048)
    }

    /// s₁₂ / b and m₁₂ / b between σ₁ and σ₂ (the reduced length m₁₂ = b [dn₂ cos σ₁ sin σ₂ −
    /// dn₁ sin σ₁ cos σ₂ − cos σ₁ cos σ₂ J₁₂] with J = I₁ − I₂).
    func lengths(
        sig12: Double, ssig1: Double, csig1: Double, dn1: Double, ssig2: Double, csig2: Double, dn2: Double
    ) -> (distance: Double, reducedLength: Double) {
        let b1 = c1.sum(ssig2, csig2) - c1.sum(ssig1, csig1)
        let b2 = c2.sum(ssig2, csig2) - c2.sum(ssig1, csig1)
        let j12 = a1MinusA2 * sig12 + (a1 * b1 - a2 * b2)
        let m12 = dn2 * (csig1 * ssig2) - dn1 * (ssig1 * csig2) - csig1 * csig2 * j12
        return (a1 * (sig12 + b1), m12)
    }

    /// s₁₂ / b only.
    func distance(sig12: Double, ssig1: Double, csig1: Double, ssig2: Double, csig2: Double) -> Double {
        a1 * (sig12 + c1.sum(ssig2, csig2) - c1.sum(ssig1, csig1))
    }
}

extension Geodesic {
    func lengthSeries(epsilon: Double) -> LengthSeries { LengthSeries(epsilon: epsilon) }
}

/// The longitude integral I₃(σ) = A₃ (σ + Σ C₃ₗ sin 2lσ), whose coefficients depend on n (fixed
/// per ellipsoid, folded in at construction) and ε (per geodesic).
struct LongitudeSeriesTable: Sendable {
    // C₃ₗ = Σⱼ cₗⱼ εʲ, j = l…5.
    var c11, c12, c13, c14, c15: Double
    var c22, c23, c24, c25: Double
    var c33, c34, c35: Double
    var c44, c45: Double
    var c55: Double

    init(n: Double) {
        let n2 = n * n
        c11 = (1 - n) / 4
        c12 = (1 - n2) / 8
        c13 = (3 + 3 * n - n2) / 64
        c14 = (5 + 2 * n) / 128
        c15 = 3.0 / 128
        c22 = (2 - 3 * n + n2) / 32
        c23 = (3 - 2 * n - 3 * n2) / 64
        c24 = (3 + n) / 128
        c25 = 5.0 / 256
        c33 = (5 - 9 * n + 5 * n2) / 192
        c34 = (9 - 10 * n) / 384
        c35 = 7.0 / 512
        c44 = (7 - 14 * n) / 512
        c45 = 7.0 / 512
        c55 = 21.0 / 2560
    }

    @inline(__always) func coefficients(epsilon e: Double) -> SineSeries {
        let e2 = e * e, e3 = e2 * e, e4 = e2 * e2
        return SineSeries(
            c1: e * (c11 + e * (c12 + e * (c13 + e * (c14 + e * c15)))),
            c2: e2 * (c22 + e * (c23 + e * (c24 + e * c25))),
            c3: e3 * (c33 + e * (c34 + e * c35)),
            c4: e4 * (c44 + e * c45),
            c5: e4 * e * c55,
            c6: 0)
    }
}

// MARK: - The astroid

/// The positive root k of k⁴ + 2k³ − (x² + y² − 1)k² − 2y²k − y² = 0, which locates the
/// geodesic to a point near the antipode (Karney 2013, §5, eq. 55). Solved in closed form as a
/// quartic; zero when y = 0 and |x| ≤ 1 (point 2 on the antipodal cut).
func astroidRoot(x: Double, y: Double) -> Double {
    let p = x * x
    let q = y * y
    let r = (p + q - 1) / 6
    guard !(q == 0 && r <= 0) else { return 0 }
    // With s = p q / 4 and the resolvent cubic written in r and s (scaled to avoid dividing
    // by r when r = 0).
    let s = p * q / 4
    let r2 = r * r
    let r3 = r * r2
    let discriminant = s * (s + 2 * r3)  // zero on the evolute p^(1/3) + q^(1/3) = 1
    var u = r
    if discriminant >= 0 {
        var t3 = s + r3
        // Choose the sign that maximises |t3|, to avoid cancellation.
        t3 += t3 < 0 ? -discriminant.squareRoot() : discriminant.squareRoot()
        let t = cbrt(t3)
        u += t + (t != 0 ? r2 / t : 0)
    } else {
        // Three real roots; pick the one that avoids cancellation (r < 0 here).
        let angle = atan2((-discriminant).squareRoot(), -(s + r3))
        u += 2 * r * cos(angle / 3)
    }
    let v = (u * u + q).squareRoot()
    let uv = u < 0 ? q / (v - u) : u + v  // u + v > 0 without cancellation
    let w = (uv - q) / (2 * v)
    return uv / ((uv + w * w).squareRoot() + w)
}

// MARK: - Angles in degrees, computed exactly where it matters

/// (sin, cos) scaled to unit length.
///
/// `hypot` costs about a quarter of the solver's time; `sqrt(s² + c²)` would be faster but
/// loses up to an ulp per call, which measurably loosens the agreement with GeographicLib
/// (direct problem 6 nm instead of 1 nm, near-antipodal azimuths 10⁻¹⁰° instead of 10⁻¹²°).
@inline(__always) func normalized(_ s: Double, _ c: Double) -> (Double, Double) {
    let h = hypot(s, c)
    return (s / h, c / h)
}

/// Rounds angles very close to zero to a coarser grid (multiples of 2⁻⁵⁷ degrees near 0), so
/// that tiny differences underflow consistently to 0 instead of producing denormals.
@inline(__always) func roundedAngle(_ x: Double) -> Double {
    let z = 1.0 / 16
    var y = abs(x)
    if y < z { y = z - (z - y) }
    return Double(signOf: x, magnitudeOf: y)
}

/// s + t = a + b exactly, with s the rounded sum (Knuth's TwoSum).
@inline(__always) func exactSum(_ a: Double, _ b: Double) -> (sum: Double, error: Double) {
    let s = a + b
    var up = s - b
    var vpp = s - up
    up -= a
    vpp -= b
    return (s, s == 0 ? s : 0 - (up + vpp))
}

/// y − x reduced to −180…180, as a rounded value and the rounding error (value + error is
/// exact). ±0 and ±180 get the sign of the true difference.
func angleDifference(from x: Double, to y: Double) -> (Double, Double) {
    let (d0, t0) = exactSum((-x).remainder(dividingBy: 360), y.remainder(dividingBy: 360))
    var (d, t) = exactSum(d0.remainder(dividingBy: 360), t0)
    if d == 0 || abs(d) == 180 {
        d = Double(signOf: t == 0 ? y - x : -t, magnitudeOf: d)
    }
    return (d, t)
}

/// sin and cos of an angle in degrees, exact at multiples of 90° (the reduction to ±45° is
/// exact in degrees, before any conversion to radians).
@inline(__always) func sinCosDegrees(_ x: Double) -> (Double, Double) {
    var r = x.truncatingRemainder(dividingBy: 360)
    let q = Int((r / 90).rounded(.toNearestOrEven))
    r -= 90 * Double(q)
    return quadrantSinCos(r * degreesToRadians, quadrant: q, signOf: x)
}

/// sin and cos of (x + t) degrees for x in −180…180 and a small correction t.
@inline(__always) func sinCosDegrees(_ x: Double, plus t: Double) -> (Double, Double) {
    let q = Int((x / 90).rounded(.toNearestOrEven))
    let r = roundedAngle((x - 90 * Double(q)) + t)
    return quadrantSinCos(r * degreesToRadians, quadrant: q, signOf: x)
}

@inline(__always) private func quadrantSinCos(_ radians: Double, quadrant q: Int, signOf x: Double) -> (Double, Double) {
    let s = sin(radians), c = cos(radians)
    var result: (Double, Double)
    switch q & 3 {
    case 0: result = (s, c)
    case 1: result = (c, -s)
    case 2: result = (-s, -c)
    default: result = (-c, s)
    }
    result.1 += 0  // −0 → +0
    if result.0 == 0 { result.0 = Double(signOf: x, magnitudeOf: 0) }
    return result
}

/// atan2 in degrees, exact for the axes (atan2Degrees(1, 0) == 90 exactly), −180…180.
@inline(__always) func atan2Degrees(_ y: Double, _ x: Double) -> Double {
    var y = y, x = x
    var q = 0
    if abs(y) > abs(x) {
        swap(&x, &y)
        q = 2
    }
    if x < 0 {
        x = -x
        q += 1
    }
    let angle = atan2(y, x) * radiansToDegrees
    switch q {
    case 1: return Double(signOf: y, magnitudeOf: 180) - angle
    case 2: return 90 - angle
    case 3: return -90 + angle
    default: return angle
    }
}
