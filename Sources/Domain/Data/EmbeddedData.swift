/// The data set LiveState serves without `--upstream`: generated in code, deterministically, in the shapes of
/// jsonplaceholder (posts, photos) and of the seeds' lists (Apple frameworks, a film catalogue).
///
/// Each set is a `static let`, built once on first use.
package enum EmbeddedData {
    /// jsonplaceholder's lorem-ipsum vocabulary, from which titles and bodies are drawn.
    static let words: [String] = """
        a ab accusamus ad adipisci alias aliquam aliquid amet animi aperiam architecto asperiores aspernatur \
        assumenda aut autem beatae blanditiis commodi consectetur consequatur consequuntur corporis corrupti \
        culpa cum cumque cupiditate debitis delectus deleniti deserunt dicta dignissimos distinctio dolor \
        dolore dolorem doloremque dolores doloribus dolorum ducimus ea eaque earum eius eligendi enim eos est \
        et eum eveniet ex excepturi exercitationem expedita explicabo facere facilis fuga fugiat fugit harum \
        hic id illo illum impedit in incidunt ipsa ipsam ipsum iste itaque iure iusto labore laboriosam \
        laborum laudantium libero magnam magni maiores maxime minima minus modi molestiae molestias mollitia \
        nam natus necessitatibus nemo neque nesciunt nihil nisi nobis non nostrum nulla numquam obcaecati \
        odio odit officia officiis omnis optio pariatur perferendis perspiciatis placeat porro possimus \
        praesentium provident quae quaerat quam quas quasi qui quia quibusdam quidem quis quisquam quo quod \
        quos ratione recusandae reiciendis rem repellat repellendus reprehenderit repudiandae rerum saepe \
        sapiente sed sequi similique sint sit soluta sunt suscipit tempora tempore temporibus tenetur totam \
        ullam unde ut vel velit veniam veritatis vero vitae voluptas voluptate voluptatem voluptates \
        voluptatibus voluptatum
        """.split(separator: " ").map(String.init)

    /// `count` lorem words joined by spaces, drawn from `generator`.
    static func sentence(_ count: Int, using generator: inout SeededGenerator) -> String {
        (0..<count).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ")
    }

    /// A colour for `id` as six lowercase hex digits (`rrggbb`), spread over the colour space.
    package static func colour(for id: Int) -> String {
        let value = UInt32(truncatingIfNeeded: id &* 0x9E37_79B1) & 0xFF_FFFF
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 6 - hex.count) + hex
    }

    /// The server's own generated image of `size` pixels for `id`, e.g. `/placeholder/600/92c952`.
    package static func placeholderPath(size: Int, id: Int) -> String {
        "/placeholder/\(size)/\(colour(for: id))"
    }
}
