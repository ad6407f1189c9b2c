import Domain
import HTTP
import Reactive

extension Router {
    /// Seed 002's posts: `GET /posts`, `GET /posts/:id`, `POST /posts/refresh`.
    mutating func addPostRoutes(_ site: SeedSite) {
        let posts = site.models.posts
        let snapshot = site.lists.posts
        let live = site.live.posts

        get("/posts") { request in
            try ListQuery.reply(request, cached: snapshot, live: live) { posts.posts.value }
        }
        get("/posts/:id") { request in
            let id = try request.require("id", as: Int.self)
            guard let post = posts.post(id: id) else { throw HTTPError.notFound("There is no post with id \(id).") }
            return try .json(post)
        }
        // `NetworkManager.getData(endPoint: .posts)` again (the embedded set without --upstream), committed.
        addListRefresh(
            "/posts/refresh", .posts, journal: site.journal, embedded: EmbeddedData.posts,
            upstream: { posts.load() }, payload: { .init(posts: $0) }, list: { $0.posts })
    }
}
