internal import LocationCore

/// Builds a receiver's sky (``/LocationCore/ReceiverReport/Sky``) from its GSV and GSA sentences,
/// as gpsd does for an NMEA receiver.
///
/// Rules (also in docs/reference/nmea.md):
/// - A GSV group is one talker's (and NMEA 4.10 signal's) sentences 1 to N. The first group of an
///   epoch starts a new sky; the epoch's later groups (`GPGSV`, then `GLGSV`, `GAGSV`, …, or the
///   same talker's other signals) add to it. A group with a sentence missing is dropped.
/// - The sky is the receiver's once a group is whole, and stays until the next whole group: a
///   receiver may send its GSVs every few epochs. As with gpsd, what a GSA says (the satellites
///   used, the DOPs) reaches the sky with the next whole group.
/// - Satellites are numbered as gpsd numbers them (its `PRN`, `gnssid` and `svid`; see
///   ``identify(_:talker:system:)``).
/// - A satellite is used when the newest epoch's GSAs list it and it has a signal (NMEA 4.10
///   lists a satellite, not the signal the fix used). The GSA also gives the PDOP, HDOP and VDOP.
struct SkyAssembler: Sendable {
    private struct Group: Sendable {
        var talker: NMEATalker
        /// The first sentence's signal: some receivers give one in the last sentence alone.
        var signalID: Int?
        var count: Int
        var received: Int
        var satellites: [(NMEASentence.GSV.Satellite, signalID: Int?)]
    }

    /// Whole groups of this epoch, and the groups' talkers and signals (a repeat starts anew).
    private var accumulated: [Satellite] = []
    private var accumulatedGroups: [String] = []
    private var epochHasGroup = false
    private var group: Group?

    private var epochHasGSA = false
    private var used: Set<Satellite.SignalIdentity> = []
    private var dilutions: [ReceiverReport.Sky.Dilution: Double] = [:]

    /// The newest whole sky, as the report every fix shares until the sky changes; `nil` before
    /// the first whole GSV group.
    private(set) var report: ReceiverReport?
    /// ``report``'s sky as made, to tell a change without reading it back from the report (which
    /// keeps it packed).
    private var reported: ReceiverReport.Sky?

    /// A new epoch begins: its first GSV group and its first GSA start afresh.
    mutating func beginEpoch() {
        epochHasGroup = false
        epochHasGSA = false
    }

    mutating func add(_ gsa: NMEASentence.GSA) {
        if !epochHasGSA {
            epochHasGSA = true
            used = []
            dilutions = [:]
        }
        for id in gsa.satellites {
            guard let identity = Self.identify(id, talker: gsa.talker, system: gsa.systemID)?.identity else { continue }
            used.insert(identity)
        }
        if let pdop = gsa.pdop { dilutions[.pdop] = pdop }
        if let hdop = gsa.hdop { dilutions[.hdop] = hdop }
        if let vdop = gsa.vdop { dilutions[.vdop] = vdop }
    }

    /// GGA's HDOP, newer than the GSA's when it comes after it (as gpsd takes it).
    mutating func add(_ gga: NMEASentence.GGA) {
        if let hdop = gga.hdop { dilutions[.hdop] = hdop }
    }

    mutating func add(_ gsv: NMEASentence.GSV) {
        if gsv.number == 1 {
            group = Group(talker: gsv.talker, signalID: gsv.signalID, count: gsv.count, received: 0, satellites: [])
        }
        guard var current = group, current.talker == gsv.talker, current.count == gsv.count,
            current.received + 1 == gsv.number
        else {
            group = nil  // a sentence went missing: the group says nothing whole
            return
        }
        current.received += 1
        current.satellites += gsv.satellites.map { ($0, gsv.signalID) }
        guard current.received == current.count else {
            group = current
            return
        }
        group = nil
        let key = "\(current.talker.rawValue)/\(current.signalID ?? 0)"
        if !epochHasGroup || accumulatedGroups.contains(key) {
            accumulated = []
            accumulatedGroups = []
        }
        epochHasGroup = true
        accumulatedGroups.append(key)
        for (satellite, signalID) in current.satellites {
            guard let (prn, identity) = Self.identify(satellite.id, talker: current.talker, system: nil) else { continue }
            var signalIdentity = identity
            signalIdentity.signalID = Self.signal(signalID)
            accumulated.append(
                Satellite(
                    id: prn, elevation: satellite.elevation.map(Double.init), azimuth: satellite.azimuth.map(Double.init),
                    signal: satellite.signal.map(Double.init), used: false, signalIdentity: signalIdentity))
        }
        // No satellite with an azimuth: what SiRF receivers send when they see none (gpsd's
        // rule), an empty sky.
        let sane = accumulated.contains { ($0.azimuth ?? 0) != 0 }
        let sky = ReceiverReport.Sky(
            dilutions: dilutions,
            satellites: !sane ? [] : accumulated.map { satellite in
                var satellite = satellite
                if let identity = satellite.signalIdentity, (satellite.signal ?? 0) > 0 {
                    satellite.used = used.contains(Satellite.SignalIdentity(gnssID: identity.gnssID, svID: identity.svID))
                }
                return satellite
            })
        if reported != sky {
            var made = ReceiverReport()
            made.sky = sky
            report = made
            reported = sky
        }
    }

    // MARK: - Numbering

    /// gpsd's number (`PRN`: NMEA 4.0's extended IDs) and identity (u-blox's `gnssid`, `svid`)
    /// of the satellite an NMEA sentence calls `id`, or `nil` for an ID no system uses.
    ///
    /// - Parameters:
    ///   - talker: the sentence's talker: IDs 1…32 from `GA`, `GB`/`BD`/`PQ`, `GL` and
    ///     `GQ`/`QZ` are Galileo, BeiDou, GLONASS and QZSS satellites (NMEA 4.10 numbering).
    ///   - system: NMEA 4.10's system ID (a GSA's last field), which decides over the talker.
    static func identify(_ id: Int, talker: NMEATalker, system: Int?) -> (prn: Int, identity: Satellite.SignalIdentity)? {
        func make(_ prn: Int, _ gnss: GNSS, _ svID: Int) -> (prn: Int, identity: Satellite.SignalIdentity) {
            (prn, Satellite.SignalIdentity(gnssID: gnss.rawValue, svID: svID))
        }
        guard id >= 1 else { return nil }
        // Within a system's own range, NMEA 4.10 numbers from 1; else the NMEA 4.0 ranges hold.
        switch system ?? talker.system {
        case 3? where id <= 36: return make(300 + id, .galileo, id)
        case 4? where id <= 63: return make(400 + id, .beidou, id)
        case 2? where id <= 32: return make(64 + id, .glonass, id)
        case 5? where id <= 10: return make(192 + id, .qzss, id)
        default: break
        }
        switch id {
        case 1...32: return make(id, .gps, id)
        case 33...64: return make(id, .sbas, id + 87)
        case 65...96: return make(id, .glonass, id - 64)
        case 120...158: return make(id, .sbas, id)
        case 173...182: return make(id, .imes, id - 172)
        case 193...199: return make(id, .qzss, id - 192)
        case 201...237: return make(id + 200, .beidou, id - 200)
        case 301...336: return make(id, .galileo, id - 300)
        case 401...463: return make(id, .beidou, id - 400)
        default: return nil
        }
    }

    /// u-blox's signal ID (gpsd's `sigid`) for NMEA 4.10's signal ID, as gpsd 3.22 translates it
    /// whatever the constellation: 2 → 5 (E5), 3 → 2 (B2, L2 OF), 5 → 4 (L2 CM), 6 → 3 (L2 CL),
    /// anything else 0 (the system's first signal).
    static func signal(_ nmea: Int?) -> Int {
        switch nmea {
        case 2?: 5
        case 3?: 2
        case 5?: 4
        case 6?: 3
        default: 0
        }
    }

    /// u-blox's constellation numbers, as gpsd's `gnssid`.
    enum GNSS: Int {
        case gps = 0, sbas = 1, galileo = 2, beidou = 3, imes = 4, qzss = 5, glonass = 6
    }
}

extension NMEATalker {
    /// The NMEA 4.10 system ID a constellation's own talker implies (`GL` 2, `GA` 3, `GB`, `BD`
    /// and Quectel's `PQ` 4, `GQ` and `QZ` 5); `nil` for `GP`, `GN` and the rest.
    var system: Int? {
        switch rawValue {
        case "GL": 2
        case "GA": 3
        case "GB", "BD", "PQ": 4
        case "GQ", "QZ": 5
        default: nil
        }
    }
}
