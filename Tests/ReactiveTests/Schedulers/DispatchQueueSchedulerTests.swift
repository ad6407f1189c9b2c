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

    @Test func timesAndStridesEncodeUnderCombinesKeys() throws {
        let time = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 42))
        #expect(String(decoding: try JSONEncoder().encode(time), as: UTF8.self) == #"{"time":42}"#)
        #expect(String(decoding: try JSONEncoder().encode(Stride.nanoseconds(7)), as: UTF8.self) == #"{"magnitude":7}"#)
        let decoded = try JSONDecoder().decode(DispatchQueue.SchedulerTimeType.self, from: Data(#"{"time":42}"#.utf8))
        #expect(decoded == time)
    }
}
