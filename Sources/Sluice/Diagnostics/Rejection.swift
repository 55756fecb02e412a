/// A record that was read but not mapped, with everything needed to find and fix it.
///
/// Mapping is all-or-nothing per record: a rejection lists every failure found in the record, not only the
/// first, and carries the record's raw bytes so that nothing read is lost.
public struct Rejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the record starts.
    public var location: RecordLocation
    /// Every reason the record was rejected, in the order they were found.
    public var failures: [Failure]
    /// The record's bytes as they appear in the input (for a syntax error, up to where the input became unusable;
    /// for an oversized record, its first bytes only, see ``isRawTextTruncated``).
    public var rawText: [UInt8]
    /// Whether ``rawText`` holds only the beginning of the record.
    public var isRawTextTruncated: Bool

    /// A rejection of the record at `location`, for `failures`, with the record's bytes (or their beginning).
    public init(location: RecordLocation, failures: [Failure], rawText: [UInt8], isRawTextTruncated: Bool = false) {
        self.location = location
        self.failures = failures
        self.rawText = rawText
        self.isRawTextTruncated = isRawTextTruncated
    }

    /// One line: the location, then each failure, separated by `; `.
    public var description: String {
        "\(location): " + failures.map(\.description).joined(separator: "; ")
    }

    /// Why one part of a record could not be mapped.
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        /// The key path of the value, rendered from the record's root: `$`, `$.user.stats.views`, `$.tags[2]`.
        public var keyPath: String
        /// What went wrong.
        public var kind: Kind
        /// What the mapping expected there, e.g. `int64` or `an object`.
        public var expected: String
        /// What the input held instead, e.g. `string "abc"` or `number 1e400`.
        public var found: String
        /// For failures tied to one point in the input (syntax errors), its absolute byte offset.
        public var byteOffset: Int?

        /// A failure at `keyPath`: of `kind`, where the mapping expected `expected` and found `found`.
        public init(keyPath: String, kind: Kind, expected: String, found: String, byteOffset: Int? = nil) {
            self.keyPath = keyPath
            self.kind = kind
            self.expected = expected
            self.found = found
            self.byteOffset = byteOffset
        }

        /// Input that ends inside a record (`found`: the end of the input, or of the line): a truncated record, not
        /// a syntax error.
        static func truncated(at offset: Int, found: String = "the end of the input") -> Failure {
            Failure(keyPath: "$", kind: .truncated, expected: "the rest of the record", found: found, byteOffset: offset)
        }

        /// A document that ends, at `offset`, before any value.
        static func noValue(at offset: Int) -> Failure {
            Failure(keyPath: "$", kind: .truncated, expected: "a JSON value", found: "no value", byteOffset: offset)
        }

        /// Ill-formed JSON, in yajl's words (`message`), with the bytes that show where (`near`, none when empty).
        static func malformedJSON(_ message: String, near shown: UnsafeBufferPointer<UInt8>, at offset: Int) -> Failure {
            var found = message.hasSuffix(".") ? String(message.dropLast()) : message
            if !shown.isEmpty { found += " near " + ValueDescription.quoted(shown) }
            return Failure(keyPath: "$", kind: .malformedJSON, expected: "well-formed JSON", found: found, byteOffset: offset)
        }

        public var description: String {
            var text: String
            switch kind {
            case .validation: text = "\(keyPath): \(expected) failed, found \(found)"
            case .custom: text = "\(keyPath): \(expected) failed: \(found)"
            default: text = "\(keyPath): expected \(expected), found \(found)"
            }
            if let byteOffset { text += " at byte \(byteOffset)" }
            return text
        }
    }

    /// The categories of failure, so that callers can branch without parsing messages.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The JSON value has another type than the field accepts (a string for an int64, an array for an object).
        case typeMismatch
        /// A number that does not fit the field's type (an int64 beyond its range, a fraction for an int64).
        case outOfRange
        /// A required field whose key is absent.
        case missing
        /// A required field holding JSON `null`.
        case null
        /// The record is not well-formed JSON.
        case malformedJSON
        /// The input ended (or an NDJSON line ended) inside the record.
        case truncated
        /// An NDJSON line holding more than one JSON value.
        case extraValue
        /// Nesting deeper than the reader's depth limit.
        case nestingTooDeep
        /// A record larger than the reader's maximum record size.
        case recordTooLarge
        /// Text that is not well-formed UTF-8: an overlong form, an encoded surrogate, a code point above
        /// U+10FFFF, a byte no sequence starts with (such text is never written).
        case invalidUTF8
        /// A value that a field's validator refused (`expected` names the validator).
        case validation
        /// A key the mapping does not read, when the mapping rejects such keys (strict mode).
        case unmappedKey
        /// A typed transform threw or gave no value for a required property, or a finishing hook threw
        /// (`found` holds the message).
        case custom
    }
}
