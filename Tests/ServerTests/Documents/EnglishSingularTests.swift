import Testing

@testable import Server

/// `EnglishSingular`: each word's singular as json-server 0.17.4's `pluralize` (8.0.0) gives it, the pairs
/// taken from running `pluralize.singular` on each word.
@Suite struct EnglishSingularTests {
    /// Plurals by the suffix rules, irregular and Latin or Greek plurals, uncountables, singulars that stay,
    /// and names as files spell them (camel case, capitals, dashes).
    static let words: [(plural: String, singular: String)] = [
        ("posts", "post"), ("comments", "comment"), ("dishes", "dish"), ("movies", "movie"), ("courses", "course"),
        ("houses", "house"), ("heroes", "hero"), ("matches", "match"), ("branches", "branch"), ("watches", "watch"),
        ("people", "person"), ("children", "child"), ("men", "man"), ("women", "woman"), ("teeth", "tooth"),
        ("feet", "foot"), ("mice", "mouse"), ("geese", "goose"), ("indices", "index"), ("data", "datum"),
        ("criteria", "criterion"), ("leaves", "leaf"), ("quizzes", "quiz"), ("news", "news"), ("series", "series"),
        ("sheep", "sheep"), ("fish", "fish"), ("categories", "category"), ("buses", "bus"), ("statuses", "status"),
        ("addresses", "address"), ("boxes", "box"), ("wolves", "wolf"), ("knives", "knife"), ("wives", "wife"),
        ("lives", "life"), ("halves", "half"), ("thieves", "thief"), ("oxen", "ox"), ("phenomena", "phenomenon"),
        ("analyses", "analysis"), ("crises", "crisis"), ("matrices", "matrix"), ("vertices", "vertex"),
        ("appendices", "appendix"), ("alumni", "alumnus"), ("cacti", "cactus"), ("fungi", "fungus"),
        ("algae", "alga"), ("species", "species"), ("deer", "deer"), ("salmon", "salmon"), ("aircraft", "aircraft"),
        ("equipment", "equipment"), ("information", "information"), ("media", "media"), ("agendas", "agenda"),
        ("axes", "axe"), ("dice", "die"), ("taxes", "tax"), ("potatoes", "potato"), ("echoes", "echo"),
        ("volcanoes", "volcano"), ("zeroes", "zeroe"), ("shoes", "shoe"), ("cookies", "cooky"), ("ties", "tie"),
        ("pies", "pie"), ("zombies", "zombie"), ("monies", "money"), ("smilies", "smiley"), ("lice", "louse"),
        ("titmice", "titmouse"), ("chinese", "chinese"), ("famous", "famous"), ("smallpox", "smallpox"),
        ("reindeer", "reindeer"), ("swordfish", "swordfish"), ("blogPosts", "blogPost"), ("People", "Person"),
        ("DISHES", "DISH"), ("Women", "Woman"), ("Mice", "Mouse"), ("settings", "setting"), ("status", "status"),
        ("campus", "campus"), ("genera", "genus"), ("schemata", "schema"), ("cherubim", "cherub"),
        ("chateaux", "chateau"), ("tests", "test"), ("testes", "testis"), ("emus", "emu"), ("menus", "menu"),
        ("diagnoses", "diagnosis"), ("olives", "olive"), ("shelves", "shelf"), ("hooves", "hoof"),
        ("scarves", "scarf"), ("afterlives", "afterlife"), ("stories", "story"), ("companies", "company"),
        ("keys", "key"), ("monkeys", "monkey"), ("humans", "human"), ("germans", "german"),
        ("specimens", "specimen"), ("passersby", "passerby"), ("proofs", "proof"), ("chiefs", "chief"),
        ("gases", "gas"), ("aliases", "alias"), ("atlases", "atlas"), ("canvases", "canvase"), ("bonuses", "bonus"),
        ("viruses", "virus"), ("pokemon", "pokemon"), ("invoices", "invoice"), ("indexes", "index"),
        ("sexes", "sex"), ("taxis", "taxi"), ("staff", "staff"), ("user-profiles", "user-profile"),
        ("order_items", "order_item"), ("user-lives", "user-life"), ("my-pies", "my-pie"), ("slice", "slice"),
        ("person", "person"), ("quiz", "quiz"), ("human", "human"), ("child", "child"), ("index", "index"),
        ("datum", "datum"), ("goose", "goose"),
    ]

    @Test(arguments: words)
    func givesPluralizesSingular(_ word: (plural: String, singular: String)) {
        #expect(EnglishSingular.of(word.plural) == word.singular)
    }

    @Test func parentFieldUsesTheSingular() {
        #expect(DocumentStore.singular("people") + "Id" == "personId")
        #expect(DocumentStore.singular("dishes") + "Id" == "dishId")
    }
}
