import Foundation
package import LocationCore

/// The JSON body of `POST /players`: `{"name":"carol","spec":"line:35.68,139.76:35.69,139.75","speed":2,"loop":true}`.
package struct NewPlayerRequest: Sendable, Hashable, Decodable, StrictRequestBody {
    /// The player's name, which is also its device's (`/dev/locsim/NAME`).
    package var name: String
    /// A `--player` spec after the `=`: a path such as `line:…`, `circle:…` or a GPX file's path.
    package var spec: String
    /// The speed factor (0.1...1000); nil plays the spec's own.
    package var speed: Double?
    /// Whether the path starts again at its end.
    package var loop: Bool?

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case name, spec, speed, loop
    }

    package static func missing(_ key: CodingKeys) -> String {
        switch key {
        case .name: "missing: the player's name"
        case .spec: "missing: a path such as \"line:35.68,139.76:35.69,139.75\" (or send a GPX body)"
        case .speed, .loop: "missing"
        }
    }
}

/// The JSON body of `POST /players/{name}/control`: `{"action":"pause"}`, `{"action":"speed","speed":5}`,
/// `{"action":"seek","offset":120}` or `{"action":"seek","fraction":0.5}`,
/// `{"action":"teleport","lat":35.68,"lng":139.76}`, `{"action":"loop","loop":true}`.
package struct ControlRequest: Sendable, Hashable, Decodable, StrictRequestBody {
    package enum Action: String, Sendable, Hashable, CaseIterable, Decodable {
        case pause, resume, speed, seek, teleport, loop

        package init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let action = Action(rawValue: text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "unknown action '\(TextExcerpt.render(text, limit: 64))': one of \(Self.names)"))
            }
            self = action
        }

        static let names = allCases.map(\.rawValue).joined(separator: ", ")
    }

    package var action: Action
    package var speed: Double?
    package var offset: Double?
    package var fraction: Double?
    package var lat: Double?
    package var lng: Double?
    package var loop: Bool?

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case action, speed, offset, fraction, lat, lng, loop
    }

    /// The command the request asks for; throws naming the field when a field the action needs
    /// is missing, out of range or goes with another action.
    package func command() throws(ConfigurationError) -> PlayerCommand {
        func required(_ value: Double?, _ key: CodingKeys, _ what: String) throws(ConfigurationError) -> Double {
            guard let value else { throw ConfigurationError(parameter: key.rawValue, "missing: \(what)") }
            return value
        }
        let command: PlayerCommand
        var used: Set<CodingKeys> = [.action]
        switch action {
        case .pause: command = .pause
        case .resume: command = .resume
        case .speed:
            command = .speed(try required(speed, .speed, "the speed factor, 0.1...1000"))
            used.insert(.speed)
        case .seek:
            switch (offset, fraction) {
            case (let offset?, nil): command = .seek(offset: offset)
            case (nil, let fraction?): command = .seekFraction(fraction)
            case (nil, nil): throw ConfigurationError(parameter: "offset", "missing: 'offset' (seconds) or 'fraction' (0...1)")
            case (.some, .some): throw ConfigurationError(parameter: "fraction", "give 'offset' or 'fraction', not both")
            }
            used.formUnion([.offset, .fraction])
        case .teleport:
            let latitude = try required(lat, .lat, "the latitude in degrees")
            let longitude = try required(lng, .lng, "the longitude in degrees")
            do {
                command = .teleport(try Coordinate(latitude: latitude, longitude: longitude))
            } catch {
                throw ConfigurationError(parameter: error.component == .latitude ? "lat" : "lng", error.description)
            }
            used.formUnion([.lat, .lng])
        case .loop:
            guard let loop else { throw ConfigurationError(parameter: "loop", "missing: true or false") }
            command = .loop(loop)
            used.insert(.loop)
        }
        let given: [(CodingKeys, Bool)] = [
            (.speed, speed != nil), (.offset, offset != nil), (.fraction, fraction != nil),
            (.lat, lat != nil), (.lng, lng != nil), (.loop, loop != nil),
        ]
        if let extra = given.first(where: { $0.1 && !used.contains($0.0) })?.0 {
            throw ConfigurationError(parameter: extra.rawValue, "not a field of the '\(action.rawValue)' action")
        }
        return command
    }
}

/// A request body read with `Codable` that refuses a member it has no field for (a misspelt
/// `"sped"` is a 400 naming it, not silently the default).
package protocol StrictRequestBody: Decodable {
    associatedtype CodingKeys: CodingKey, CaseIterable, RawRepresentable<String>

    /// What a 400 says of a required field left out (default: `missing`).
    static func missing(_ key: CodingKeys) -> String
}

extension StrictRequestBody {
    package static func missing(_ key: CodingKeys) -> String { "missing" }

    /// Reads `body` (a JSON object) as this type with the package's one JSON reader:
    /// ``/LocationCore/JSONValue`` checks the text (its errors name line and column) and the
    /// member names, ``/LocationCore/JSONValueDecoder`` reads the fields from it.
    ///
    /// - Throws: ``/LocationCore/ConfigurationError`` naming the field at fault (its key path,
    ///   `body` when the body is not a JSON object), with what is wrong in words.
    package static func decode(_ body: [UInt8]) throws(ConfigurationError) -> Self {
        guard !body.isEmpty else { throw ConfigurationError(parameter: "body", "empty: send a JSON object") }
        let document: JSONValue
        let members: [(name: String, value: JSONValue)]
        do {
            document = try JSONValue(parsing: body)
            guard case .object(let read) = document else {
                throw ConfigurationError(parameter: "body", "not a JSON object")
            }
            members = read
        } catch let error as ConfigurationError {
            throw error
        } catch let error as JSONValue.SyntaxError {
            // A field given twice is named as the field.
            throw ConfigurationError(parameter: error.repeatedName ?? "body", "\(error)")
        } catch {
            throw ConfigurationError(parameter: "body", "\(error)")
        }
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        if let unknown = members.first(where: { !known.contains($0.name) }) {
            let fields = CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError(parameter: unknown.name, "unknown field (this body takes \(fields))")
        }
        for member in members {
            switch member.value {
            // The contract (docs/openapi.yaml) has no nullable field: an optional one is left out.
            case .null: throw ConfigurationError(parameter: member.name, "must not be null (leave the field out)")
            case .number(let number) where !number.isFinite: throw ConfigurationError(parameter: member.name, "too large for a number")
            default: continue
            }
        }
        do {
            return try JSONValueDecoder.decode(Self.self, from: document)
        } catch let error as DecodingError {
            throw Self.problem(error, members: members)
        } catch {
            throw ConfigurationError(parameter: "body", "could not be read: \(error)")
        }
    }

    /// `error` in the words of the control API's other answers, naming the field and, for a
    /// value of the wrong type, quoting it (cut to 64 characters) as the query string's errors do.
    static func problem(_ error: DecodingError, members: [(name: String, value: JSONValue)] = []) -> ConfigurationError {
        func given(_ path: [any CodingKey]) -> String {
            guard path.count == 1, let value = members.first(where: { $0.name == path[0].stringValue })?.value else { return "" }
            return ", got " + value.text
        }
        func field(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "body" : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let message = context.codingPath.isEmpty ? CodingKeys(rawValue: key.stringValue).map(missing) : nil
            return ConfigurationError(parameter: field(context.codingPath + [key]), message ?? "missing")
        case .valueNotFound(_, let context):
            return ConfigurationError(parameter: field(context.codingPath), "must not be null")
        case .typeMismatch(let type, let context):
            guard !context.codingPath.isEmpty else { return ConfigurationError(parameter: "body", "not a JSON object") }
            let expected =
                switch type {
                case is Bool.Type: "true or false"
                case is String.Type: "a string"
                case is Double.Type, is Int.Type: "a number"
                default: "\(type)"
                }
            return ConfigurationError(parameter: field(context.codingPath), "must be \(expected)\(given(context.codingPath))")
        case .dataCorrupted(let context):
            return ConfigurationError(parameter: field(context.codingPath), context.debugDescription)
        @unknown default:
            return ConfigurationError(parameter: "body", "\(error)")
        }
    }
}
