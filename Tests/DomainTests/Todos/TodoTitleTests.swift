import Testing

@testable import Domain

/// The title rule of `addNewTask`: trimmed, more than 3 and at most 500 `Character`s.
@Suite struct TodoTitleTests {
    private static let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}"
    private static let refused: [(String, TodoError)] = [
        ("abc", .titleTooShort),
        ("   ab ", .titleTooShort),
        ("", .titleTooShort),
        ("  \n\t ", .titleTooShort),
        (family + "🇫🇷👍🏽", .titleTooShort),
        (String(repeating: "x", count: 501), .titleTooLong),
        ("  \(String(repeating: "é", count: 501))  ", .titleTooLong),
    ]
    private static let kept: [(String, String)] = [
        ("Walk the dog", "Walk the dog"),
        ("  Walk the dog \n", "Walk the dog"),
        ("abcd", "abcd"),
        ("👍🏽👍🏽👍🏽👍🏽", "👍🏽👍🏽👍🏽👍🏽"),
        (String(repeating: "x", count: 500), String(repeating: "x", count: 500)),
        ("  \(String(repeating: "🇫🇷", count: 500)) ", String(repeating: "🇫🇷", count: 500)),
    ]

    @Test(arguments: refused)
    func refuses(_ title: String, because reason: TodoError) {
        #expect(throws: reason) { try TodoTitle.validated(title) }
        #expect(TodoTitle.isAcceptable(title) == false)
    }

    @Test(arguments: kept)
    func keepsTheTrimmedTitle(_ title: String, stored: String) throws {
        #expect(try TodoTitle.validated(title) == stored)
        #expect(TodoTitle.isAcceptable(title))
    }

    @Test func countsCharactersNotScalarsOrBytes() {
        let family = Self.family
        #expect(family.unicodeScalars.count == 7)
        #expect(TodoTitle.isAcceptable(String(repeating: family, count: 3)) == false)
        #expect(TodoTitle.isAcceptable(String(repeating: family, count: 4)))
    }
}
