import LocationCore
import LocationFeed
import Testing
import LocSimTestHelpers

/// The control API's request bodies as `Decodable` types: what each reads, and what a 400 says
/// (the field, then the words) for every way a body can be wrong.
@Suite(.ownThread) struct PlayerRequestsTests {
    static func failure<Body: StrictRequestBody>(_ type: Body.Type, _ text: String) -> ConfigurationError? {
        do {
            _ = try Body.decode(Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test("A new player's body reads its four fields; speed and loop are optional")
    func newPlayer() throws {
        let full = try NewPlayerRequest.decode(Array(#"{"name":"carol","spec":"line","speed":2,"loop":true}"#.utf8))
        #expect(full.name == "carol" && full.spec == "line" && full.speed == 2 && full.loop == true)
        let least = try NewPlayerRequest.decode(Array(#" {"spec":"walk.gpx","name":"dave"} "#.utf8))
        #expect(least.name == "dave" && least.spec == "walk.gpx" && least.speed == nil && least.loop == nil)
    }

    @Test(
        "A bad new-player body names the field and says what is wrong",
        arguments: [
            ("", "body", "empty: send a JSON object"),
            ("not json", "body", "not valid JSON at line 1, column 1"),
            (#"{"name":"dave","#, "body", "not valid JSON: the text ends early"),
            ("[1]", "body", "not a JSON object"),
            (#""carol""#, "body", "not a JSON object"),
            (#"{"spec":"line"}"#, "name", "missing: the player's name"),
            (#"{"name":"dave"}"#, "spec", "missing: a path such as"),
            (#"{"name":null,"spec":"line"}"#, "name", "must not be null"),
            (#"{"name":7,"spec":"line"}"#, "name", "must be a string"),
            (#"{"name":"dave","spec":"line","speed":true}"#, "speed", "must be a number, got true"),
            (#"{"name":"dave","spec":"line","loop":"yes"}"#, "loop", "must be true or false, got \"yes\""),
            (#"{"name":"dave","spec":"line","colour":"red"}"#, "colour", "unknown field (this body takes name, spec, speed, loop)"),
        ])
    func newPlayerFailures(body: String, parameter: String, message: String) throws {
        let error = try #require(Self.failure(NewPlayerRequest.self, body), "\(body) was read")
        #expect(error.parameter == parameter, "\(body): \(error)")
        #expect(error.message.hasPrefix(message), "\(body): \(error)")
    }

    @Test("Each control action becomes its command; the fields it needs are read, others refused")
    func commands() throws {
        func command(_ text: String) throws -> PlayerCommand { try ControlRequest.decode(Array(text.utf8)).command() }
        #expect(try command(#"{"action":"pause"}"#) == .pause)
        #expect(try command(#"{"action":"resume"}"#) == .resume)
        #expect(try command(#"{"action":"speed","speed":5}"#) == .speed(5))
        #expect(try command(#"{"action":"seek","offset":120}"#) == .seek(offset: 120))
        #expect(try command(#"{"action":"seek","fraction":0.5}"#) == .seekFraction(0.5))
        #expect(try command(#"{"action":"teleport","lat":35.68,"lng":139.76}"#) == .teleport(try Coordinate(latitude: 35.68, longitude: 139.76)))
        #expect(try command(#"{"action":"loop","loop":false}"#) == .loop(false))
    }

    @Test(
        "A bad control body names the field and says what is wrong",
        arguments: [
            (#"{}"#, "action", "missing"),
            (#"{"action":7}"#, "action", "must be a string, got 7"),
            (#"{"action":"fly"}"#, "action", "unknown action 'fly': one of pause, resume, speed, seek, teleport, loop"),
            (#"{"action":"speed"}"#, "speed", "missing: the speed factor"),
            (#"{"action":"speed","speed":"fast"}"#, "speed", "must be a number, got \"fast\""),
            (#"{"action":"seek"}"#, "offset", "missing: 'offset' (seconds) or 'fraction'"),
            (#"{"action":"seek","offset":1,"fraction":0.5}"#, "fraction", "give 'offset' or 'fraction', not both"),
            (#"{"action":"teleport","lat":91,"lng":0}"#, "lat", ""),
            (#"{"action":"teleport","lat":35}"#, "lng", "missing: the longitude"),
            (#"{"action":"loop"}"#, "loop", "missing: true or false"),
            (#"{"action":"pause","speed":2}"#, "speed", "not a field of the 'pause' action"),
            // The contract has no nullable field: an optional one is left out, not null.
            (#"{"action":"pause","speed":null}"#, "speed", "must not be null"),
            (#"{"action":"pause","sped":2}"#, "sped", "unknown field (this body takes action, speed, offset"),
            (#"{"action":"speed","speed":1e400}"#, "speed", "too large for a number"),
            (#"{"action":"speed","speed":-1e400}"#, "speed", "too large for a number"),
            (#"{"action":"speed","speed":2.5e}"#, "body", "not valid JSON at line 1, column 31: expected an exponent"),
            // Half a surrogate pair is no text (Foundation's reader refuses it too): said with its place.
            (#"{"action":"\ud800"}"#, "body", "not valid JSON at line 1, column 12: half of a UTF-16 surrogate pair"),
            // Which speed was meant? Refused, not the first or the last taken silently.
            (#"{"action":"speed","speed":2,"speed":3}"#, "speed", "ambiguous JSON at line 1, column 29: the name \"speed\" appears twice"),
        ])
    func controlFailures(body: String, parameter: String, message: String) throws {
        let error: ConfigurationError
        do {
            let command = try ControlRequest.decode(Array(body.utf8)).command()
            Issue.record("\(body) was read as \(command)")
            return
        } catch let caught {
            error = caught
        }
        #expect(error.parameter == parameter, "\(body): \(error)")
        #expect(error.message.hasPrefix(message), "\(body): \(error)")
        #expect(!error.message.isEmpty)
    }

    @Test("A body read by the package's one JSON reader: bytes that are not UTF-8 are refused with their place; 1e-400 is 0, as Foundation reads it")
    func oneReader() throws {
        let notUTF8 = Array(#"{"action":"pa"#.utf8) + [0xFF] + Array(#"use"}"#.utf8)
        let refused = #expect(throws: ConfigurationError.self) { try ControlRequest.decode(notUTF8) }
        #expect(refused?.parameter == "body" && refused?.message == "not valid JSON at line 1, column 11: the string here is not UTF-8", "\(String(describing: refused))")
        // JSONDecoder refused the whole body as "The given data was not valid JSON."
        let tiny = try ControlRequest.decode(Array(#"{"action":"seek","offset":1e-400}"#.utf8))
        #expect(try tiny.command() == .seek(offset: 0))
        let player = try NewPlayerRequest.decode(Array(#"{"name":"b\u00e9","spec":"line:1,1:1,2","speed":2,"loop":false}"#.utf8))
        #expect(player.name == "bé" && player.spec == "line:1,1:1,2" && player.speed == 2 && player.loop == false)
    }
}
