import MapFeature
import Swarm
import Testing
import LocSimTestHelpers

/// The figures `locsim swarm --virtual` prints (mean, busiest second, busiest minute, by reason
/// and for all together), on loads whose answers are worked out by hand.
@Suite("SwarmLoad", .ownThread)
struct SwarmLoadTests {
    /// 120 s: `first` 5 at 0:00:02; `elapsed` 1 every second from 10 to 69 (60 in all), 3 more at
    /// 0:01:30; `moved` 4 at 0:01:30 and 4 at 0:01:50.
    static func load() -> SwarmLoad {
        var load = SwarmLoad(durationSeconds: 120)
        for _ in 0..<5 { load.record(.first, at: 2) }
        for second in 10..<70 { load.record(.elapsed, at: second) }
        for _ in 0..<3 { load.record(.elapsed, at: 90) }
        for second in [90, 110] { for _ in 0..<4 { load.record(.moved, at: second) } }
        return load
    }

    @Test("mean over the whole run; the busiest second and 60 s window, each at its first occurrence")
    func rates() {
        let load = Self.load()
        let first = load.rates(.first)
        #expect(first.total == 5 && first.mean == 5.0 / 120)
        #expect(first.peakSecond == 5 && first.peakSecondAt == 2)
        #expect(first.peakMinute == 5 && first.peakMinuteAt == 0 && first.peakMinuteRate == 5.0 / 60)

        let elapsed = load.rates(.elapsed)
        #expect(elapsed.total == 63)
        #expect(elapsed.peakSecond == 3 && elapsed.peakSecondAt == 90)
        // 10…69 is the only window with all 60 of the steady ones; windows reaching 90 lose more than 3.
        #expect(elapsed.peakMinute == 60 && elapsed.peakMinuteAt == 10)

        let moved = load.rates(.moved)
        #expect(moved.peakSecond == 4 && moved.peakSecondAt == 90)
        #expect(moved.peakMinute == 8 && moved.peakMinuteAt == 51)  // the first window holding 90 and 110

        let retry = load.rates(.retry)
        #expect(retry.total == 0 && retry.mean == 0 && retry.peakSecond == 0 && retry.peakMinute == 0)
    }

    @Test("all reasons together come from the summed series: its peaks are not the sum of the rows' peaks")
    func all() {
        let load = Self.load()
        let all = load.rates(nil)
        #expect(all.total == 5 + 63 + 8)
        #expect(all.mean == 76.0 / 120)
        #expect(all.peakSecond == 7 && all.peakSecondAt == 90)  // 3 elapsed + 4 moved
        #expect(load.rates(.first).peakSecond + load.rates(.elapsed).peakSecond + load.rates(.moved).peakSecond == 12)
        // 10…69 holds the 60 steady ones; 0…59 holds 5 + 50, and the windows reaching 0:01:30
        // (7) give up more of the steady ones than they gain (31…90: 39 + 7).
        #expect(all.peakMinute == 60 && all.peakMinuteAt == 10)
        #expect(load.series(nil)[90] == 7 && load.series(.moved)[110] == 4)
    }

    @Test("a run shorter than a minute: the busiest minute is the whole run, as a rate over its length")
    func short() {
        var load = SwarmLoad(durationSeconds: 20)
        for second in 0..<20 { load.record(.elapsed, at: second) }
        let rates = load.rates(nil)
        #expect(rates.peakMinute == 20 && rates.peakMinuteAt == 0 && rates.peakMinuteRate == 1)
        #expect(rates.mean == 1)
    }

    @Test("adding the shards of a run adds their series")
    func add() {
        var left = SwarmLoad(durationSeconds: 120)
        var right = SwarmLoad(durationSeconds: 120)
        let whole = Self.load()
        for reason in FetchThrottle.Reason.allCases {
            for (second, count) in whole.series(reason).enumerated() {
                for k in 0..<count {
                    if k % 2 == 0 { left.record(reason, at: second) } else { right.record(reason, at: second) }
                }
            }
        }
        left.add(right)
        #expect(left == whole)
    }
}
