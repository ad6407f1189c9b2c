import Foundation
import Reactive
import Testing

@Suite struct CompletionTests {
    struct Problem: Error, Codable, Equatable { let code: Int }

    @Test func encodesAndDecodesUnderCombinesKeys() throws {
        let finished = try JSONEncoder().encode(Subscribers.Completion<Problem>.finished)
        #expect(String(decoding: finished, as: UTF8.self) == #"{"success":true}"#)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let failed = try encoder.encode(Subscribers.Completion<Problem>.failure(Problem(code: 3)))
        #expect(String(decoding: failed, as: UTF8.self) == #"{"error":{"code":3},"success":false}"#)
        let decoded = try JSONDecoder().decode(Subscribers.Completion<Problem>.self, from: failed)
        #expect(decoded == .failure(Problem(code: 3)))
    }
}
