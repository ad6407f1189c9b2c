import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct DemandTests {
    @Test func arithmeticSaturates() {
        #expect(Subscribers.Demand.max(1) + .max(2) == .max(3))
        #expect(Subscribers.Demand.unlimited + .max(1) == .unlimited)
        #expect(Subscribers.Demand.max(1) - .max(5) == .none)
        #expect(Subscribers.Demand.unlimited - .max(5) == .unlimited)
        #expect(Subscribers.Demand.max(2) * 3 == .max(6))
        #expect(Subscribers.Demand.max(3) > 2)
        #expect(Subscribers.Demand.unlimited.max == nil)
        #expect(Subscribers.Demand.max(4).description == "max(4)")
    }

    @Test func sumsAndProductsAboveIntMaxAreUnlimited() {
        #expect(Subscribers.Demand.max(Int.max) + .max(1) == .unlimited)
        #expect(Subscribers.Demand.max(Int.max) + 1 == .unlimited)
        #expect(Subscribers.Demand.max(Int.max) * 2 == .unlimited)
        #expect((Subscribers.Demand.max(Int.max) + .max(Int.max)).max == nil)
        #expect(Subscribers.Demand.max(Int.max).max == Int.max)
    }

    @Test func addingOrSubtractingIntMinDoesNotTrap() {
        var demand = Subscribers.Demand.max(5)
        demand += Int.min
        #expect(demand == .none)
        #expect(Subscribers.Demand.max(5) + (-2) == .max(3))
    }

    @Test func subtractingANegativeCountAddsButASumBeyondIntMaxIsNoDemand() {
        #expect(Subscribers.Demand.max(5) - (-2) == .max(7))
        #expect(Subscribers.Demand.max(Int.max) - (-1) == .none)
        #expect(Subscribers.Demand.max(5) - Int.min == .none)
        #expect(Subscribers.Demand.unlimited - (-1) == .unlimited)
        var demand = Subscribers.Demand.max(Int.max)
        demand -= -1
        #expect(demand == .none)
    }

    @Test func encodesAsCombineDoesWithUnlimitedAsIntMaxPlusOne() throws {
        let encoded = try JSONEncoder().encode([Subscribers.Demand.max(3), .unlimited, .none])
        #expect(String(decoding: encoded, as: UTF8.self) == "[3,9223372036854775808,0]")
        let decoded = try JSONDecoder().decode([Subscribers.Demand].self, from: encoded)
        #expect(decoded == [.max(3), .unlimited, .none])
    }

    @Test func aNegativeDemandIsAPreconditionFailure() async {
        await #expect(processExitsWith: .failure) { _ = Subscribers.Demand.max(-1) }
    }
}
