/// What a GNSS receiver reported beyond what every source has: the members of gpsd's `TPV`
/// that ``Fix`` has no field of its own for (its error estimates per axis, magnetic variation,
/// fix status, ECEF vectors, differential age, depth, wind, the map datum) and its sky (``Sky``:
/// satellites and dilutions from gpsd's `SKY`), kept so that a relayed receiver reaches its
/// clients whole.
///
/// gpsd's north-east-down members (`velN`, `velE`, `velD`, `relN`, `relE`, `relD`) are not
/// among them: libgps 3.22 reads `velN`/`velE`/`velD` into the fields of `relN`/`relE`/`relD`,
/// so a client of gpsd cannot tell the two apart (the velocity is in ``Fix/speed``,
/// ``Fix/course`` and the climb).
///
/// Names, units and meanings are gpsd's (gpsd_json(5)): metres, metres per second, degrees,
/// seconds. Only a real receiver has one; a simulated or replayed fix has none, and a source
/// that moves a fix must not keep the report of the position it left.
///
/// Stored behind one reference, so a fix costs a word for it whether it has one or not.
public struct ReceiverReport: Sendable, Hashable, Codable {
    /// A `TPV` member, named as gpsd names it.
    public enum Member: String, Sendable, Hashable, Codable, CaseIterable, CodingKeyRepresentable {
        /// gpsd's fix status: 1 GPS, 2 DGPS, 3 RTK fixed, 4 RTK float, 5 dead reckoning,
        /// 6 GNSS and dead reckoning, 7 time only, 8 simulated, 9 PPS.
        case status
        /// Leap seconds between GPS time and UTC, when the receiver says.
        case leapseconds
        /// Time uncertainty, seconds.
        case ept
        /// Longitude and latitude errors, metres.
        case epx, epy
        /// Course, speed and climb errors (degrees, m/s, m/s).
        case epd, eps, epc
        /// Climb (vertical speed), m/s, positive up.
        case climb
        /// Course over ground relative to magnetic north, and the magnetic variation, degrees.
        case magtrack, magvar
        /// Earth-centred, earth-fixed position (m) and velocity (m/s), with their accuracies.
        case ecefx, ecefy, ecefz, ecefvx, ecefvy, ecefvz, ecefpAcc, ecefvAcc
        /// Spherical (3D) position error, metres.
        case sep
        /// Depth below the transducer, metres (a marine instrument on the same bus).
        case depth
        /// Age of the differential corrections (seconds) and the station sending them.
        case dgpsAge, dgpsSta
        /// Wind angle (magnetic, relative, true; degrees) and speed (relative, true; m/s).
        case wanglem, wangler, wanglet, wspeedr, wspeedt
    }

    /// What the report holds, never changed once made (a change makes a new one): one word in
    /// every ``Fix``. The sky is kept packed where it fits (``StoredSky``).
    private final class Storage: Sendable {
        let values: [Member: Double]
        let sky: StoredSky?
        let datum: String?
        init(values: [Member: Double], sky: StoredSky?, datum: String?) {
            self.values = values
            self.sky = sky
            self.datum = datum
        }
        convenience init(values: [Member: Double], sky: Sky?, datum: String?) {
            self.init(values: values, sky: sky.map(StoredSky.init), datum: datum)
        }
    }

    private var storage: Storage

    /// The members the receiver gave, each a finite number.
    public var values: [Member: Double] { storage.values }

    /// The receiver's sky as its newest `SKY` before this fix told it, or `nil` when it has sent
    /// none or the newest could not be read.
    public var sky: Sky? {
        get { storage.sky?.unpacked }
        set { storage = Storage(values: storage.values, sky: newValue, datum: storage.datum) }
    }

    /// The map datum the receiver names (gpsd's `datum`, from an NMEA `DTM` sentence: `"WGS72"`,
    /// or the receiver's own code for one gpsd does not know), or `nil` when it names none. An
    /// empty name is none.
    public var datum: String? {
        get { storage.datum }
        set { storage = Storage(values: storage.values, sky: storage.sky, datum: newValue.flatMap { $0.isEmpty ? nil : $0 }) }
    }

    /// ``sky``'s dilutions alone, without reading its satellites back (the sky is kept packed):
    /// for a writer that needs the DOPs of every fix.
    package var skyDilutions: [Sky.Dilution: Double]? { storage.sky?.dilutions }

    /// What a receiver's `SKY` report says: its satellites in view and the dilutions of precision.
    public struct Sky: Sendable, Hashable, Codable {
        /// A dilution of precision, named as gpsd names it.
        public enum Dilution: String, Sendable, Hashable, Codable, CaseIterable, CodingKeyRepresentable {
            case xdop, ydop, vdop, tdop, hdop, gdop, pdop
        }

        /// The dilutions the receiver gave, each a finite number: a value that is not finite,
        /// given here or to ``init(dilutions:satellites:)``, is left out.
        public var dilutions: [Dilution: Double] {
            didSet {
                if dilutions.values.contains(where: { !$0.isFinite }) { dilutions = dilutions.filter(\.value.isFinite) }
            }
        }
        /// The satellites in view, in the receiver's order.
        public var satellites: [Satellite]

        /// Creates a sky; each parameter is the property of the same name.
        public init(dilutions: [Dilution: Double] = [:], satellites: [Satellite] = []) {
            self.dilutions = dilutions.filter(\.value.isFinite)
            self.satellites = satellites
        }
    }

    /// An empty report.
    public init() { storage = Storage(values: [:], sky: nil as StoredSky?, datum: nil) }

    /// The value of `member`, or `nil` when the receiver did not give it. Setting a value that
    /// is not finite removes the member.
    public subscript(member: Member) -> Double? {
        get { storage.values[member] }
        set {
            var values = storage.values
            values[member] = newValue.flatMap { $0.isFinite ? $0 : nil }
            storage = Storage(values: values, sky: storage.sky, datum: storage.datum)
        }
    }

    /// `true` when the receiver gave none of the members, no sky and no datum.
    public var isEmpty: Bool { storage.values.isEmpty && storage.sky == nil && storage.datum == nil }

    public static func == (lhs: ReceiverReport, rhs: ReceiverReport) -> Bool {
        lhs.storage === rhs.storage || (lhs.values == rhs.values && lhs.sky == rhs.sky && lhs.datum == rhs.datum)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(values)
        hasher.combine(sky)
        hasher.combine(datum)
    }

    private enum CodingKeys: String, CodingKey {
        case values, sky, datum
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storage = Storage(
            values: try container.decode([Member: Double].self, forKey: .values).filter(\.value.isFinite),
            sky: try container.decodeIfPresent(Sky.self, forKey: .sky),
            datum: try container.decodeIfPresent(String.self, forKey: .datum).flatMap { $0.isEmpty ? nil : $0 })
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(values, forKey: .values)
        try container.encodeIfPresent(sky, forKey: .sky)
        try container.encodeIfPresent(datum, forKey: .datum)
    }
}
