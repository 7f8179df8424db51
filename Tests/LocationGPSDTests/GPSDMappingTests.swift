import Foundation
@testable import LocationGPSD
import LocationCore
import Testing

@Suite struct ScratchTests {
    @Test func scratch() throws {
        let lines = [
            #"{"class":"TPV","device":"tcp://127.0.0.1:39001","status":2,"mode":3,"time":"2034-11-27T20:26:48.000Z","ept":0.005,"lat":44.068841667,"lon":-121.314191667,"altHAE":1108.1000,"altMSL":1127.7000,"alt":1127.7000,"epx":1.932,"epy":3.141,"epv":7.533,"track":152.0400,"magtrack":166.4584,"magvar":14.4,"speed":0.000,"climb":0.000,"eps":5.61,"epc":15.07,"geoidSep":-19.600,"eph":4.655,"sep":7.790}"#,
            #"{"class":"TPV","status":2,"mode":3,"lat":44.068843333,"lon":-121.314191667,"altHAE":1108.1000,"alt":1127.7000,"magvar":14.4,"geoidSep":-19.600,"eph":4.655}"#,
            #"{"class":"SKY","device":"tcp://127.0.0.1:39001","xdop":0.52,"ydop":0.84,"vdop":1.31,"tdop":0.84,"hdop":0.98,"gdop":1.84,"pdop":1.64,"nSat":12,"uSat":10}"#,
            #"{"class":"TPV","status":2,"mode":2,"time":"2034-11-27T20:26:49.000Z","lat":44.068843333,"lon":-121.314191667,"epx":3,"epy":4}"#,
        ]
        for line in lines {
            do { print("OK", try GPSDConnection.decode([line], receivedAt: Date(timeIntervalSince1970: 5))) }
            catch { print("ERR", error) }
        }
        do { for m in try GPSDConnection.decode(lines, receivedAt: Date(timeIntervalSince1970: 5)) { print("SEQ", m) } } catch { print("ERR", error) }
        for bad in [#"{"class":"TPV","mode":"#, "garbage", #"{"class":"TPV","mode":2,"lat":"x"}"#, #"{"class":"TPV","bogus":1}"#, "{}", ""] {
            do { print("OK", try GPSDConnection.decode([bad], receivedAt: Date(timeIntervalSince1970: 5))) }
            catch { print("ERR", error) }
        }
    }
}
