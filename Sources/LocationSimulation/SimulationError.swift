import LocationCore

/// Why a replay or a synthetic motion could not be set up.
///
/// Every problem is found when the provider is created (never half-way through a replay), and
/// the error names the parameter or the point that is wrong.
///
/// ```swift
/// do {
///     _ = try GPXReplay(path: path, configuration: .init(pacing: .timed(speedFactor: 0)))
/// } catch SimulationError.Code.invalidSpeedFactor {
///     // "speedFactor: 0.0 is outside 0.1...1000"
/// }
/// ```
package struct SimulationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem. Extensible: new codes may be added without breaking `switch`-free callers.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A replay speed factor that is not a finite number in 0.1…1000.
        package static let invalidSpeedFactor = Code("invalid speed factor")
        /// A resampling or emission rate that is not a finite number in 0.001…100 Hz.
        package static let invalidRate = Code("invalid rate")
        /// Any other parameter outside its documented range (named in ``SimulationError/parameter``).
        package static let invalidParameter = Code("invalid parameter")
        /// A track, route or waypoint list without a single point.
        package static let emptyPath = Code("empty path")
        /// Some points have a `<time>` and others do not, so neither timed nor constant-speed
        /// replay applies without a choice (pass ``GPXReplay/Configuration/ignoresTimestamps``, or
        /// leave those points out with ``ReplayPath/removingUntimedPoints()``).
        package static let missingTimestamp = Code("missing timestamp")
        /// Looping was asked for over a path that spans no time (one point, or every point at the
        /// same time or place): each lap would take zero time and the replay would never progress.
        package static let zeroLengthLoop = Code("zero-length loop")
        /// A start offset (seek) that is negative, not finite, or beyond the end of the path.
        package static let offsetOutOfRange = Code("start offset out of range")

        package var description: String { name }
    }

    /// The kind of problem.
    package let code: Code
    /// The parameter or input that is wrong, e.g. `"speedFactor"` or `"track segment 2, point 17"`.
    package let parameter: String
    /// A sentence saying what was expected.
    package let message: String
    /// Where in the input file the problem is (`walk.gpx:14:5`), when known.
    package private(set) var location: String?

    init(_ code: Code, parameter: String, message: String) {
        self.code = code
        self.parameter = parameter
        self.message = message
    }

    /// The same error, placed at `location` (`FILE:LINE:COLUMN`).
    func located(_ location: String) -> SimulationError {
        var located = self
        located.location = location
        return located
    }

    package var description: String { "\(location.map { "\($0): " } ?? "")\(code) (\(parameter)): \(message)" }
}

extension SimulationError.Code {
    /// Lets `catch SimulationError.Code.emptyPath` match a thrown ``SimulationError``.
    package static func ~= (code: Self, error: any Error) -> Bool {
        (error as? SimulationError)?.code == code
    }
}

extension SimulationError {
    /// Checks that `value` is finite and within `range`.
    static func check(
        _ value: Double, in range: ClosedRange<Double>, parameter: String, unit: String,
        code: Code = .invalidParameter
    ) throws(SimulationError) {
        guard value.isFinite, range.contains(value) else {
            throw SimulationError(code, parameter: parameter, message: refusal(of: value, in: range, unit: unit))
        }
    }

    /// Why `value` is not in `range`, as a person says it: a bound that only stands for "above
    /// zero" (the least positive `Double`) or "no limit" (the largest) is said so, not printed as
    /// `2.2250738585072014e-308...1.7976931348623157e+308`.
    static func refusal(of value: Double, in range: ClosedRange<Double>, unit: String) -> String {
        let positive = range.lowerBound > 0 && range.lowerBound <= Double.leastNormalMagnitude
        let unbounded = range.upperBound == .greatestFiniteMagnitude
        func amount(_ bound: Double) -> String { "\(PeopleText.number(bound, decimals: 3)) \(unit)" }
        // As it was written: `0`, `-2.5`, `1e-09` (not `0.0`).
        let got = PeopleText.number(value)
        return switch (positive, unbounded) {
        case (true, true): "must be more than 0 \(unit), got \(got)"
        case (true, false): "must be more than 0 and at most \(amount(range.upperBound)), got \(got)"
        case (false, true): "must be at least \(amount(range.lowerBound)), got \(got)"
        case (false, false): "\(got) is outside \(PeopleText.number(range.lowerBound))...\(PeopleText.number(range.upperBound)) \(unit)"
        }
    }
}
