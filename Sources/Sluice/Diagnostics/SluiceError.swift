import Foundation

/// Errors that stop a run, as opposed to ``Rejection``s, which are reported per record while a run goes on.
///
/// The description says what happened in one message (with every mapping problem, or the rejection's location
/// and key paths), and so does `localizedDescription` (``SluiceError`` is a `LocalizedError`).
public enum SluiceError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// A mapping that does not compile; every problem is listed, each naming its field.
    case invalidMapping([MappingProblem])
    /// The reader's rejection policy is ``RejectionPolicy/stop`` and this record was rejected.
    case rejected(Rejection)
    /// A rejected record that leaves no safe place to resume: malformed JSON, or a record over the size limit,
    /// inside a top-level array, a document or a stream of concatenated values. Every record before it has been
    /// delivered, and this one was reported in the last batch's rejections.
    case streamEnded(source: String, Rejection)
    /// Reading the input failed.
    case io(source: String, byteOffset: Int, message: String)
    /// Writing to a destination (a file, standard output, a database) failed.
    case write(destination: String, message: String)
    /// The reader was configured with values it cannot work with.
    case invalidOptions(String)
    /// The records path leads nowhere in this input, or to a value that holds no records; records delivered
    /// before it was noticed stand.
    case recordsPath(source: String, message: String)
    /// The input is not what the call needs: a header line that names no columns, a value that holds no record, a
    /// Foundation value that is not JSON, a file with no array of records to split.
    case invalidInput(source: String, message: String)
    /// More records were rejected than the run allows (`--max-rejects`); the message counts them and names the last.
    case tooManyRejections(String)

    /// What kind of failure an error is, so that a job can tell its own mistakes from its input's and from the
    /// machine's: fix the options, set the input aside, or try again.
    public enum Category: String, Sendable, Hashable, CaseIterable {
        /// The input is not well-formed JSON (or not UTF-8, or holds a second value where one was expected).
        case syntax
        /// The input ends inside a record.
        case truncated
        /// The input is JSON, but its values or its layout do not fit the mapping or the limits.
        case data
        /// The mapping or the options cannot work, whatever the input holds.
        case options
        /// Reading the input failed.
        case io
        /// Writing a destination (a file, standard output, a database) failed.
        case sink
    }

    /// The error's kind (see ``Category``); for a rejected record, the kind of its first failure.
    public var category: Category {
        switch self {
        case .invalidMapping, .invalidOptions: .options
        case .rejected(let rejection), .streamEnded(_, let rejection): Self.category(of: rejection.failures.first?.kind)
        case .io: .io
        case .write: .sink
        case .recordsPath, .invalidInput, .tooManyRejections: .data
        }
    }

    private static func category(of kind: Rejection.Kind?) -> Category {
        switch kind {
        case .malformedJSON, .extraValue, .invalidUTF8: .syntax
        case .truncated: .truncated
        case .typeMismatch, .outOfRange, .missing, .null, .nestingTooDeep, .recordTooLarge, .validation, .unmappedKey, .custom, nil: .data
        }
    }

    /// The same as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }

    public var description: String {
        switch self {
        case .invalidMapping(let problems):
            return "invalid mapping (\(problems.count) problem\(problems.count == 1 ? "" : "s")):\n"
                + problems.map { "  - \($0)" }.joined(separator: "\n")
        case .rejected(let rejection):
            return "rejected \(rejection)"
        case .streamEnded(let source, let rejection):
            return "\(source): cannot read past rejected \(rejection)"
        case .io(let source, let byteOffset, let message):
            return "\(source): read error at byte \(byteOffset): \(message)"
        case .write(let destination, let message):
            return "\(destination): write error: \(message)"
        case .invalidOptions(let message):
            return "invalid options: \(message)"
        case .recordsPath(let source, let message), .invalidInput(let source, let message):
            return "\(source): \(message)"
        case .tooManyRejections(let message):
            return message
        }
    }
}

/// One problem found while validating a mapping.
public struct MappingProblem: Sendable, Hashable, CustomStringConvertible {
    /// The field the problem belongs to, or `nil` for problems of the mapping as a whole.
    public var field: String?
    /// What is wrong, in words.
    public var message: String
    /// Where the problem is in a mapping file: `nil` for mappings built in code.
    public var location: Location?
    /// For a problem of the mapping as a whole, the setting it is about, so that a file can say where that is.
    var setting: Setting?

    /// A place in a mapping file: the file as it was named when loaded, and the line and column (from 1, in
    /// Unicode scalars) where the value at fault starts.
    public struct Location: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The mapping file, as it was named when it was loaded.
        public var source: String
        /// The line, from 1.
        public var line: Int
        /// The column, from 1, in Unicode scalars.
        public var column: Int

        /// A place in the mapping file `source`.
        public init(source: String, line: Int, column: Int) {
            self.source = source
            self.line = line
            self.column = column
        }

        public var description: String { "\(source):\(line):\(column)" }

        public static func < (left: Location, right: Location) -> Bool {
            (left.line, left.column) < (right.line, right.column)
        }
    }

    /// A top-level setting of a mapping (`ignore`, `records`), and the entry of it when it is a list.
    struct Setting: Sendable, Hashable {
        var key: String
        var index: Int?
    }

    /// A problem with `field` (nil: the mapping as a whole), saying `message`, found at `location` in a mapping file.
    public init(field: String?, message: String, location: Location? = nil) {
        self.field = field
        self.message = message
        self.location = location
    }

    init(setting key: String, index: Int? = nil, message: String) {
        self.init(field: nil, message: message)
        setting = Setting(key: key, index: index)
    }

    /// `file:line:column: field 'name': message`, without the parts that are unknown.
    public var description: String {
        let place = location.map { "\($0): " } ?? ""
        if let field { return place + "field '\(field)': \(message)" }
        return place + message
    }
}
