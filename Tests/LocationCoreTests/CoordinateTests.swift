import Foundation
import LocationCore
import Testing
import LocSimTestHelpers

@Suite(.ownThread) struct CoordinateTests {
    @Test("Accepts the full ranges and normalises +180 to -180")
    func acceptsRanges() throws {
        #expect(try Coordinate(latitude: 90, longitude: 0).latitude == 90)
        #expect(try Coordinate(latitude: -90, longitude: -180).longitude == -180)
        #expect(try Coordinate(latitude: 0, longitude: 180).longitude == -180)
        #expect(try Coordinate(latitude: 0, longitude: 179.9999999).longitude == 179.9999999)
    }

    @Test("Rejects out-of-range and non-finite values, naming the component", arguments: [
        (90.0000001, 0.0, CoordinateError.Component.latitude),
        (-91, 0, .latitude),
        (0, 180.0000001, .longitude),
        (0, -181, .longitude),
        (.nan, 0, .latitude),
        (0, .infinity, .longitude),
        (-.infinity, 0, .latitude),
    ])
    func rejects(latitude: Double, longitude: Double, component: CoordinateError.Component) {
        #expect {
            _ = try Coordinate(latitude: latitude, longitude: longitude)
        } throws: { error in
            (error as? CoordinateError)?.component == component
        }
    }

    @Test("Decoding validates like the initializer")
    func decodingValidates() throws {
        let good = try JSONDecoder().decode(Coordinate.self, from: Data(#"{"latitude":1.5,"longitude":180}"#.utf8))
        #expect(good.longitude == -180)
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(Coordinate.self, from: Data(#"{"latitude":95,"longitude":0}"#.utf8))
        }
    }

    @Test("Formats with seven decimals")
    func formats() throws {
        #expect(try Coordinate(latitude: -33.8688, longitude: 151.2093).description == "-33.8688000,151.2093000")
        #expect(try Coordinate(latitude: -0.00000004, longitude: 0).description == "0.0000000,0.0000000")
    }

    @Test("LAT,LON text: a coordinate, or why not (the shape, which number, or its range)")
    func latitudeLongitudeText() throws {
        #expect(try Coordinate.parse(latitudeLongitude: " -33.8688 , 151.2093 ").get() == Coordinate(latitude: -33.8688, longitude: 151.2093))
        #expect(Coordinate.parse(latitudeLongitude: "35") == .failure(.shape))
        #expect(Coordinate.parse(latitudeLongitude: "35,139,7") == .failure(.shape))
        #expect(Coordinate.parse(latitudeLongitude: "3x5,139") == .failure(.notANumber(.latitude, "3x5")))
        #expect(Coordinate.parse(latitudeLongitude: "35,") == .failure(.notANumber(.longitude, "")))
        #expect(Coordinate.parse(latitudeLongitude: "nan,139") == .failure(.notANumber(.latitude, "nan")))
        guard case .failure(.invalid(let error)) = Coordinate.parse(latitudeLongitude: "35,180.5") else {
            Issue.record("180.5 is no longitude")
            return
        }
        #expect(error.component == .longitude && error.code == .outOfRange && error.value == 180.5)
    }
}
