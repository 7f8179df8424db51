/// The nodes of levels ≥ 1 that are split into their children (table `placeSplit`), as of one
/// snapshot: what a query needs to know which levels to read where.
///
/// Every place is in exactly one stored node, and the nodes above a stored node are split; so
/// a query walks down from the top level, reads a node that is not split (one row range, maybe
/// empty) and descends only into split ones. Dense places thus cost one level-0 range per band
/// as in v1, sparse ones a range at their coarse level, and no query seeks every level.
///
/// An open-addressing hash set of row ids (`level << 48 | key << 16`, never 0): a few thousand
/// entries, probed a handful of times per query, so it is kept flat and its hash cheap.
struct SplitNodes {
    /// `ReadConnection.dataVersion` of the snapshot the nodes were read from.
    let dataVersion: UInt32
    private let slots: [Int64]
    private let mask: Int
    /// 64 − log₂(capacity): the hash is the top bits of the product, which depend on every key bit.
    private let shift: UInt64

    init(nodes: [Int64], dataVersion: UInt32) {
        self.dataVersion = dataVersion
        var capacity = 16
        while capacity < nodes.count * 2 { capacity *= 2 }
        var slots = [Int64](repeating: 0, count: capacity)
        let mask = capacity - 1
        let shift = UInt64(64 - capacity.trailingZeroBitCount)
        for node in nodes {
            var slot = Self.hash(node, shift: shift)
            while slots[slot] != 0 && slots[slot] != node { slot = (slot + 1) & mask }
            slots[slot] = node
        }
        self.slots = slots
        self.mask = mask
        self.shift = shift
    }

    /// Fibonacci hashing of the key and level bits (the part bits are always 0 here): the top
    /// `64 − shift` bits of the product, an index below the capacity.
    @inline(__always) private static func hash(_ node: Int64, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: node >> 16) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// Whether the node with this row id is split.
    @inline(__always) func contains(_ node: Int64) -> Bool {
        var slot = Self.hash(node, shift: shift)
        while true {
            let entry = slots[slot]
            if entry == node { return true }
            if entry == 0 { return false }
            slot = (slot + 1) & mask
        }
    }
}

extension ReadConnection {
    /// The split nodes: the cached copy, or loaded in one read transaction with its data version.
    ///
    /// The caller checks after its reads that `connection.dataVersion()` still equals the copy's
    /// ``SplitNodes/dataVersion``; if not, a commit came in between, and it drops the copy
    /// (``splitNodes`` = nil) and reads again.
    func currentSplitNodes() throws(IndexError) -> SplitNodes {
        if let splitNodes { return splitNodes }
        try connection.execute("BEGIN")
        do throws(IndexError) {
            let loaded = try loadSplitNodes()
            try connection.execute("COMMIT")
            return loaded
        } catch {
            throw IndexSchema.rollback(connection, after: error)
        }
    }

    /// Reads the split nodes of the transaction the connection is in, and keeps them.
    private func loadSplitNodes() throws(IndexError) -> SplitNodes {
        var nodes: [Int64] = []
        try connection.withStatement("SELECT node FROM placeSplit") { statement throws(IndexError) in
            while try statement.step() {
                let node = statement.int64(0)
                guard let level = TileGrid.level(ofRow: node), level > 0, node & 0xFFFF == 0 else {
                    throw IndexError(.corrupt, "placeSplit holds \(node), not a node of level 1 or above; rebuild the index",
                        path: connection.path)
                }
                nodes.append(node)
            }
        }
        let loaded = SplitNodes(nodes: nodes, dataVersion: try connection.dataVersion())
        splitNodes = loaded
        return loaded
    }

    /// Runs `body` with the split nodes read afresh inside one read transaction that `body`'s
    /// reads share, so they are of one snapshot whatever the data version says: for when the
    /// kept split nodes turned out stale, or the data version moves at every transaction (a
    /// WAL file whose `-shm` this process cannot write: SQLite then rebuilds its WAL-index for
    /// each transaction and counts each as a change).
    func inOneSnapshot<Result>(_ body: (SplitNodes) throws(IndexError) -> Result) throws(IndexError) -> Result {
        try connection.execute("BEGIN")
        do throws(IndexError) {
            let result = try body(try loadSplitNodes())
            try connection.execute("COMMIT")
            return result
        } catch {
            throw IndexSchema.rollback(connection, after: error)
        }
    }
}
