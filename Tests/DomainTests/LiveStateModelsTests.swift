import Domain
import Reactive
import Testing

/// The container the server builds once.
@Suite struct LiveStateModelsTests {
    @Test func buildsEveryModelOnTheEmbeddedData() {
        let models = LiveStateModels(commitTodo: { _ in })
        #expect(models.todos.currentTasks.isEmpty)
        #expect(models.posts.posts.value.count == 100)
        #expect(models.albums.albumSubject.value.count == 5000)
        #expect(models.frameworks.list.value.count >= 12)
        #expect(models.movies.results.value == nil)
    }
}
