import Dispatch
import Foundation
import Reactive
import Testing

@Suite struct DispatchQueueSchedulerTests {
    typealias Stride = DispatchQueue.SchedulerTimeType.Stride

    @Test func largeStridesSaturateInsteadOfTrapping() {
        #expect(Stride.seconds(Int.max).magnitude == Int.max)
        #expect(Stride.milliseconds(Int.min).magnitude == Int.min)
        #expect(Stride(floatLiteral: 1e300).magnitude == Int.max)
        #expect((Stride.nanoseconds(Int.max) + .nanoseconds(1)).magnitude == Int.max)
        let farFuture = DispatchQueue.main.now.advanced(by: .seconds(Int.max))
        #expect(farFuture > DispatchQueue.main.now)
    }

    @Test func timesEncodeAsABareNumberAndStridesUnderCombinesKey() throws {
        let time = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 42))
        #expect(String(decoding: try JSONEncoder().encode([time]), as: UTF8.self) == "[42]")
        #expect(
            String(decoding: try JSONEncoder().encode(Stride.nanoseconds(7)), as: UTF8.self) == #"{"_nanoseconds":7}"#)
        let decoded = try JSONDecoder().decode([DispatchQueue.SchedulerTimeType].self, from: Data("[42]".utf8))
        #expect(decoded == [time])
        #expect(try JSONDecoder().decode(Stride.self, from: Data(#"{"_nanoseconds":7}"#.utf8)) == .nanoseconds(7))
    }

    @Test func theFarFutureIsAtTheLargestDistanceEitherWay() {
        let time = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 10_000))
        let farFuture = DispatchQueue.SchedulerTimeType(.distantFuture)
        #expect(time.distance(to: farFuture) == .nanoseconds(.max))
        #expect(farFuture.distance(to: time) == .nanoseconds(.max))
        #expect(farFuture.distance(to: farFuture) == .nanoseconds(0))
        #expect(time.advanced(by: .nanoseconds(.max)).dispatchTime == .distantFuture)
        #expect(time.advanced(by: .nanoseconds(-431)).dispatchTime.uptimeNanoseconds == 9_569)
    }

    @Test func stridesMultiplyAsDurationsInSeconds() {
        #expect(Stride.seconds(2) * 3 == .seconds(6))
        #expect(Stride.milliseconds(500) * .seconds(4) == .seconds(2))
        #expect(Stride.nanoseconds(18) * .microseconds(1) == .nanoseconds(0))
    }
}
