#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
internal import LocationCore

/// Merges the sentences of one measurement epoch into one ``Fix``.
///
/// Rules (also in docs/reference/nmea.md):
/// - RMC and GGA carry a time of day; consecutive timed sentences with the same time belong to
///   one epoch. A timed sentence with a different time closes the epoch in progress.
/// - VTG, GSA and DTM carry no time: they join the epoch in progress; before the first timed
///   sentence they wait for the first epoch.
/// - Of each type the first sentence in an epoch is used (`$GPGGA` and `$GLGGA` repeat the
///   same solution).
/// - The date comes from the epoch's RMC; an epoch without RMC takes the last date seen and
///   rolls it forward a day when its time of day is more than 12 hours before the previous
///   epoch's (midnight), or back when more than 12 hours after.
/// - The fix's ``/LocationCore/Fix/receiver`` names the epoch's map datum when it has a DTM
///   (``NMEASentence/DTM/datumName``, as gpsd 3.22 names it); an epoch without one names none,
///   as gpsd's report of it does.
/// - The fix carries the receiver's sky as it stood when the epoch closed (``SkyAssembler``): its
///   ``/LocationCore/Fix/receiver``'s ``/LocationCore/ReceiverReport/sky``, none before a whole
///   GSV group.
struct EpochAssembler: Sendable {
    struct Epoch: Sendable {
        var time: NMEATimeOfDay
        var line: Int
        var sentence: String
        var rmc: NMEASentence.RMC?
        var gga: NMEASentence.GGA?
        var vtg: NMEASentence.VTG?
        var gsa: NMEASentence.GSA?
        var dtm: NMEASentence.DTM?
    }

    let source: FixSource
    let accuracyModel: NMEAAccuracyModel?
    private var current: Epoch?
    private var waitingVTG: NMEASentence.VTG?
    private var waitingGSA: NMEASentence.GSA?
    private var waitingDTM: NMEASentence.DTM?
    private var sky = SkyAssembler()
    /// Days since 1970 and time of day of the last dated epoch.
    private var lastDay: Int?
    private var lastTime: Double?

    init(source: FixSource, accuracyModel: NMEAAccuracyModel?, initialDate: NMEADate?) {
        self.source = source
        self.accuracyModel = accuracyModel
        lastDay = initialDate?.daysSince1970
    }

    /// Adds one sentence. Returns the epoch it closed, if any.
    ///
    /// - Returns: `nil` when no epoch was closed, else the fix or, when it has no date, the
    ///   ``NMEAError/Code/missingDate`` error naming the epoch's first line.
    mutating func add(_ sentence: NMEASentence, line: Int, text: @autoclosure () -> String) -> Result<Fix, NMEAError>? {
        let time: NMEATimeOfDay?
        switch sentence {
        case .rmc(let s): time = s.time
        case .gga(let s):
            time = s.time
            sky.add(s)
        // Untimed: each joins the epoch in progress, or waits for the first one.
        case .vtg(let s):
            if current != nil { Self.keepFirst(s, in: &current!.vtg) } else { Self.keepFirst(s, in: &waitingVTG) }
            return nil
        case .gsa(let s):
            sky.add(s)
            if current != nil { Self.keepFirst(s, in: &current!.gsa) } else { Self.keepFirst(s, in: &waitingGSA) }
            return nil
        case .gsv(let s):
            sky.add(s)
            return nil
        case .dtm(let s):
            if current != nil { Self.keepFirst(s, in: &current!.dtm) } else { Self.keepFirst(s, in: &waitingDTM) }
            return nil
        }
        guard let time else { return nil }  // counted by the reader; nothing to key an epoch on

        var closed: Result<Fix, NMEAError>?
        if let currentTime = current?.time, currentTime != time, let epoch = current.take() {
            closed = complete(epoch)
        }
        if current == nil {
            sky.beginEpoch()
            current = Epoch(time: time, line: line, sentence: text(), vtg: waitingVTG, gsa: waitingGSA, dtm: waitingDTM)
            waitingVTG = nil
            waitingGSA = nil
            waitingDTM = nil
        }
        switch sentence {
        case .rmc(let s) where current?.rmc == nil: current?.rmc = s
        case .gga(let s) where current?.gga == nil: current?.gga = s
        default: break
        }
        return closed
    }

    /// The first sentence of a type is the one used (`$GPGSA` then `$GLGSA`: the first).
    private static func keepFirst<S>(_ sentence: S, in slot: inout S?) {
        if slot == nil { slot = sentence }
    }

    /// Closes the epoch in progress at the end of the input.
    mutating func finish() -> Result<Fix, NMEAError>? {
        defer {
            current = nil
            waitingVTG = nil
            waitingGSA = nil
            waitingDTM = nil
        }
        return current.take().map { complete($0) }
    }

    /// The line of the timed sentence that opened the epoch ``complete(_:)`` last closed.
    private(set) var lastEpochLine = 0

    private mutating func complete(_ epoch: Epoch) -> Result<Fix, NMEAError> {
        lastEpochLine = epoch.line
        let seconds = epoch.time.secondsSinceMidnight
        let day: Int
        if let date = epoch.rmc?.date {
            day = date.daysSince1970
        } else if let lastDay {
            if let lastTime, seconds < lastTime - 43_200 {
                day = lastDay + 1
            } else if let lastTime, seconds > lastTime + 43_200 {
                day = lastDay - 1
            } else {
                day = lastDay
            }
        } else {
            // The sentence quoted is the epoch's first: its RMC, when it has one, has no date either.
            let why =
                epoch.rmc == nil
                ? "no RMC sentence has given one" : "its RMC's date field is empty, and no RMC before it gave one"
            return .failure(
                NMEAError(.missingDate, message: "no date yet for the epoch at \(epoch.time): \(why)", line: epoch.line, sentence: epoch.sentence))
        }
        lastDay = day
        lastTime = seconds
        let time = Date(timeIntervalSince1970: Double(day) * 86_400 + seconds)
        var fix = fix(epoch, at: time)
        fix.receiver = sky.report
        if let datum = epoch.dtm?.datumName {
            var receiver = fix.receiver ?? ReceiverReport()
            receiver.datum = datum
            fix.receiver = receiver
        }
        return .success(fix)
    }

    private func fix(_ epoch: Epoch, at time: Date) -> Fix {
        let gga = epoch.gga.flatMap { $0.quality.hasPosition ? $0 : nil }
        let rmc = epoch.rmc.flatMap { $0.isActive && ($0.mode?.isValid ?? true) ? $0 : nil }
        let vtg = epoch.vtg.flatMap { ($0.mode?.isValid ?? true) ? $0 : nil }
        guard let coordinate = gga?.coordinate ?? rmc?.coordinate else {
            return Fix.noFix(time: time, source: source)
        }
        let speed =
            rmc?.speedKnots.map { $0 * Knot.metresPerSecond }
            ?? vtg?.speedKilometersPerHour.map { $0 / 3.6 }
            ?? vtg?.speedKnots.map { $0 * Knot.metresPerSecond }
        let course = rmc?.courseTrue ?? vtg?.courseTrue
        let altitude = gga?.altitudeMSL
        let mode: FixMode =
            switch epoch.gsa?.fixMode {
            case .twoDimensional?: .twoDimensional
            case .threeDimensional?: .threeDimensional
            default: altitude == nil ? .twoDimensional : .threeDimensional
            }
        var horizontalAccuracy: Double?
        var verticalAccuracy: Double?
        if let model = accuracyModel {
            let uere = model.userEquivalentRangeError
            horizontalAccuracy = (gga?.hdop ?? epoch.gsa?.hdop).map { $0 * uere }
            verticalAccuracy = epoch.gsa?.vdop.map { $0 * uere }
        }
        var fix = Fix(
            time: time, coordinate: coordinate, altitude: altitude, speed: speed, course: course,
            horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy, mode: mode, source: source)
        // GGA's altitude is above mean sea level, its separation the geoid's height here.
        fix.geoidSeparation = gga?.geoidSeparation
        return fix
    }
}
