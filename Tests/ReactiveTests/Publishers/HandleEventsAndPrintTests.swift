import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct HandleEventsAndPrintTests {
    @Test func seesEveryEvent() {
        var log: [String] = []
        let tracker = [1].publisher.handleEvents(
            receiveSubscription: { _ in log.append("subscription") },
            receiveOutput: { log.append("output \($0)") },
            receiveCompletion: { _ in log.append("completion") },
            receiveCancel: { log.append("cancel") },
            receiveRequest: { log.append("request \($0)") }
        ).track()
        #expect(tracker.values == [1])
        #expect(log == ["subscription", "request unlimited", "output 1", "completion"])
    }

    @Test func printWritesOneLinePerEvent() {
        final class Lines: TextOutputStream, @unchecked Sendable {
            var text = ""
            func write(_ string: String) { text += string }
        }
        let lines = Lines()
        _ = [1].publisher.print("n", to: lines).track()
        #expect(
            lines.text == "n: receive subscription\nn: request unlimited\nn: receive value: (1)\nn: receive finished\n")
    }
}
