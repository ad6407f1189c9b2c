extension EmbeddedData {
    /// 100 jsonplaceholder-shaped posts: users 1...10 wrote 10 posts each, ids 1...100.
    package static let posts: [Post] = {
        var generator = SeededGenerator(seed: 2)
        return (1...100).map { id in
            let title = sentence(Int.random(in: 3...8, using: &generator), using: &generator)
            let body = (0..<4).map { _ in sentence(Int.random(in: 6...10, using: &generator), using: &generator) }
            return Post(userId: (id - 1) / 10 + 1, id: id, title: title, body: body.joined(separator: "\n"))
        }
    }()
}
