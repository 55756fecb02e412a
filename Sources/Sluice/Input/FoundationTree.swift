import Foundation

/// In-memory Foundation values (from `JSONSerialization`, a property list, or built by hand) turned into JSON
/// text, so that the same compiled plans map them as they map files.
///
/// Dictionaries must have string keys; `Date` becomes ISO 8601 text (a date field reads it), `Data` becomes
/// base64 text (a bytes field reads it); `NSNull` is null. Anything else that is not JSON is an error.
enum FoundationTree {
    static func jsonBytes(_ tree: Any) throws(SluiceError) -> [UInt8] {
        let normalized = try normalize(tree, path: "$")
        do {
            return Array(try JSONSerialization.data(withJSONObject: normalized, options: [.fragmentsAllowed]))
        } catch {
            throw .invalidInput(source: "the value", message: "cannot be written as JSON: \(error.localizedDescription)")
        }
    }

    private static func normalize(_ value: Any, path: String) throws(SluiceError) -> Any {
        switch value {
        case let dictionary as [String: Any]:
            var result: [String: Any] = [:]
            for (key, element) in dictionary { result[key] = try normalize(element, path: path + "." + FieldPath.escaped(key: key)) }
            return result
        case let array as [Any]:
            var result: [Any] = []
            for (index, element) in array.enumerated() { result.append(try normalize(element, path: "\(path)[\(index)]")) }
            return result
        case let date as Date:
            return date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        case let data as Data:
            return data.base64EncodedString()
        case is String, is NSNull, is Bool, is Int, is Int64, is UInt64, is Double, is NSNumber, is Decimal:
            return value
        default:
            throw .invalidInput(source: path, message: "a \(type(of: value)) is not a JSON value")
        }
    }
}

extension Input {
    /// Foundation values (a `[String: Any]` record, or an array of them) as input: read as a document when the
    /// value is one record, as a top-level array otherwise.
    /// - Throws: ``SluiceError/invalidInput(source:message:)`` when the value holds something that is not JSON.
    public static func foundation(_ tree: Any) throws(SluiceError) -> Input {
        .bytes(try FoundationTree.jsonBytes(tree), name: "<foundation value>")
    }
}
