package import LocationCore
package import LocationSimulation

/// Which kinds of movers a swarm holds, and in what shares: `walk=0.7,cycle=0.2,drive=0.1`.
///
/// Each player draws its mover once, from its own seeded stream, so player *k* is the same kind
/// whatever the number of players. The kinds are LocationSimulation's ``/LocationSimulation/SpeedProfile``
/// presets (their mean speed, spread and stops).
package struct SwarmMix: Sendable, Hashable, CustomStringConvertible {
    /// A kind of mover: a name, a ``/LocationSimulation/SpeedProfile`` and how much it turns.
    package struct Mover: Sendable, Hashable {
        /// The name in `--mix` and in reports.
        package let name: String
        /// How fast it goes (mean, spread, stops).
        package let profile: SpeedProfile
        /// How much the heading turns between legs, in degrees per √s (0: straight on).
        package let turnSigma: Double

        /// Creates a mover.
        ///
        /// - Throws: ``/LocationCore/ConfigurationError`` when the speed or the turn is out of range.
        package init(name: String, profile: SpeedProfile, turnSigma: Double = 15) throws(ConfigurationError) {
            guard profile.meanSpeed.isFinite, (0.001...1000).contains(profile.meanSpeed) else {
                throw ConfigurationError(parameter: "mix.\(name).meanSpeed", "must be 0.001…1000 m/s, got \(profile.meanSpeed)")
            }
            guard profile.speedSigma.isFinite, (0...1000).contains(profile.speedSigma) else {
                throw ConfigurationError(parameter: "mix.\(name).speedSigma", "must be 0…1000 m/s, got \(profile.speedSigma)")
            }
            guard turnSigma.isFinite, (0...360).contains(turnSigma) else {
                throw ConfigurationError(parameter: "mix.\(name).turnSigma", "must be 0…360 °/√s, got \(turnSigma)")
            }
            self.init(validName: name, profile: profile, turnSigma: turnSigma)
        }

        private init(validName: String, profile: SpeedProfile, turnSigma: Double) {
            name = validName
            self.profile = profile
            self.turnSigma = turnSigma
        }

        /// LocationSimulation's walking profile.
        package static let walk = Mover(validName: "walk", profile: .walk, turnSigma: 15)
        /// LocationSimulation's running profile.
        package static let run = Mover(validName: "run", profile: .run, turnSigma: 15)
        /// LocationSimulation's cycling profile.
        package static let cycle = Mover(validName: "cycle", profile: .cycle, turnSigma: 15)
        /// LocationSimulation's town driving profile.
        package static let drive = Mover(validName: "drive", profile: .drive, turnSigma: 15)
        /// The four presets, by the names `--mix` knows.
        package static let presets: [Mover] = [.walk, .run, .cycle, .drive]
    }

    /// The movers with their shares, in the order given; the shares sum to 1.
    package let shares: [(mover: Mover, share: Double)]

    /// Everyone walks.
    package static let walk = SwarmMix(validShares: [(.walk, 1)])

    /// The most movers a mix can hold.
    package static let maximumMovers = 64

    /// Creates a mix from shares that need not sum to 1 (they are scaled so they do).
    ///
    /// - Throws: ``/LocationCore/ConfigurationError`` (parameter `mix`) when a name repeats, a share is
    ///   negative or not finite, or all shares are zero.
    package init(_ shares: [(mover: Mover, share: Double)]) throws(ConfigurationError) {
        var seen = Set<String>()
        guard shares.count <= Self.maximumMovers else {
            throw ConfigurationError(parameter: "mix", "at most \(Self.maximumMovers) kinds, got \(shares.count)")
        }
        for (mover, share) in shares {
            guard seen.insert(mover.name).inserted else {
                throw ConfigurationError(parameter: "mix", "\(mover.name) is given twice")
            }
            guard share.isFinite, share >= 0 else {
                throw ConfigurationError(parameter: "mix", "the share of \(mover.name) must be a finite number ≥ 0, got \(share)")
            }
        }
        let total = shares.reduce(0) { $0 + $1.share }
        guard total > 0, total.isFinite else {
            throw ConfigurationError(parameter: "mix", "the shares must not all be zero")
        }
        // Shares written to sum to 1 are kept as written: 0.7, 0.2 and 0.1 add up to
        // 0.9999999999999999, and dividing by that would make 0.7 read 0.7000000000000001.
        let scale = abs(total - 1) <= 1e-12 ? 1 : total
        self.init(validShares: shares.filter { $0.share > 0 }.map { ($0.mover, $0.share / scale) })
    }

    /// Parses `walk=0.7,cycle=0.2,drive=0.1` (movers walk, run, cycle, drive; shares are plain
    /// decimal numbers, scaled to sum to 1).
    ///
    /// - Throws: ``/LocationCore/ConfigurationError`` (parameter `mix`) naming the part that is wrong.
    package init(parsing text: String) throws(ConfigurationError) {
        var shares: [(mover: Mover, share: Double)] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "=", omittingEmptySubsequences: false)
            guard pieces.count == 2 else {
                throw ConfigurationError(parameter: "mix", "expected KIND=SHARE, got '\(part)'")
            }
            let name = pieces[0].trimmingSpaces
            guard let mover = Mover.presets.first(where: { $0.name == name }) else {
                throw ConfigurationError(
                    parameter: "mix",
                    "unknown kind '\(name)' (expected one of \(Mover.presets.map(\.name).joined(separator: ", ")))")
            }
            var number = pieces[1].trimmingSpaces
            guard let share = number.withUTF8({ DecimalNumber(parsing: $0) })?.value else {
                throw ConfigurationError(parameter: "mix", "the share of \(name) is not a number: '\(pieces[1])'")
            }
            shares.append((mover, share))
        }
        try self.init(shares)
    }

    private init(validShares: [(mover: Mover, share: Double)]) {
        shares = validShares
    }

    /// The index of the mover a uniform draw `unit` in 0..<1 picks.
    func moverIndex(forUnit unit: Double) -> Int {
        var cumulative = 0.0
        for (index, entry) in shares.enumerated() {
            cumulative += entry.share
            if unit < cumulative { return index }
        }
        return shares.count - 1
    }

    /// `walk=0.7,cycle=0.2,drive=0.1` (shares as scaled, shortest form).
    package var description: String {
        shares.map { "\($0.mover.name)=\($0.share)" }.joined(separator: ",")
    }

    package static func == (lhs: SwarmMix, rhs: SwarmMix) -> Bool {
        lhs.shares.elementsEqual(rhs.shares) { $0.mover == $1.mover && $0.share == $1.share }
    }

    package func hash(into hasher: inout Hasher) {
        for (mover, share) in shares {
            hasher.combine(mover)
            hasher.combine(share)
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
