import Foundation
import SluiceFixtures

/// msgspec and DuckDB, run as Python subprocesses when the Python given (`python3` by default) can import them
/// (`pip install msgspec duckdb`).
/// Each script times itself (after its imports) and prints its checksum, CPU seconds and peak memory as JSON.
public enum ForeignContenders {
    /// The ones installed here that read `layout`, for `threads` (DuckDB gets the same number of threads as
    /// Sluice's widest run), and a note for each one left out and why. The msgspec script decodes a line at a
    /// time, so it reads NDJSON only.
    public static func available(threads: Int, layout: FixtureFile.Layout, python: String = "python3") -> (contenders: [Contender], notRun: [String]) {
        var found: [Contender] = []
        var notRun: [String] = []
        if layout != .ndjson {
            notRun.append("msgspec: its script reads NDJSON a line at a time")
        } else if !canImport("msgspec", python: python) {
            notRun.append("msgspec: python3 cannot import it (pip install msgspec)")
        } else {
            found.append(Contender(name: "msgspec (Python), typed structs", key: "msgspec", family: .foreign, threads: 1) { input in
                try runScript(msgspecScript, arguments: [input.path], python: python)
            })
        }
        if canImport("duckdb", python: python) {
            found.append(Contender(name: "DuckDB read_json, \(threads) thread\(threads == 1 ? "" : "s")", key: "duckdb-\(threads)", family: .foreign, threads: threads) { input in
                try runScript(duckdbScript, arguments: [input.path, String(threads), input.layout == .array ? "array" : "newline_delimited"], python: python)
            })
        } else {
            notRun.append("DuckDB: python3 cannot import it (pip install duckdb)")
        }
        return (found, notRun)
    }

    static func canImport(_ module: String, python: String) -> Bool {
        (try? run([python, "-c", "import \(module)"]).status) == 0
    }

    static func runScript(_ script: String, arguments: [String], python: String) throws -> RunOutcome {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-bench-\(UUID().uuidString).py")
        try script.write(to: url, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try run([python, url.path] + arguments)
        guard result.status == 0, let data = result.output.data(using: .utf8),
              let report = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let records = report["records"] as? Int, let checksum = report["checksum"] as? NSNumber,
              let seconds = report["seconds"] as? Double else {
            throw BenchError("\(arguments.first ?? "script"): the script failed (status \(result.status)): \(result.output)\(result.errors)")
        }
        return RunOutcome(
            checksum: Checksum(value: checksum.int64Value, records: records), seconds: seconds,
            cpuSeconds: report["cpu"] as? Double, peakResidentBytes: (report["maxrss_kb"] as? Int).map { $0 * 1024 })
    }

    static func run(_ command: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    // The same checksum as `Checksum.add`, in Python integers wrapped to signed 64 bits at the end.
    static let checksumPython = """
        MONTHS = {m: i + 1 for i, m in enumerate(["Jan","Feb","Mar","Apr","May","Jun","Jul","Aug","Sep","Oct","Nov","Dec"])}
        def twitter_seconds(t):
            days = days_from_civil(int(t[26:30]), MONTHS[t[4:7]], int(t[8:10]))
            sign = -1 if t[20] == "-" else 1
            return days * 86400 + int(t[11:13]) * 3600 + int(t[14:16]) * 60 + int(t[17:19]) - sign * (int(t[21:23]) * 3600 + int(t[23:25]) * 60)
        def days_from_civil(y, m, d):
            y = y - 1 if m <= 2 else y
            era = (y if y >= 0 else y - 399) // 400
            yoe = y - era * 400
            doy = (153 * (m - 3 if m > 2 else m + 9) + 2) // 5 + d - 1
            doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
            return era * 146097 + doe - 719468
        def record_sum(i, followers, retweets, created, user_created_ms, text_bytes, verified, hashtag_bytes):
            return (i + followers * 3 + retweets * 7 + created * 11 + user_created_ms * 5 + text_bytes * 13
                    + (17 if verified else 0) + (hashtag_bytes if hashtag_bytes is not None else -1) * 19)
        def wrap(v):
            v &= (1 << 64) - 1
            return v - (1 << 64) if v >= (1 << 63) else v
        def peak_kb():
            # VmHWM, not ru_maxrss: ru_maxrss survives exec, so it would include the parent's size at the fork.
            with open("/proc/self/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
            import resource
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        def report(records, total, started, cpu_started):
            import json
            print(json.dumps({"records": records, "checksum": wrap(total), "seconds": time.perf_counter() - started,
                              "cpu": time.process_time() - cpu_started, "maxrss_kb": peak_kb()}))
        """

    static let msgspecScript = """
        import sys, time
        from typing import Optional
        import msgspec
        \(checksumPython)
        class User(msgspec.Struct):
            id: int
            screen_name: str
            followers_count: int
            verified: bool
            created_ms: int
            location: Optional[str] = None
        class Hashtag(msgspec.Struct):
            text: str
        class Entities(msgspec.Struct):
            hashtags: list[Hashtag]
        class Coordinates(msgspec.Struct):
            coordinates: list[float]
        class Tweet(msgspec.Struct):
            id: int
            id_str: str
            created_at: str
            text: str
            user: User
            retweet_count: int
            favorite_count: int
            favorited: bool
            lang: str
            score: float
            entities: Entities
            coordinates: Optional[Coordinates] = None
        started, cpu_started = time.perf_counter(), time.process_time()
        decoder = msgspec.json.Decoder(Tweet)
        records, total = 0, 0
        with open(sys.argv[1], "rb") as f:
            for line in f:
                if not line.strip():
                    continue
                t = decoder.decode(line)
                h = t.entities.hashtags
                total += record_sum(t.id, t.user.followers_count, t.retweet_count, twitter_seconds(t.created_at),
                                    t.user.created_ms, len(t.text.encode()), t.user.verified, len(h[0].text.encode()) if h else None)
                records += 1
        report(records, total, started, cpu_started)
        """

    static let duckdbScript = """
        import sys, time
        import duckdb
        \(checksumPython)
        started, cpu_started = time.perf_counter(), time.process_time()
        con = duckdb.connect()
        con.execute(f"SET threads = {int(sys.argv[2])}")
        columns = {
            "id": "BIGINT", "id_str": "VARCHAR", "created_at": "VARCHAR", "text": "VARCHAR",
            "user": "STRUCT(id BIGINT, screen_name VARCHAR, followers_count BIGINT, verified BOOLEAN, location VARCHAR, created_ms BIGINT)",
            "retweet_count": "BIGINT", "favorite_count": "BIGINT", "favorited": "BOOLEAN", "lang": "VARCHAR", "score": "DOUBLE",
            "coordinates": "STRUCT(coordinates DOUBLE[])", "entities": "STRUCT(hashtags STRUCT(text VARCHAR)[])",
        }
        spec = "{" + ", ".join(f"'{k}': '{v}'" for k, v in columns.items()) + "}"
        query = f\"\"\"
            SELECT count(*), sum(
                id::HUGEINT + user.followers_count::HUGEINT * 3 + retweet_count::HUGEINT * 7
                + epoch(strptime(created_at, '%a %b %d %H:%M:%S %z %Y'))::HUGEINT * 11
                + user.created_ms::HUGEINT * 5 + octet_length(encode(text))::HUGEINT * 13
                + CASE WHEN user.verified THEN 17 ELSE 0 END
                + coalesce(octet_length(encode(entities.hashtags[1].text)), -1)::HUGEINT * 19)
            FROM read_json('{sys.argv[1]}', format = '{sys.argv[3]}', columns = {spec}, maximum_object_size = 67108864)
        \"\"\"
        records, total = con.execute(query).fetchone()
        report(records, int(total or 0), started, cpu_started)
        """
}
