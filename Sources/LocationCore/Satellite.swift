/// A navigation satellite in view of a receiver: what NMEA's GSV and GSA and gpsd's `SKY`
/// report of it, for a simulated sky (a player's) and a real one (a relayed receiver's) alike.
///
/// Units are degrees and dB-Hz. A real receiver may leave elevation, azimuth or signal out; a
/// satellite it tracks without a signal reading has `signal == nil`.
public struct Satellite: Sendable, Hashable, Codable {
    /// The satellite's ID as NMEA 2.x–4.0 numbers it (gpsd's `PRN`: GPS 1…32, SBAS 33…64 and
    /// 120…158, GLONASS 65…96, and so on).
    public var id: Int
    /// Elevation in degrees, -90…90, or `nil` when not reported.
    public var elevation: Double?
    /// Azimuth in degrees from true north, 0…360, or `nil` when not reported.
    public var azimuth: Double?
    /// Signal-to-noise ratio in dB-Hz, or `nil` when not tracked.
    public var signal: Double?
    /// Whether the fix used it (GSA lists it, GGA counts it).
    public var used: Bool
    /// The receiver's own numbering, when it gave one (gpsd's `gnssid`, `svid`, `sigid`,
    /// `freqid` and `health`, u-blox's scheme); `nil` for a simulated satellite.
    public var signalIdentity: SignalIdentity?

    /// gpsd's u-blox-style identity of a satellite's signal.
    public struct SignalIdentity: Sendable, Hashable, Codable {
        /// The constellation: 0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou, 4 IMES, 5 QZSS, 6 GLONASS, 7 NavIC.
        public var gnssID: Int
        /// The satellite's number within its constellation.
        public var svID: Int
        /// The signal (0 for the constellation's first, L1 C/A on GPS).
        public var signalID: Int
        /// GLONASS's frequency slot plus 7, 0…13, or `nil` when not GLONASS or not known.
        public var frequencyID: Int?
        /// 0 unknown, 1 healthy, 2 unhealthy.
        public var health: Int

        /// Creates an identity; each parameter is the property of the same name.
        public init(gnssID: Int, svID: Int, signalID: Int = 0, frequencyID: Int? = nil, health: Int = 0) {
            self.gnssID = gnssID
            self.svID = svID
            self.signalID = signalID
            self.frequencyID = frequencyID
            self.health = health
        }
    }

    /// Creates a satellite; each parameter is the property of the same name.
    public init(
        id: Int, elevation: Double?, azimuth: Double?, signal: Double?, used: Bool, signalIdentity: SignalIdentity? = nil
    ) {
        self.id = id
        self.elevation = elevation
        self.azimuth = azimuth
        self.signal = signal
        self.used = used
        self.signalIdentity = signalIdentity
    }
}
