extension EmbeddedData {
    /// 5000 jsonplaceholder-shaped photos: albums 1...100 hold 50 each, ids 1...5000; `url` and `thumbnailUrl`
    /// point at the server's own `/placeholder/600/rrggbb` and `/placeholder/150/rrggbb`, so they work offline.
    package static let albums: [AlbumModel] = {
        var generator = SeededGenerator(seed: 0)
        return (1...5000).map { id in
            AlbumModel(
                albumId: (id - 1) / 50 + 1,
                id: id,
                title: sentence(Int.random(in: 3...7, using: &generator), using: &generator),
                url: placeholderPath(size: 600, id: id),
                thumbnailUrl: placeholderPath(size: 150, id: id)
            )
        }
    }()
}
