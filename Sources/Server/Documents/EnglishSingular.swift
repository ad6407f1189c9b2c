import Synchronization

/// The singular of an English plural as json-server 0.17 finds it (it uses the `pluralize` package, 8.0):
/// the name of a collection's parent field (`dishes` → `dishId`), for `_embed`, `_expand`, nested routes
/// and the cascade.
///
/// The rules are data, read top to bottom: a word that is already an irregular singular stays; an irregular
/// plural gives its singular; an uncountable word stays; otherwise the first suffix rule whose ending the word
/// has replaces that ending. Words are compared lowercased, and the replaced part keeps the case it had
/// (`People` → `Person`, `blogPosts` → `blogPost`).
///
/// ```swift
/// EnglishSingular.of("dishes")   // "dish"
/// EnglishSingular.of("people")   // "person"
/// EnglishSingular.of("news")     // "news"
/// ```
enum EnglishSingular {
    /// The singular of `word`.
    static func of(_ word: String) -> String {
        // NB: asked for a resource's name on every relation of every item answered; the names are few.
        if let cached = known.withLock({ $0[word] }) { return cached }
        let singular = byTheRules(word)
        known.withLock { if $0.count < 4_096 { $0[word] = singular } }
        return singular
    }

    /// The singulars found so far, by word.
    private static let known = Mutex<[String: String]>([:])

    /// The singular of `word` by the rules.
    private static func byTheRules(_ word: String) -> String {
        let lower = word.lowercased()
        if irregularSingulars.contains(lower) { return restoringCase(of: word, lower) }
        if let single = irregularPlurals[lower] { return restoringCase(of: word, single) }
        if uncountables.contains(lower) { return word }
        let letters = Array(lower)
        // NB: resource names are ASCII; a word whose lowercase has other letters is taken lowercased.
        let original = letters.count == word.count ? Array(word) : letters
        for rule in rules {
            guard let stem = rule.match(letters) else { continue }
            guard let becomes = rule.becomes else { return word }
            // The matched part (the stem and the ending) becomes the stem and the rule's new ending.
            let start = original.count - stem - rule.ending.count
            let matched = String(original[start...])
            let kept = String(original[start..<(start + stem)])
            return String(original[..<start]) + restoringCase(of: matched, kept + becomes)
        }
        return word
    }

    /// `replacement` spelled in the case of `original`: lowercase, uppercase or capitalized as it is.
    private static func restoringCase(of original: String, _ replacement: String) -> String {
        if original == replacement { return replacement }
        if original == original.lowercased() { return replacement.lowercased() }
        if original == original.uppercased() { return replacement.uppercased() }
        if let first = original.first, first.isUppercase {
            return replacement.prefix(1).uppercased() + replacement.dropFirst().lowercased()
        }
        return replacement.lowercased()
    }

    /// One suffix rule: a word ending in one of `stems` (any text when there is none) followed by `ending`
    /// gets `becomes` instead of the ending (nil: the word stays as it is).
    struct Rule: Sendable {
        /// What may come right before the ending; `*` in a stem is any one letter not in `notBefore`.
        let stems: [[Character]]
        let ending: [Character]
        let becomes: String?
        /// The stem must start the word (or follow a character that is not a letter, digit or `_`).
        let startsWord: Bool
        /// Letters the `*` of a stem may not be.
        let notBefore: Set<Character>

        init(
            stems: [String], ending: String, becomes: String? = nil, startsWord: Bool = false,
            notBefore: Set<Character> = []
        ) {
            self.stems = stems.map(Array.init)
            self.ending = Array(ending)
            self.becomes = becomes
            self.startsWord = startsWord
            self.notBefore = notBefore
        }

        /// The length of the stem when `letters` (lowercased) end with a stem and the ending; nil otherwise.
        func match(_ letters: [Character]) -> Int? {
            guard letters.count >= ending.count, letters.suffix(ending.count).elementsEqual(ending) else { return nil }
            let end = letters.count - ending.count
            if stems.isEmpty { return 0 }
            for stem in stems where end >= stem.count {
                let start = end - stem.count
                let fits = zip(letters[start..<end], stem).allSatisfy { letter, wanted in
                    wanted == "*" ? !notBefore.contains(letter) : letter == wanted
                }
                guard fits else { continue }
                if startsWord, start > 0, Self.isWordCharacter(letters[start - 1]) { continue }
                return stem.count
            }
            return nil
        }

        private static func isWordCharacter(_ character: Character) -> Bool {
            character == "_" || (character.isASCII && (character.isLetter || character.isNumber))
        }
    }

    private static let vowels: Set<Character> = ["a", "e", "i", "o", "u"]

    /// The suffix rules, the first that fits wins.
    static let rules: [Rule] = [
        // Endings of words with no plural: `chinese`, `reindeer`, `swordfish`, `famous`, `smallpox`.
        Rule(stems: ["*"], ending: "ese", notBefore: vowels),
        Rule(stems: ["pokemon", "pokémon", "deer", "fish", "measles", "ois", "ous", "pox", "sheep"], ending: ""),
        Rule(stems: [], ending: "men", becomes: "man"),
        Rule(stems: ["eau"], ending: "x", becomes: ""),
        Rule(stems: ["child"], ending: "ren", becomes: ""),
        Rule(stems: ["pe"], ending: "ople", becomes: "rson"),
        Rule(stems: ["person"], ending: ""),
        // Latin and Greek plurals: `matrices`, `indices`, `algae`, `criteria`, `data`, `alumni`.
        Rule(stems: ["matr", "append"], ending: "ices", becomes: "ix"),
        Rule(stems: ["cod", "mur", "sil", "vert", "ind"], ending: "ices", becomes: "ex"),
        Rule(stems: ["alumn", "alg", "vertebr"], ending: "ae", becomes: "a"),
        Rule(
            stems: [
                "apheli", "hyperbat", "periheli", "asyndet", "noumen", "phenomen", "criteri", "organ", "prolegomen",
                "hedr", "automat",
            ], ending: "a", becomes: "on"),
        Rule(
            stems: [
                "agend", "addend", "millenni", "dat", "extrem", "bacteri", "desiderat", "strat", "candelabr", "errat",
                "ov", "symposi", "curricul", "quor",
            ], ending: "a", becomes: "um"),
        Rule(stems: latinUs, ending: "i", becomes: "us"),
        Rule(stems: latinUs, ending: "us"),
        Rule(stems: ["test"], ending: "es", becomes: "is"),
        Rule(stems: ["test"], ending: "is"),
        // `movies`, `emus`: a plain `s` where the rules below would take more.
        Rule(stems: ["movie", "twelve", "abuse", "emu", "enu"], ending: "s", becomes: ""),
        Rule(
            stems: ["analy", "diagno", "parenthe", "progno", "synop", "the", "empha", "cri", "ne"], ending: "ses",
            becomes: "sis"),
        Rule(stems: ["analy", "diagno", "parenthe", "progno", "synop", "the", "empha", "cri", "ne"], ending: "sis"),
        // `-es` after a hissing sound or some `-o` words: `boxes`, `matches`, `dishes`, `buses`, `heroes`.
        Rule(stems: sibilants, ending: "es", becomes: "", notBefore: ["a", "o", "u"]),
        Rule(stems: sibilants, ending: "", notBefore: ["a", "o", "u"]),
        Rule(stems: ["seraph", "cherub"], ending: "im", becomes: ""),
        Rule(stems: ["titm", "m", "l"], ending: "ice", becomes: "ouse", startsWord: true),
        Rule(stems: ["mon", "smil"], ending: "ies", becomes: "ey", startsWord: true),
        Rule(
            stems: [
                "p", "l", "zomb", "t", "neckt", "crosst", "coll", "faer", "food", "gen", "goon", "group", "lass",
                "talk", "goal", "cut",
            ], ending: "ies", becomes: "ie", startsWord: true),
        Rule(stems: [], ending: "ies", becomes: "y"),
        // `leaves`, `wolves`, `halves`, `hooves`; then `wives`, `knives`, `lives`.
        Rule(stems: ["ar", "wol", "al", "el", "ea", "eo", "oa", "oo"], ending: "ves", becomes: "f"),
        Rule(stems: ["wi", "kni"], ending: "ves", becomes: "fe"),
        Rule(
            stems: ["afterli", "halfli", "highli", "lowli", "midli", "nonli", "nightli"], ending: "ves", becomes: "fe"),
        Rule(stems: ["li"], ending: "ves", becomes: "fe", startsWord: true),
        Rule(stems: ["ss"], ending: ""),
        Rule(stems: [], ending: "s", becomes: ""),
    ]

    /// Latin `-us` words whose plural is `-i`.
    private static let latinUs = [
        "alumn", "syllab", "vir", "radi", "nucle", "fung", "cact", "stimul", "termin", "bacill", "foc", "uter", "loc",
        "strat",
    ]

    /// What comes before `-es` in a plural whose singular drops just the `-es` (`*us`: `bus`, not `virus`).
    private static let sibilants = [
        "x", "ch", "ss", "sh", "zz", "tto", "go", "cho", "alias", "*us", "tlas", "tmas", "gas", "hero", "ato", "gro",
        "aris", "eris", "iris", "oris", "uris",
    ]

    /// Irregular plurals and their singulars.
    static let irregularPlurals: [String: String] = [
        "we": "i", "us": "me", "they": "she", "them": "them", "ourselves": "myself", "yourselves": "yourself",
        "themselves": "themself", "are": "is", "were": "was", "have": "has", "these": "this", "those": "that",
        "echoes": "echo", "dingoes": "dingo", "volcanoes": "volcano", "tornadoes": "tornado", "torpedoes": "torpedo",
        "genera": "genus", "viscera": "viscus", "stigmata": "stigma", "stomata": "stoma", "dogmata": "dogma",
        "lemmata": "lemma", "schemata": "schema", "anathemata": "anathema", "oxen": "ox", "axes": "axe",
        "dice": "die", "yeses": "yes", "feet": "foot", "eaves": "eave", "geese": "goose", "teeth": "tooth",
        "quizzes": "quiz", "humans": "human", "proofs": "proof", "carves": "carve", "valves": "valve",
        "looies": "looey", "thieves": "thief", "grooves": "groove", "pickaxes": "pickaxe", "passersby": "passerby",
    ]

    /// The singulars of the irregular plurals, which stay as they are (`human` is not a `-man` word).
    static let irregularSingulars = Set(irregularPlurals.values).union(["he", "herself", "himself", "itself"])

    /// Words with no plural of their own.
    static let uncountables: Set<String> = [
        "adulthood", "advice", "agenda", "aid", "aircraft", "alcohol", "ammo", "analytics", "anime", "athletics",
        "audio", "bison", "blood", "bream", "buffalo", "butter", "carp", "cash", "chassis", "chess", "clothing", "cod",
        "commerce", "cooperation", "corps", "debris", "diabetes", "digestion", "elk", "energy", "equipment",
        "excretion", "expertise", "firmware", "flounder", "fun", "gallows", "garbage", "graffiti", "hardware",
        "headquarters", "health", "herpes", "highjinks", "homework", "housework", "information", "jeans", "justice",
        "kudos", "labour", "literature", "machinery", "mackerel", "mail", "media", "mews", "moose", "music", "mud",
        "manga", "news", "only", "personnel", "pike", "plankton", "pliers", "police", "pollution", "premises", "rain",
        "research", "rice", "salmon", "scissors", "series", "sewage", "shambles", "shrimp", "software", "species",
        "staff", "swine", "tennis", "traffic", "transportation", "trout", "tuna", "wealth", "welfare", "whiting",
        "wildebeest", "wildlife", "you",
    ]
}
