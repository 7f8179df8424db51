#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// JSON text written elsewhere (a gpsd report as its clients got it), kept as it is when an
/// `Encodable` value holding it is written by ``JSONWriter/encode(_:)``.
package struct JSONFragment: Encodable, Sendable, CustomStringConvertible {
    /// One JSON value, as text.
    package let text: String

    package init(_ text: String) { self.text = text }

    package var description: String { text }

    /// Any other encoder sees the text as a string: only ``JSONWriter/encode(_:)`` writes it as JSON.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

extension JSONWriter {
    /// Writes `value` through its `Encodable` conformance, with this writer's rules: members in
    /// the order the value encodes them (a synthesized conformance: the order the properties are
    /// declared), an optional that is nil left out, a whole number without a fraction, a `Date`
    /// as a UTC timestamp with milliseconds, a ``JSONFragment`` as the JSON it holds.
    ///
    /// What makes the answers of an API `Codable` types without a second JSON writer beside this
    /// one (`JSONEncoder` writes members in no fixed order and can embed no JSON text).
    ///
    /// - Throws: What the value's `encode(to:)` throws.
    package mutating func encode(_ value: some Encodable) throws {
        let root = EncodedNode()
        try root.encode(value, codingPath: [])
        root.write(to: &self)
    }

    /// `value` written alone by ``encode(_:)``, as text.
    package static func text(of value: some Encodable) throws -> String {
        var json = JSONWriter(capacity: 512)
        try json.encode(value)
        return json.text
    }
}

/// A value as an `Encodable` describes it, before it is written: `Encoder`'s containers are filled
/// in any order and never closed, so the value is collected first and written once complete.
private final class EncodedNode {
    enum Kind {
        case nothing, null, bool(Bool), integer(Int), digits(String), number(Double), string(String), date(Date),
            fragment(String), object, array

        var isObject: Bool { if case .object = self { true } else { false } }
        var isArray: Bool { if case .array = self { true } else { false } }
    }

    var kind = Kind.nothing
    var members: [(key: String, node: EncodedNode)] = []
    var elements: [EncodedNode] = []

    func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        switch value {
        case let value as JSONFragment: kind = .fragment(value.text)
        case let value as String: kind = .string(value)
        case let value as Bool: kind = .bool(value)
        case let value as Double: kind = .number(value)
        case let value as Float: kind = .number(Double(value))
        case let value as Date: kind = .date(value)
        case let value as any FixedWidthInteger:
            // A UInt or UInt64 above Int.max: its digits.
            kind = Int(exactly: value).map(Kind.integer) ?? .digits(String(describing: value))
        default:
            try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
        }
    }

    /// The node of member `key`, made when new; a key encoded twice keeps its first place.
    func member(_ key: String) -> EncodedNode {
        if !kind.isObject { becomeObject() }
        if let existing = members.first(where: { $0.key == key }) {
            existing.node.kind = .nothing
            existing.node.members = []
            existing.node.elements = []
            return existing.node
        }
        let node = EncodedNode()
        members.append((key, node))
        return node
    }

    func becomeObject() {
        kind = .object
        members = []
    }

    func becomeArray() {
        kind = .array
        elements = []
    }

    func write(to json: inout JSONWriter) {
        switch kind {
        case .nothing: json.object { _ in }
        case .null: json.null()
        case .bool(let value): json.bool(value)
        case .integer(let value): json.integer(value)
        case .digits(let text): json.json(text)
        case .number(let value): json.number(value, decimals: nil)
        case .string(let value): json.string(value)
        case .date(let value): json.timestamp(value)
        case .fragment(let text): json.json(text)
        case .object:
            json.object { json in
                for (key, node) in members {
                    json.key(key)
                    node.write(to: &json)
                }
            }
        case .array:
            json.array { json in
                for node in elements { node.write(to: &json) }
            }
        }
    }
}

/// A coding key made from a member's name or an element's index.
private struct AnyCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

private struct NodeEncoder: Encoder {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if !node.kind.isObject { node.becomeObject() }
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if !node.kind.isArray { node.becomeArray() }
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).kind = .null }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws { try put(value, key) }

    private func put(_ value: some Encodable, _ key: Key) throws {
        try node.member(key.stringValue).encode(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = node.member(key.stringValue)
        child.becomeObject()
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.member(key.stringValue)
        child.becomeArray()
        return UnkeyedNodeContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.member("super"), codingPath: codingPath + [AnyCodingKey(stringValue: "super")])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var count: Int { node.elements.count }

    private func next() -> (node: EncodedNode, path: [any CodingKey]) {
        let child = EncodedNode()
        let path = codingPath + [AnyCodingKey(intValue: node.elements.count)]
        node.elements.append(child)
        return (child, path)
    }

    mutating func encodeNil() throws { next().node.kind = .null }
    mutating func encode(_ value: some Encodable) throws { try append(value) }

    private func append(_ value: some Encodable) throws {
        let (child, path) = next()
        try child.encode(value, codingPath: path)
    }

    mutating func encode(_ value: Bool) throws { try append(value) }
    mutating func encode(_ value: String) throws { try append(value) }
    mutating func encode(_ value: Double) throws { try append(value) }
    mutating func encode(_ value: Float) throws { try append(value) }
    mutating func encode(_ value: Int) throws { try append(value) }
    mutating func encode(_ value: Int8) throws { try append(value) }
    mutating func encode(_ value: Int16) throws { try append(value) }
    mutating func encode(_ value: Int32) throws { try append(value) }
    mutating func encode(_ value: Int64) throws { try append(value) }
    mutating func encode(_ value: UInt) throws { try append(value) }
    mutating func encode(_ value: UInt8) throws { try append(value) }
    mutating func encode(_ value: UInt16) throws { try append(value) }
    mutating func encode(_ value: UInt32) throws { try append(value) }
    mutating func encode(_ value: UInt64) throws { try append(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let (child, path) = next()
        child.becomeObject()
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(node: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (child, path) = next()
        child.becomeArray()
        return UnkeyedNodeContainer(node: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let (child, path) = next()
        return NodeEncoder(node: child, codingPath: path)
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.kind = .null }
    mutating func encode(_ value: some Encodable) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Bool) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: String) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Double) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Float) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int8) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int16) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int32) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int64) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt8) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt16) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt32) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt64) throws { try node.encode(value, codingPath: codingPath) }
}
