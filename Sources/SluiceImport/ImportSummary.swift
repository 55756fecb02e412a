import Foundation
import Sluice

/// What an import did: counts per table, the rejections by kind, time, memory and how it ended.
public struct ImportSummary: Sendable {
    /// How the run ended, and the exit status that says so.
    public enum Outcome: Sendable, Equatable {
        /// Every record read was written.
        case complete
        /// Finished, and some records were rejected.
        case someRejected
        /// Stopped by an error (the message says which and why).
        case failed(String)
        /// Stopped by SIGINT or SIGTERM after committing what was written.
        case interrupted

        /// 0, 2, 1 and 130.
        public var exitStatus: Int32 {
            switch self {
            case .complete: 0
            case .someRejected: 2
            case .failed: 1
            case .interrupted: 130
            }
        }

        var name: String {
            switch self {
            case .complete: "complete"
            case .someRejected: "some_rejected"
            case .failed: "failed"
            case .interrupted: "interrupted"
            }
        }
    }

    /// Counts for one table. However the run ended, `recordsRead == recordsWritten + recordsRejected +
    /// recordsRolledBack + recordsSkipped`.
    public struct TableCounts: Sendable, Hashable {
        /// The table's name.
        public var name: String
        /// Records read for the table: written, rejected, rolled back, or skipped as committed by an earlier run.
        public var recordsRead = 0
        /// Records whose rows stay in the destination.
        public var recordsWritten = 0
        /// Records rejected whose rejections stay (in a database's `<table>_rejects`).
        public var recordsRejected = 0
        /// Records written or rejected and then taken back (a rollback to the last commit, files removed), or
        /// lost in a write that failed: not in the destination, and read again by `--resume`.
        public var recordsRolledBack = 0
        /// Records a resumed run passed over because an earlier run committed them.
        public var recordsSkipped = 0
        /// How many of ``recordsSkipped`` the earlier runs rejected.
        public var recordsSkippedRejected = 0

        /// Records read that none of the other counts holds yet: those in a write that failed.
        var recordsUnaccounted: Int { recordsRead - recordsWritten - recordsRejected - recordsRolledBack - recordsSkipped }
    }

    /// Rows written into one child table (a records' table's array, one row per element, see `MappedTables`).
    public struct ChildTableCounts: Sendable, Hashable {
        /// The child table's name (`tweets_hashtags`).
        public var name: String
        /// The records' table whose records' arrays the rows come from.
        public var records: String
        /// Rows that stay in the destination.
        public var rowsWritten = 0
        /// Rows written and then taken back with their records (a rollback, files removed).
        public var rowsRolledBack = 0
    }

    /// Rejections that share a key path and kind: how many, and the first one.
    public struct RejectionGroup: Sendable, Hashable {
        /// The key path the failures are at (`$.user.id`).
        public var keyPath: String
        /// What went wrong there.
        public var kind: Rejection.Kind
        /// How many failures the group holds.
        public var count: Int
        /// The first of them.
        public var first: Rejection.Failure
        /// The input the first was read from.
        public var firstSource: String
        /// Where the first one's record sits in that input.
        public var firstLocation: RecordLocation
    }

    /// The destination as messages name it (``Destination/description``: a PostgreSQL URL without its password,
    /// `<stdout>` for standard output).
    public var destination: String
    /// Counts per records' table, in the job's order.
    public var tables: [TableCounts]
    /// The child tables, each after the tables before it in ``tables``.
    public var childTables: [ChildTableCounts] = []
    /// The rejections' failures by key path and kind, in the order each was first seen.
    public var rejectionGroups: [RejectionGroup] = []
    /// Bytes read from the inputs as stored.
    public var bytesRead = 0
    /// Wall-clock seconds the run took.
    public var seconds = 0.0
    /// The process's peak resident memory, in bytes.
    public var peakMemoryBytes = 0
    /// Keys no field read, by table and key path, with how often they were seen.
    public var unmappedKeys: [String: Int] = [:]
    /// The records ``unmappedKeys`` were counted over: every record mapped, which can be more than the records
    /// read when `--limit` or a stop ended the run while records were mapped ahead (a chunk, or a batch, at a time).
    public var recordsBehindUnmappedKeys = 0
    /// How the run ended.
    public var outcome = Outcome.complete
    /// What kind of error stopped a run that ``Outcome/failed(_:)``: the input's syntax or data, the options, reading,
    /// or the destination (`SluiceError.Category`), so that a job can tell its own mistakes from its input's and
    /// from the machine's. Nil for any other outcome.
    public var errorCategory: SluiceError.Category?

    /// Records read, over every table.
    public var recordsRead: Int { tables.reduce(0) { $0 + $1.recordsRead } }
    /// Records written, over every table.
    public var recordsWritten: Int { tables.reduce(0) { $0 + $1.recordsWritten } }
    /// Records rejected, over every table.
    public var recordsRejected: Int { tables.reduce(0) { $0 + $1.recordsRejected } }
    /// Records rolled back, over every table.
    public var recordsRolledBack: Int { tables.reduce(0) { $0 + $1.recordsRolledBack } }
    /// Records a resumed run passed over, over every table.
    public var recordsSkipped: Int { tables.reduce(0) { $0 + $1.recordsSkipped } }
    /// Records rejected by the earlier runs a resumed run continues.
    public var recordsSkippedRejected: Int { tables.reduce(0) { $0 + $1.recordsSkippedRejected } }
    /// The import's rejections: this run's and those of the earlier runs it continues, which its status and the
    /// rejection limit take into account.
    public var recordsRejectedInAllRuns: Int { recordsRejected + recordsSkippedRejected }

    /// One line whose counts add up: `sluice: 1,000 records read, 980 written to out.db (tweets), 10 rejected,
    /// 10 rolled back, 12,345 bytes in 0.80 s`; a resumed run adds what the earlier runs imported.
    public var line: String {
        let count = CountText.grouped
        var text = "\(count(recordsRead)) \(recordsRead == 1 ? "record" : "records") read, \(count(recordsWritten)) written to \(destination)"
        if tables.count > 1 {
            text += " (" + tables.map { "\($0.name): \(count($0.recordsWritten))" }.joined(separator: ", ") + ")"
        }
        if !childTables.isEmpty {
            text += ", with " + childTables.map { "\(count($0.rowsWritten)) \($0.rowsWritten == 1 ? "row" : "rows") in \($0.name)" }.joined(separator: ", ")
        }
        text += ", \(count(recordsRejected)) rejected"
        if recordsRolledBack > 0 { text += ", \(count(recordsRolledBack)) rolled back" }
        if recordsSkipped > 0 {
            text += ", \(count(recordsSkipped)) already imported"
            if recordsSkippedRejected > 0 { text += " (\(count(recordsSkippedRejected)) of them rejected)" }
        }
        return text + ", \(count(bytesRead)) bytes in " + String(format: "%.2f", seconds) + " s"
    }

    /// The summary as one JSON object, for orchestrators that run one import per shard.
    public var jsonText: String {
        func quoted(_ text: String) -> String {
            let data = (try? JSONSerialization.data(withJSONObject: [text], options: [])) ?? Data("[\"\"]".utf8)
            return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
        }
        var text = "{\"destination\":\(quoted(destination)),\"status\":\(quoted(outcome.name)),\"exit_status\":\(outcome.exitStatus)"
        if case .failed(let message) = outcome {
            text += ",\"error\":\(quoted(message))"
            if let errorCategory { text += ",\"error_category\":\(quoted(errorCategory.rawValue))" }
        }
        text += ",\"records_read\":\(recordsRead),\"records_written\":\(recordsWritten),\"records_rejected\":\(recordsRejected)"
        text += ",\"records_rolled_back\":\(recordsRolledBack),\"records_skipped\":\(recordsSkipped),\"records_skipped_rejected\":\(recordsSkippedRejected)"
        text += ",\"tables\":[" + tables.map { table in
            "{\"name\":\(quoted(table.name)),\"records_read\":\(table.recordsRead),\"records_written\":\(table.recordsWritten),"
                + "\"records_rejected\":\(table.recordsRejected),\"records_rolled_back\":\(table.recordsRolledBack),"
                + "\"records_skipped\":\(table.recordsSkipped),\"records_skipped_rejected\":\(table.recordsSkippedRejected)}"
        }.joined(separator: ",") + "]"
        text += ",\"child_tables\":[" + childTables.map { table in
            "{\"name\":\(quoted(table.name)),\"records_table\":\(quoted(table.records)),\"rows_written\":\(table.rowsWritten),\"rows_rolled_back\":\(table.rowsRolledBack)}"
        }.joined(separator: ",") + "]"
        text += ",\"rejections\":[" + rejectionGroups.map { group in
            "{\"path\":\(quoted(group.keyPath)),\"kind\":\(quoted(group.kind.rawValue)),\"count\":\(group.count),"
                + "\"first\":\(quoted("\(group.first)")),\"first_source\":\(quoted(group.firstSource)),"
                + "\"first_ordinal\":\(group.firstLocation.ordinal),\"first_line\":\(group.firstLocation.line)}"
        }.joined(separator: ",") + "]"
        text += ",\"bytes_read\":\(bytesRead),\"seconds\":" + String(format: "%.3f", seconds) + ",\"peak_memory_bytes\":\(peakMemoryBytes)"
        text += ",\"unmapped_keys\":{" + unmappedKeys.sorted { $0.key < $1.key }.map { "\(quoted($0.key)):\($0.value)" }.joined(separator: ",") + "}"
        return text + "}\n"
    }

    /// `319,989 × $.edited: expected date, found false (first: dump.ndjson record 1, line 1)`
    public static func describe(_ group: RejectionGroup) -> String {
        "\(group.count) × \(group.first) (first: \(group.firstSource) \(group.firstLocation))"
    }
}
