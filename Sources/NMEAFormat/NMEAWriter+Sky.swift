public import LocationCore

/// How the writer lays a sky out in GSA and GSV, the inverse of what ``NMEAReader`` (and gpsd
/// 3.22) read back: each satellite's signal goes to its constellation's talker, numbered there as
/// gpsd reads that talker, and what gpsd's NMEA cannot name is left out.
///
/// The layout is NMEA 4.0's, a GSA and GSV groups for each talker (`GP` for GPS, SBAS, QZSS and
/// IMES by their NMEA 4.0 numbers; `GL` 65…96; `GA` and `GB` numbered from 1), with NMEA 4.10's
/// signal ID in GSV only for a sky of several signals. Tried against gpsd 3.22: a GSA with NMEA
/// 4.10's system ID marks no Galileo or BeiDou satellite used, whether numbered from 1 or as 301…;
/// a `GA` or `GB` GSV numbered 301… or 401… is read 200 off; a `GQ` GSV is not read at all.
extension NMEAWriter {
    /// The most satellites one GSV group can tell: 9 sentences of 4. A sky of several
    /// constellations or signals is a group for each.
    public static let maximumSatellitesInView = 36

    /// The most satellites one GSA can list as used. A sky of several constellations is a GSA
    /// for each.
    public static let maximumSatellitesInUse = 12

    // What GSV can say of a satellite: whole degrees of elevation and azimuth (360 as 0), whole dB-Hz.
    private static let elevations = 0.0...90
    private static let azimuths = 0.0...360
    private static let signals = 0.0...99

    /// What of a receiver's sky GSA and GSV can tell, in the sky's order:
    /// - a satellite gpsd's NMEA can number (GPS, SBAS, GLONASS, Galileo, BeiDou, QZSS 193…199,
    ///   IMES; not NavIC), on a signal it can name (u-blox signal IDs 0, 2, 3, 4, 5);
    /// - at most ``maximumSatellitesInView`` for each constellation and signal (the used ones first,
    ///   then the strongest; the rest are left out), of which the first ``maximumSatellitesInUse``
    ///   used of each constellation stay used;
    /// - an elevation below the horizon or an azimuth or signal out of range left empty.
    public static func tellable(_ sky: [Satellite]) -> [Satellite] {
        var kept: [(satellite: Satellite, placement: Placement)] = sky.compactMap { satellite in
            guard let placement = placement(of: satellite) else { return nil }
            var satellite = satellite
            satellite.elevation = satellite.elevation.flatMap { elevations.contains($0) ? $0 : nil }
            satellite.azimuth = satellite.azimuth.flatMap { azimuths.contains($0) ? $0 : nil }
            satellite.signal = satellite.signal.flatMap { signals.contains($0) ? $0 : nil }
            return (satellite, placement)
        }
        var dropped = Set<Int>()
        // No group can be over the limit when the whole sky is not (every player's own sky).
        let groups = kept.count <= maximumSatellitesInView ? [] : Array(Dictionary(grouping: kept.indices) { kept[$0].placement.group }.values)
        for indices in groups where indices.count > maximumSatellitesInView {
            let order = indices.sorted { a, b in
                let (x, y) = (kept[a].satellite, kept[b].satellite)
                return (x.used ? 1 : 0, x.signal ?? -1) > (y.used ? 1 : 0, y.signal ?? -1)
            }
            dropped.formUnion(order.dropFirst(maximumSatellitesInView))
        }
        kept = kept.indices.filter { !dropped.contains($0) }.map { kept[$0] }
        var listed: [Int: Set<Int>] = [:]  // by GSA
        for index in kept.indices where kept[index].satellite.used {
            let placement = kept[index].placement
            if listed[placement.gsa, default: []].contains(placement.id) { continue }
            if listed[placement.gsa, default: []].count == maximumSatellitesInUse {
                kept[index].satellite.used = false
            } else {
                listed[placement.gsa, default: []].insert(placement.id)
            }
        }
        return kept.map(\.satellite)
    }

    /// Where one satellite's signal goes in NMEA.
    struct Placement: Hashable {
        /// Its constellation's talker, and the order of its GSA: 0 `GP`, 1 `GL`, 2 `GA`, 3 `GB`.
        var gsa: Int
        /// Its number in that talker's sentences.
        var id: Int
        /// NMEA 4.10's signal ID: 1 for a constellation's first signal.
        var signal: Int

        /// The talkers, in GSA order.
        static let talkers: [NMEATalker] = [.gps, .glonass, .galileo, .beidou]

        /// The GSV group it is told in.
        var group: Group { Group(gsa: gsa, signal: signal) }

        /// A GSV group: a talker's satellites on one signal. GPS first: gpsd 3.22 starts its sky
        /// afresh at a `GP` group.
        struct Group: Hashable, Comparable {
            var gsa: Int
            var signal: Int
            var talker: NMEATalker { Placement.talkers[gsa] }

            static func < (a: Self, b: Self) -> Bool { (a.gsa, a.signal) < (b.gsa, b.signal) }
        }
    }

    /// `satellite`'s place in NMEA, or `nil` when gpsd could not read it back as the same
    /// satellite and signal. A satellite without the receiver's own numbering is placed by its
    /// NMEA 4.0 number (a simulated sky's GPS satellites).
    static func placement(of satellite: Satellite) -> Placement? {
        guard let identity = satellite.signalIdentity ?? SkyAssembler.identify(satellite.id, talker: .gps, system: nil)?.identity,
            let signal = nmeaSignal(identity.signalID)
        else { return nil }
        let svID = identity.svID
        let place: (gsa: Int, id: Int)
        switch SkyAssembler.GNSS(rawValue: identity.gnssID) {
        case .gps?: place = (0, svID)
        // By the NMEA 4.0 number (SBAS 33…64 or 120…158, QZSS 193…199, IMES 173…182).
        case .sbas?: place = (0, satellite.id)
        case .qzss?: place = (0, 192 + svID)
        case .imes?: place = (0, 172 + svID)
        case .glonass?: place = (1, 64 + svID)
        case .galileo?: place = (2, svID)
        case .beidou?: place = (3, svID)
        case nil: return nil
        }
        // Read back by gpsd's rules, the same satellite, or NMEA cannot say it.
        guard let read = SkyAssembler.identify(place.id, talker: Placement.talkers[place.gsa], system: nil)?.identity,
            read.gnssID == identity.gnssID, read.svID == svID
        else { return nil }
        return Placement(gsa: place.gsa, id: place.id, signal: signal)
    }

    /// NMEA 4.10's signal ID for u-blox's (gpsd's `sigid`), as gpsd 3.22 reads it back
    /// (``SkyAssembler/signal(_:)``): 0 → 1, 5 → 2, 2 → 3, 4 → 5, 3 → 6; `nil` for the rest.
    static func nmeaSignal(_ sigid: Int) -> Int? {
        switch sigid {
        case 0: 1
        case 5: 2
        case 2: 3
        case 4: 5
        case 3: 6
        default: nil
        }
    }

    /// A sky as GSAs and GSV groups.
    struct SkyLayout {
        /// One GSA: the satellites of one talker the fix used.
        struct Used {
            var talker: NMEATalker
            var ids: [Int]
        }

        /// One GSV group.
        struct Group {
            var talker: NMEATalker
            var signal: Int
            var satellites: [NMEASentence.GSV.Satellite]
        }

        /// `GP`'s satellites on their first signal alone: one GSA and one GSV group from the
        /// writer's own talker, as receivers of one constellation write them.
        var isSingle: Bool
        /// A GSA for each talker in view (one, when single), `GP` first.
        var used: [Used]
        /// A GSV group for each constellation and signal, GPS first.
        var groups: [Group]
        /// Whether GSV carries NMEA 4.10's signal ID: when any satellite is on a signal other
        /// than its constellation's first.
        var namesSignals: Bool
        /// The satellites used, each counted once (GGA's count).
        var usedCount: Int { used.reduce(0) { $0 + $1.ids.count } }

        /// `sky` laid out, every satellite checked.
        ///
        /// - Parameter hasPosition: Without a position, no satellite is used.
        /// - Throws: ``NMEAError/Code/invalidValue`` naming the satellite and what is wrong.
        init(_ sky: [Satellite], hasPosition: Bool) throws(NMEAError) {
            var groups: [Placement.Group: [NMEASentence.GSV.Satellite]] = [:]
            var used: [Int: [Int]] = [:]  // by GSA
            for satellite in sky {
                guard let placement = NMEAWriter.placement(of: satellite) else {
                    let identity = satellite.signalIdentity.map { " (gnssid \($0.gnssID), svid \($0.svID), sigid \($0.signalID))" } ?? ""
                    throw NMEAWriter.invalid(
                        "satellite \(satellite.id)\(identity) is none that gpsd's NMEA can number, on no signal it can name")
                }
                if let elevation = satellite.elevation, !elevations.contains(elevation) {
                    throw NMEAWriter.invalid("satellite \(satellite.id): elevation \(elevation) is outside 0…90")
                }
                if let azimuth = satellite.azimuth, !azimuths.contains(azimuth) {
                    throw NMEAWriter.invalid("satellite \(satellite.id): azimuth \(azimuth) is outside 0…360")
                }
                if let signal = satellite.signal, !signals.contains(signal) {
                    throw NMEAWriter.invalid("satellite \(satellite.id): signal-to-noise ratio \(signal) is outside 0…99")
                }
                let azimuth = satellite.azimuth.map { Int($0.rounded()) }
                groups[placement.group, default: []].append(
                    .init(
                        id: placement.id, elevation: satellite.elevation.map { Int($0.rounded()) },
                        azimuth: azimuth == 360 ? 0 : azimuth, signal: satellite.signal.map { Int($0.rounded()) }))
                if satellite.used, hasPosition, !used[placement.gsa, default: []].contains(placement.id) {
                    used[placement.gsa, default: []].append(placement.id)
                }
            }
            for (group, satellites) in groups where satellites.count > maximumSatellitesInView {
                throw NMEAWriter.invalid(
                    "\(satellites.count) satellites in view from \(group.talker) on signal \(group.signal); a GSV group tells at most \(maximumSatellitesInView)")
            }
            for (gsa, ids) in used where ids.count > maximumSatellitesInUse {
                throw NMEAWriter.invalid(
                    "\(ids.count) satellites used from \(Placement.talkers[gsa]); a GSA lists at most \(maximumSatellitesInUse)")
            }
            let order = groups.keys.sorted()
            isSingle = order.allSatisfy { $0.gsa == 0 && $0.signal == 1 }
            namesSignals = order.contains { $0.signal != 1 }
            self.groups = order.map { Group(talker: $0.talker, signal: $0.signal, satellites: groups[$0] ?? []) }
            let talkers = isSingle ? [0] : Set(order.map(\.gsa)).sorted()
            self.used = talkers.map { Used(talker: Placement.talkers[$0], ids: used[$0] ?? []) }
        }
    }
}
