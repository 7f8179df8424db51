extension ReceiverReport {
    /// A sky as a report keeps it: packed, 24 bytes a satellite and the dilutions inline, when
    /// every value fits (every sky read from NMEA does: whole degrees and dB-Hz, small numbers);
    /// otherwise as it was given. A fix keeps its receiver's report, so a replayed log holds one
    /// sky per point: packed, a day's log at 1 Hz with 24 satellites in view holds about 60 MB of
    /// skies instead of 235 MB (docs/benchmarks/replay.md).
    ///
    /// Lossless: ``unpacked`` is equal to the sky packed, value for value.
    enum StoredSky: Sendable {
        case packed(PackedSky)
        case plain(Sky)

        init(_ sky: Sky) {
            self = PackedSky(sky).map(StoredSky.packed) ?? .plain(sky)
        }

        var unpacked: Sky {
            switch self {
            case .packed(let packed): packed.sky
            case .plain(let sky): sky
            }
        }

        /// The sky's dilutions, without unpacking its satellites.
        var dilutions: [Sky.Dilution: Double] {
            switch self {
            case .packed(let packed): packed.dilutionValues
            case .plain(let sky): sky.dilutions
            }
        }
    }

    /// A sky whose every value fits: each dilution a `Double` in its slot, each satellite a
    /// ``PackedSatellite``.
    struct PackedSky: Sendable {
        /// ``Sky/Dilution/allCases``'s values in their order; a slot whose bit is clear in
        /// `present` has none.
        private var dilutions: (Double, Double, Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0, 0, 0)
        private var present: UInt8 = 0
        private let satellites: ContiguousArray<PackedSatellite>

        /// `nil` when a satellite does not fit (``PackedSatellite/init(_:)``).
        init?(_ sky: Sky) {
            var packed = ContiguousArray<PackedSatellite>()
            packed.reserveCapacity(sky.satellites.count)
            for satellite in sky.satellites {
                guard let one = PackedSatellite(satellite) else { return nil }
                packed.append(one)
            }
            satellites = packed
            withUnsafeMutableBytes(of: &dilutions) { slots in
                let values = slots.bindMemory(to: Double.self)
                for (index, dilution) in Sky.Dilution.allCases.enumerated() {
                    guard let value = sky.dilutions[dilution] else { continue }
                    values[index] = value
                    present |= 1 << index
                }
            }
        }

        var dilutionValues: [Sky.Dilution: Double] {
            var told: [Sky.Dilution: Double] = [:]
            withUnsafeBytes(of: dilutions) { slots in
                let values = slots.bindMemory(to: Double.self)
                for (index, dilution) in Sky.Dilution.allCases.enumerated() where present & (1 << index) != 0 {
                    told[dilution] = values[index]
                }
            }
            return told
        }

        var sky: Sky { Sky(dilutions: dilutionValues, satellites: satellites.map(\.satellite)) }
    }

    /// One satellite in 24 bytes: its numbers in the narrowest integers gpsd's own fit (PRN,
    /// `gnssid`, `svid`, `sigid`, `freqid`, `health`), elevation, azimuth and signal as `Float`,
    /// and a bit for each optional value present.
    struct PackedSatellite: Sendable {
        private let id: Int32
        private let svID: Int16
        private let gnssID: Int8
        private let signalID: Int8
        private let frequencyID: Int8
        private let health: Int8
        private let flags: UInt8
        private let elevation: Float
        private let azimuth: Float
        private let signal: Float

        private static let used: UInt8 = 1
        private static let identity: UInt8 = 2
        private static let frequency: UInt8 = 4
        private static let hasElevation: UInt8 = 8
        private static let hasAzimuth: UInt8 = 16
        private static let hasSignal: UInt8 = 32

        /// `nil` when a number is out of its integer's range, or a measurement is not exactly a
        /// `Float` (a NaN, or a fraction `Float` cannot hold).
        init?(_ satellite: Satellite) {
            func narrow<Narrow: FixedWidthInteger>(_ value: Int, as _: Narrow.Type) -> Narrow? { Narrow(exactly: value) }
            func float(_ value: Double?) -> Float?? {
                guard let value else { return .some(nil) }
                let narrowed = Float(value)
                return Double(narrowed) == value ? .some(narrowed) : nil
            }
            guard let id = narrow(satellite.id, as: Int32.self), let elevation = float(satellite.elevation),
                let azimuth = float(satellite.azimuth), let signal = float(satellite.signal)
            else { return nil }
            var flags: UInt8 = satellite.used ? Self.used : 0
            var svID: Int16 = 0
            var gnssID: Int8 = 0, signalID: Int8 = 0, frequencyID: Int8 = 0, health: Int8 = 0
            if let identity = satellite.signalIdentity {
                guard let sv = narrow(identity.svID, as: Int16.self), let gnss = narrow(identity.gnssID, as: Int8.self),
                    let sig = narrow(identity.signalID, as: Int8.self), let state = narrow(identity.health, as: Int8.self)
                else { return nil }
                (svID, gnssID, signalID, health) = (sv, gnss, sig, state)
                flags |= Self.identity
                if let slot = identity.frequencyID {
                    guard let narrowed = narrow(slot, as: Int8.self) else { return nil }
                    frequencyID = narrowed
                    flags |= Self.frequency
                }
            }
            if elevation != nil { flags |= Self.hasElevation }
            if azimuth != nil { flags |= Self.hasAzimuth }
            if signal != nil { flags |= Self.hasSignal }
            self.id = id
            self.svID = svID
            self.gnssID = gnssID
            self.signalID = signalID
            self.frequencyID = frequencyID
            self.health = health
            self.flags = flags
            self.elevation = elevation ?? 0
            self.azimuth = azimuth ?? 0
            self.signal = signal ?? 0
        }

        var satellite: Satellite {
            let identity =
                flags & Self.identity == 0
                ? nil
                : Satellite.SignalIdentity(
                    gnssID: Int(gnssID), svID: Int(svID), signalID: Int(signalID),
                    frequencyID: flags & Self.frequency == 0 ? nil : Int(frequencyID), health: Int(health))
            return Satellite(
                id: Int(id), elevation: flags & Self.hasElevation == 0 ? nil : Double(elevation),
                azimuth: flags & Self.hasAzimuth == 0 ? nil : Double(azimuth),
                signal: flags & Self.hasSignal == 0 ? nil : Double(signal), used: flags & Self.used != 0,
                signalIdentity: identity)
        }
    }
}
