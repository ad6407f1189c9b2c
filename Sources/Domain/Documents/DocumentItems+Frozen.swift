extension DocumentItems {
    /// A resource's items as they stood at one version, kept to be encoded later, on any thread: the JSON
    /// `encoded(singular:)` gave then. Holds the slots' array (shared with the items until their next change,
    /// which then copies the references, not the items), never their bytes.
    ///
    /// ```swift
    /// let frozen = items.frozen(singular: false)  // no encoding
    /// var out: [UInt8] = []
    /// frozen.write(into: &out)                    // `[{…},{…}]` as the items stood
    /// ```
    package struct Frozen: Sendable {
        let slots: [StoredDocument?]
        /// The singular resource's object; nil for a collection.
        let object: [UInt8]?

        /// Appends the JSON (the array of the items' bytes, or the object) to `out`.
        package func write(into out: inout [UInt8]) {
            if let object {
                out.append(contentsOf: object)
                return
            }
            out.append(UInt8(ascii: "["))
            var first = true
            for case let document? in slots {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(contentsOf: document.bytes)
            }
            out.append(UInt8(ascii: "]"))
        }
    }
}
