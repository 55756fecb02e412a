import Foundation

/// A validator checked and prepared when the plan compiles, evaluated on a record's row before it is committed.
struct CompiledValidator: Sendable {
    enum Rule {
        case required
        case equalTo([FieldValue])
        case length(ClosedRange<Int>)
        case pattern(PatternMatcher)
        case range(lower: FieldValue?, upper: FieldValue?)
        /// The same for int64 and date columns, read as the words they store: nothing to copy per record.
        case wordRange(lower: Int64, upper: Int64)
        /// The same for decimal columns: bounds in the column's canonical text, compared with it in place.
        case decimalRange(lower: [UInt8]?, upper: [UInt8]?)
        case custom(@Sendable (FieldValue) -> Bool)
        case customBytes(@Sendable (UnsafeBufferPointer<UInt8>) -> Bool)
    }

    let column: Int
    let rule: Rule
    /// How rejections name the rule: `lengthRange(5...12)`.
    let label: String

    /// Checks `validator` against `field` and prepares it; nil (with a problem noted) when it does not fit.
    static func compile(_ validator: Validator, column: Int, field: FieldSpec, problems: inout [MappingProblem]) -> CompiledValidator? {
        func problem(_ message: String) -> CompiledValidator? {
            problems.append(MappingProblem(field: field.name, message: "\(validator): \(message)"))
            return nil
        }
        // A bound is exact: a decimal field's rounding is for its input values, not for the rules they are held to.
        var exact = field
        exact.decimalFormat?.rounding = nil
        func fitted(_ value: FieldValue) -> FieldValue? {
            let coerced = value.coerced(for: exact)
            guard coerced.fitsTypes.contains(field.type) else { return nil }
            // Any text fits a decimal field's kind of value; only a number in its shape is one of its values.
            if field.type.holdsExactDecimals {
                guard case .string(let text) = coerced else { return nil }
                return try? FieldValue.parse(text, for: exact)
            }
            return coerced
        }
        let isText = field.type.layout == .text
        let isOrdered = field.type.isOrdered
        var rule: Rule
        // Labels show values as the field reads them (`equalTo(200)`, not the file's text `"200"`).
        var label = validator.description
        switch validator {
        case .required:
            rule = .required
        case .equalTo(let value):
            guard let fittedValue = fitted(value) else { return problem("\(value) is not a value of type \(field.type)") }
            rule = .equalTo([fittedValue])
            label = Validator.equalTo(fittedValue).description
        case .oneOf(let values):
            guard !values.isEmpty else { return problem("needs at least one value") }
            var fittedValues: [FieldValue] = []
            for value in values {
                guard let fittedValue = fitted(value) else { return problem("\(value) is not a value of type \(field.type)") }
                fittedValues.append(fittedValue)
            }
            rule = .equalTo(fittedValues)
            label = Validator.oneOf(fittedValues).description
        case .length(let count), .minLength(let count), .maxLength(let count):
            guard isText else { return problem("applies to text and bytes, not \(field.type)") }
            guard count >= 0 else { return problem("a length cannot be negative") }
            switch validator {
            case .length: rule = .length(count...count)
            case .minLength: rule = .length(count...Int.max)
            default: rule = .length(0...count)
            }
        case .lengthRange(let range):
            guard isText else { return problem("applies to text and bytes, not \(field.type)") }
            guard range.lowerBound >= 0 else { return problem("a length cannot be negative") }
            rule = .length(range)
        case .pattern(let pattern):
            guard isText && !field.type.holdsRawBytes else { return problem("applies to text, not \(field.type)") }
            do {
                rule = .pattern(try PatternMatcher(pattern))
            } catch {
                return problem("not a regular expression: \(error.message)")
            }
        case .minimum(let value), .maximum(let value):
            guard isOrdered else { return problem("applies to numbers and dates, not \(field.type)") }
            guard let bound = fitted(value) else { return problem("\(value) is not a value of type \(field.type)") }
            if case .minimum = validator {
                rule = .range(lower: bound, upper: nil)
                label = Validator.minimum(bound).description
            } else {
                rule = .range(lower: nil, upper: bound)
                label = Validator.maximum(bound).description
            }
        case .range(let lower, let upper):
            guard isOrdered else { return problem("applies to numbers and dates, not \(field.type)") }
            guard let lowerBound = fitted(lower), let upperBound = fitted(upper) else {
                return problem("its bounds are not values of type \(field.type)")
            }
            guard compare(lowerBound, upperBound) != .orderedDescending else { return problem("its bounds are reversed") }
            rule = .range(lower: lowerBound, upper: upperBound)
            label = Validator.range(lowerBound, upperBound).description
        case .custom(_, let check):
            rule = .custom(check)
        case .customBytes(_, let check):
            guard isText else { return problem("applies to text and bytes, not \(field.type)") }
            rule = .customBytes(check)
        }
        if case .range(let lower, let upper) = rule, let words = wordBounds(lower, upper) {
            rule = .wordRange(lower: words.lower, upper: words.upper)
        }
        if field.type.holdsExactDecimals {
            if case .range(let lower, let upper) = rule {
                func text(_ bound: FieldValue?) -> [UInt8]? { if case .string(let text)? = bound { Array(text.utf8) } else { nil } }
                rule = .decimalRange(lower: text(lower), upper: text(upper))
            }
            // Decimals are held as text but shown as the numbers they are: `min(0.50)`, not `min("0.50")`.
            switch validator {
            case .equalTo, .oneOf, .minimum, .maximum, .range: label = label.replacingOccurrences(of: "\"", with: "")
            case .required, .length, .minLength, .maxLength, .lengthRange, .pattern, .custom, .customBytes: break
            }
        }
        return CompiledValidator(column: column, rule: rule, label: label)
    }

    /// Bounds that are int64 values or dates, as words (open ends as the extremes); nil for other kinds.
    private static func wordBounds(_ lower: FieldValue?, _ upper: FieldValue?) -> (lower: Int64, upper: Int64)? {
        func word(_ value: FieldValue?, _ open: Int64) -> Int64? {
            switch value {
            case nil: open
            case .int64(let number)?: number
            case .date(let nanoseconds)?: nanoseconds
            default: nil
            }
        }
        guard let low = word(lower, .min), let high = word(upper, .max) else { return nil }
        return (low, high)
    }

    /// What a validator says of a value.
    enum Verdict: Equatable {
        case passes, fails
        /// A pattern's matcher reached its step limit on the value: it fails, for that reason.
        case gaveUp
    }

    /// Whether the row's value passes. Inlined into the record loop, which reads the validator in place.
    @inline(__always)
    func verdict(_ storage: ColumnStorage, row: Int) -> Verdict {
        if case .pattern(let matcher) = rule, storage.isValid(row) {
            switch matcher.search(storage.textBytes(row)) {
            case .match: return .passes
            case .noMatch: return .fails
            case .gaveUp: return .gaveUp
            }
        }
        return passes(storage, row: row) ? .passes : .fails
    }

    @inline(__always)
    private func passes(_ storage: ColumnStorage, row: Int) -> Bool {
        let isValid = storage.isValid(row)
        if case .required = rule { return isValid }
        guard isValid else { return true }
        switch rule {
        case .required:
            return true
        case .equalTo(let values):
            let value = storage.fieldValue(row)
            return values.contains(value)
        case .length(let range):
            let bytes = storage.textBytes(row)
            let count = storage.type.holdsRawBytes ? bytes.count : bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
            return range.contains(count)
        case .pattern:
            return true  // searched by verdict(_:row:)
        case .range(let lower, let upper):
            let value = storage.fieldValue(row)
            if let lower, Self.compare(value, lower) == .orderedAscending { return false }
            if let upper, Self.compare(value, upper) == .orderedDescending { return false }
            return true
        case .wordRange(let lower, let upper):
            let value = storage.values.assumingMemoryBound(to: Int64.self)[row]
            return value >= lower && value <= upper
        case .decimalRange(let lower, let upper):
            let value = storage.textBytes(row)
            if let lower, lower.withUnsafeBufferPointer({ DecimalFormat.order(value, $0) }) < 0 { return false }
            if let upper, upper.withUnsafeBufferPointer({ DecimalFormat.order(value, $0) }) > 0 { return false }
            return true
        case .custom(let check):
            return check(storage.fieldValue(row))
        case .customBytes(let check):
            return check(storage.textBytes(row))
        }
    }

    enum Order { case orderedAscending, orderedSame, orderedDescending }

    /// Exact comparison of two values of one ordered type.
    static func compare(_ left: FieldValue, _ right: FieldValue) -> Order {
        func order<T: Comparable>(_ a: T, _ b: T) -> Order { a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame) }
        switch (left, right) {
        case (.int64(let a), .int64(let b)): return order(a, b)
        case (.uint64(let a), .uint64(let b)): return order(a, b)
        case (.double(let a), .double(let b)): return order(a, b)
        case (.date(let a), .date(let b)): return order(a, b)
        case (.string(let a), .string(let b)):
            // The one ordered type of text values: decimals, in their column's canonical text.
            var a = a, b = b
            let sign = a.withUTF8 { a in b.withUTF8 { b in DecimalFormat.order(a, b) } }
            return sign < 0 ? .orderedAscending : (sign > 0 ? .orderedDescending : .orderedSame)
        default: return .orderedSame
        }
    }
}

extension ColumnStorage {
    /// The row's value as a ``FieldValue`` (for validators; the row must be valid).
    func fieldValue(_ row: Int) -> FieldValue {
        switch type {
        case .int64: .int64(values.assumingMemoryBound(to: Int64.self)[row])
        case .uint64: .uint64(values.assumingMemoryBound(to: UInt64.self)[row])
        case .double: .double(values.assumingMemoryBound(to: Double.self)[row])
        case .bool: .bool(values.assumingMemoryBound(to: UInt8.self)[row] != 0)
        case .date: .date(nanoseconds: values.assumingMemoryBound(to: Int64.self)[row])
        case .bytes: .bytes(Array(textBytes(row)))
        case .string, .json, .url, .enumeration, .decimal: .string(String(decoding: textBytes(row), as: UTF8.self))
        }
    }
}
