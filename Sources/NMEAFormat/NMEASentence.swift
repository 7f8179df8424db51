public import LocationCore

/// One decoded NMEA 0183 sentence of a type this module supports: RMC, GGA, VTG, GSA, GSV or DTM.
///
/// Parse a single line with ``init(parsing:requiresChecksum:)`` and write one with
/// ``encoded()``. To turn a stream of sentences into ``/LocationCore/Fix`` values use ``NMEAReader``; to turn
/// fixes into sentences use ``NMEAWriter``.
///
/// Fields that are empty in the sentence are `nil` here. Units are NMEA's own (knots, km/h,
/// metres, degrees); ``NMEAReader`` converts to ``/LocationCore/Fix``'s units.
///
/// ```swift
/// let s = try NMEASentence(parsing: "$GNGGA,000941.00,4404.13387,N,12118.85628,W,1,12,1.01,1144.8,M,-21.4,M,,*4D")
/// if case .gga(let gga) = s { gga.altitudeMSL }   // 1144.8
/// ```
public enum NMEASentence: Sendable, Hashable {
    /// Recommended minimum data: time, date, status, position, speed, course.
    case rmc(RMC)
    /// Fix data: time, position, fix quality, satellites, HDOP, altitude.
    case gga(GGA)
    /// Course and speed over ground.
    case vtg(VTG)
    /// DOPs, fix mode and the satellites used.
    case gsa(GSA)
    /// Satellites in view: up to four per sentence.
    case gsv(GSV)
    /// The datum positions are given in.
    case dtm(DTM)

    /// The talker of whichever sentence this is.
    public var talker: NMEATalker {
        switch self {
        case .rmc(let s): s.talker
        case .gga(let s): s.talker
        case .vtg(let s): s.talker
        case .gsa(let s): s.talker
        case .gsv(let s): s.talker
        case .dtm(let s): s.talker
        }
    }

    /// The sentence type (`RMC`, `GGA`, `VTG`, `GSA`, `GSV`, `DTM`).
    public var type: NMEASentenceType {
        switch self {
        case .rmc: .rmc
        case .gga: .gga
        case .vtg: .vtg
        case .gsa: .gsa
        case .gsv: .gsv
        case .dtm: .dtm
        }
    }

    /// `$GPRMC,…`: recommended minimum data (NMEA 2.3 layout with 12 fields; 13 with NMEA 4.10's
    /// navigational status).
    public struct RMC: Sendable, Hashable {
        /// Who sent it (`GP`, `GN`, …).
        public var talker: NMEATalker
        /// UTC time of the fix; `nil` when the field is empty.
        public var time: NMEATimeOfDay?
        /// Status `A` (active, data valid) is `true`; `V` (void, a warning) is `false`.
        public var isActive: Bool
        /// The position; `nil` when the latitude and longitude fields are empty.
        public var coordinate: Coordinate?
        /// Speed over ground in knots, ≥ 0.
        public var speedKnots: Double?
        /// Course over ground in degrees from true north, 0 ..< 360.
        public var courseTrue: Double?
        /// UTC date.
        public var date: NMEADate?
        /// Magnetic variation in degrees, east positive.
        public var magneticVariation: Double?
        /// Positioning mode (NMEA 2.3 and later); `nil` in older sentences or when empty.
        public var mode: NMEAModeIndicator?
        /// Navigational status letter of NMEA 4.10 (`S` safe, `C` caution, `U` unsafe,
        /// `V` not valid); `nil` when absent.
        public var navigationalStatus: Character?

        /// Creates an RMC sentence; each parameter is the property of the same name (units there).
        /// Values are checked when the sentence is encoded (``NMEASentence/encoded()``).
        public init(
            talker: NMEATalker = .gps, time: NMEATimeOfDay?, isActive: Bool, coordinate: Coordinate?,
            speedKnots: Double? = nil, courseTrue: Double? = nil, date: NMEADate?,
            magneticVariation: Double? = nil, mode: NMEAModeIndicator? = nil, navigationalStatus: Character? = nil
        ) {
            self.talker = talker
            self.time = time
            self.isActive = isActive
            self.coordinate = coordinate
            self.speedKnots = speedKnots
            self.courseTrue = courseTrue
            self.date = date
            self.magneticVariation = magneticVariation
            self.mode = mode
            self.navigationalStatus = navigationalStatus
        }
    }

    /// `$GPGGA,…`: fix data (14 fields).
    public struct GGA: Sendable, Hashable {
        /// Who sent it (`GP`, `GN`, …).
        public var talker: NMEATalker
        /// UTC time of the fix; `nil` when the field is empty.
        public var time: NMEATimeOfDay?
        /// The position; `nil` when the latitude and longitude fields are empty.
        public var coordinate: Coordinate?
        /// Fix quality; ``NMEAFixQuality/invalid`` means no fix.
        public var quality: NMEAFixQuality
        /// Satellites used in the solution, ≥ 0.
        public var satellitesInUse: Int?
        /// Horizontal dilution of precision (unitless).
        public var hdop: Double?
        /// Antenna altitude above mean sea level (the geoid), metres.
        public var altitudeMSL: Double?
        /// Geoid separation: the geoid's height above the WGS-84 ellipsoid, metres. Height above
        /// the ellipsoid = ``altitudeMSL`` + ``geoidSeparation``.
        public var geoidSeparation: Double?
        /// Age of the differential corrections, seconds.
        public var differentialAge: Double?
        /// Differential reference station ID (`0000`…`1023`), as sent.
        public var differentialStation: String?

        /// Creates a GGA sentence; each parameter is the property of the same name (units there).
        /// Values are checked when the sentence is encoded (``NMEASentence/encoded()``).
        public init(
            talker: NMEATalker = .gps, time: NMEATimeOfDay?, coordinate: Coordinate?, quality: NMEAFixQuality,
            satellitesInUse: Int? = nil, hdop: Double? = nil, altitudeMSL: Double? = nil,
            geoidSeparation: Double? = nil, differentialAge: Double? = nil, differentialStation: String? = nil
        ) {
            self.talker = talker
            self.time = time
            self.coordinate = coordinate
            self.quality = quality
            self.satellitesInUse = satellitesInUse
            self.hdop = hdop
            self.altitudeMSL = altitudeMSL
            self.geoidSeparation = geoidSeparation
            self.differentialAge = differentialAge
            self.differentialStation = differentialStation
        }
    }

    /// `$GPVTG,…`: course and speed over ground (8 fields, 9 with the NMEA 2.3 mode).
    public struct VTG: Sendable, Hashable {
        /// Who sent it (`GP`, `GN`, …).
        public var talker: NMEATalker
        /// Course over ground in degrees from true north, 0 ..< 360.
        public var courseTrue: Double?
        /// Course over ground in degrees from magnetic north, 0 ..< 360.
        public var courseMagnetic: Double?
        /// Speed over ground in knots, ≥ 0.
        public var speedKnots: Double?
        /// Speed over ground in km/h, ≥ 0.
        public var speedKilometersPerHour: Double?
        /// Positioning mode (NMEA 2.3 and later).
        public var mode: NMEAModeIndicator?

        /// Creates a VTG sentence; each parameter is the property of the same name (units there).
        /// Values are checked when the sentence is encoded (``NMEASentence/encoded()``).
        public init(
            talker: NMEATalker = .gps, courseTrue: Double? = nil, courseMagnetic: Double? = nil,
            speedKnots: Double? = nil, speedKilometersPerHour: Double? = nil, mode: NMEAModeIndicator? = nil
        ) {
            self.talker = talker
            self.courseTrue = courseTrue
            self.courseMagnetic = courseMagnetic
            self.speedKnots = speedKnots
            self.speedKilometersPerHour = speedKilometersPerHour
            self.mode = mode
        }
    }

    /// `$GPGSA,…`: DOPs and active satellites (17 fields; 18 with NMEA 4.10's system ID).
    ///
    /// Some receivers list more than 12 satellites; such sentences (more than 18 fields) are
    /// read with the DOPs taken from the last three fields.
    public struct GSA: Sendable, Hashable {
        /// How the receiver chooses between 2D and 3D.
        public enum Selection: Character, Sendable, Hashable {
            /// `A`: automatic.
            case automatic = "A"
            /// `M`: manual, forced 2D or 3D.
            case manual = "M"
        }

        /// Who sent it (`GP`, `GN`, …).
        public var talker: NMEATalker
        /// 2D/3D selection; `nil` when empty.
        public var selection: Selection?
        /// Fix type 1 (no fix), 2 (2D) or 3 (3D); `nil` when empty.
        public var fixMode: FixMode?
        /// IDs of the satellites used, in sentence order (empty slots dropped).
        public var satellites: [Int]
        /// Position dilution of precision.
        public var pdop: Double?
        /// Horizontal dilution of precision.
        public var hdop: Double?
        /// Vertical dilution of precision.
        public var vdop: Double?
        /// GNSS system ID of NMEA 4.10 (1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC…).
        public var systemID: Int?

        /// Creates a GSA sentence; each parameter is the property of the same name. Values are
        /// checked when the sentence is encoded (``NMEASentence/encoded()``).
        public init(
            talker: NMEATalker = .gps, selection: Selection? = .automatic, fixMode: FixMode?,
            satellites: [Int] = [], pdop: Double? = nil, hdop: Double? = nil, vdop: Double? = nil,
            systemID: Int? = nil
        ) {
            self.talker = talker
            self.selection = selection
            self.fixMode = fixMode
            self.satellites = satellites
            self.pdop = pdop
            self.hdop = hdop
            self.vdop = vdop
            self.systemID = systemID
        }
    }
}

extension NMEASentence {
    /// `$GPGSV,…`: satellites in view, up to four a sentence; a receiver tells a bigger sky in a
    /// group of sentences, ``number`` 1 to ``count``.
    ///
    /// Fields: the group's sentence count, this sentence's number, the satellites in view, then
    /// four fields a satellite (ID, elevation, azimuth, signal-to-noise ratio), and NMEA 4.10's
    /// signal ID last when present.
    public struct GSV: Sendable, Hashable {
        /// One satellite in view.
        public struct Satellite: Sendable, Hashable {
            /// The satellite's ID (a GPS PRN 1…32; other systems' ranges above).
            public var id: Int
            /// Elevation in whole degrees, 0…90; `nil` when empty.
            public var elevation: Int?
            /// Azimuth in whole degrees from true north, 0…359; `nil` when empty.
            public var azimuth: Int?
            /// Signal-to-noise ratio in dB-Hz, 0…99; `nil` when the satellite is not tracked.
            public var signal: Int?

            /// Creates a satellite; each parameter is the property of the same name.
            public init(id: Int, elevation: Int?, azimuth: Int?, signal: Int?) {
                self.id = id
                self.elevation = elevation
                self.azimuth = azimuth
                self.signal = signal
            }
        }

        /// Who sent it (`GP`, `GL`, …).
        public var talker: NMEATalker
        /// How many sentences the group has, 1…9.
        public var count: Int
        /// This sentence's place in the group, 1…``count``.
        public var number: Int
        /// Satellites in view, over the whole group.
        public var satellitesInView: Int
        /// This sentence's satellites (slots with an empty ID dropped): at most four by the
        /// standard, which is what encoding allows; some receivers put more in one sentence, and
        /// those are read.
        public var satellites: [Satellite]
        /// GNSS signal ID of NMEA 4.10 (one hex digit); `nil` when absent.
        public var signalID: Int?

        /// Creates a GSV sentence; each parameter is the property of the same name. Values are
        /// checked when the sentence is encoded (``NMEASentence/encoded()``).
        public init(
            talker: NMEATalker = .gps, count: Int, number: Int, satellitesInView: Int, satellites: [Satellite],
            signalID: Int? = nil
        ) {
            self.talker = talker
            self.count = count
            self.number = number
            self.satellitesInView = satellitesInView
            self.satellites = satellites
            self.signalID = signalID
        }
    }
}

extension NMEASentence {
    /// `$GPDTM,…`: the datum the receiver gives positions in (the local datum) and its offsets
    /// from a reference datum, for the sentences that follow (8 fields: local datum code,
    /// subdivision, latitude offset and N/S, longitude offset and E/W, altitude offset, reference
    /// datum code). Some receivers send fewer fields (`$GPDTM,W84,C`); the missing ones read as
    /// empty, as gpsd reads them.
    ///
    /// Datum codes: `W84` (WGS 84), `W72` (WGS 72), `S85` (SGS 85), `P90` (PE 90), `999` (user
    /// defined), or an IHO datum code. ``datumName`` is the local datum as gpsd 3.22 names it in a
    /// `TPV`'s `datum`, which is how ``NMEAReader`` reports it
    /// (``/LocationCore/ReceiverReport/datum``).
    public struct DTM: Sendable, Hashable {
        /// Who sent it (`GP`, `GN`, …).
        public var talker: NMEATalker
        /// The local datum's code, as sent; `nil` when empty.
        public var localDatum: String?
        /// The local datum's subdivision code, as sent; `nil` when empty.
        public var subdivision: String?
        /// The local datum's latitude offset from the reference datum, in minutes, north positive.
        public var latitudeOffset: Double?
        /// The local datum's longitude offset from the reference datum, in minutes, east positive.
        public var longitudeOffset: Double?
        /// The local datum's altitude offset from the reference datum, in metres.
        public var altitudeOffset: Double?
        /// The reference datum's code (usually `W84`), as sent; `nil` when empty.
        public var referenceDatum: String?

        /// Creates a DTM sentence; each parameter is the property of the same name (units there).
        /// Values are checked when the sentence is encoded (``NMEASentence/encoded()``).
        public init(
            talker: NMEATalker = .gps, localDatum: String?, subdivision: String? = nil, latitudeOffset: Double? = nil,
            longitudeOffset: Double? = nil, altitudeOffset: Double? = nil, referenceDatum: String? = "W84"
        ) {
            self.talker = talker
            self.localDatum = localDatum
            self.subdivision = subdivision
            self.latitudeOffset = latitudeOffset
            self.longitudeOffset = longitudeOffset
            self.altitudeOffset = altitudeOffset
            self.referenceDatum = referenceDatum
        }

        /// The codes gpsd 3.22 names (its NMEA driver's table); every other code is its own name.
        static let names: [(code: String, name: String)] = [
            ("W84", "WGS84"), ("W72", "WGS72"), ("S85", "SGS85"), ("P90", "PE90"), ("999", "User Defined"),
        ]

        /// The longest name gpsd 3.22 keeps: its `datum` is 40 bytes with the terminating zero.
        static let longestName = 39

        /// The local datum's name as gpsd 3.22 reports it: `WGS84`, `WGS72`, `SGS85`, `PE90`,
        /// `User Defined` for `999`, any other code as sent (its first 39 bytes, all gpsd keeps);
        /// `nil` when the code is empty.
        public var datumName: String? {
            localDatum.map { code in
                Self.names.first { $0.code == code }?.name ?? String(decoding: code.utf8.prefix(Self.longestName), as: UTF8.self)
            }
        }

        /// The code for a datum name, ``datumName``'s inverse: `W72` for `WGS72`, a name gpsd
        /// does not shorten (an IHO code) as it is.
        public static func code(forDatumName name: String) -> String {
            names.first { $0.name == name }?.code ?? name
        }
    }
}

/// The three-letter sentence formatter (`RMC` in `$GPRMC`). The six decoded types have names.
public struct NMEASentenceType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The three letters, for example `"RMC"`.
    public let rawValue: String
    /// Wraps three letters; only ``rmc``, ``gga``, ``vtg``, ``gsa``, ``gsv`` and ``dtm`` can be
    /// written.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Recommended minimum data.
    public static let rmc = NMEASentenceType(rawValue: "RMC")
    /// Fix data.
    public static let gga = NMEASentenceType(rawValue: "GGA")
    /// Course and speed.
    public static let vtg = NMEASentenceType(rawValue: "VTG")
    /// DOPs and active satellites.
    public static let gsa = NMEASentenceType(rawValue: "GSA")
    /// Satellites in view.
    public static let gsv = NMEASentenceType(rawValue: "GSV")
    /// Datum reference.
    public static let dtm = NMEASentenceType(rawValue: "DTM")

    public var description: String { rawValue }
}
