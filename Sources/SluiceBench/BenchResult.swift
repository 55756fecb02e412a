import Foundation

/// Everything one `sluice-bench` run measured, ready to print as a table, JSON or an HTML page.
public struct BenchResult: Codable, Sendable {
    public var machine: MachineInfo
    /// Bytes of JSON each contender read (uncompressed).
    public var bytes: Int
    public var records: Int
    public var layout: String
    public var compression: String
    public var repetitions: Int
    public var rows: [Row]
    /// The contenders left out of this run, each with the reason.
    public var notRun: [String] = []

    public struct Row: Codable, Sendable {
        public var name: String
        public var key: String
        public var family: Contender.Family
        public var threads: Int
        /// Wall-clock seconds of each repetition.
        public var seconds: [Double]
        public var cpuSeconds: [Double]
        public var peakResidentBytes: Int?

        public var medianSeconds: Double { Measure.median(seconds) }
        public var medianCPUSeconds: Double { Measure.median(cpuSeconds) }
    }

    func row(_ key: String) -> Row? { rows.first { $0.key == key } }

    /// MB/s (10^6 bytes) from the median time.
    public func megabytesPerSecond(_ row: Row) -> Double { Double(bytes) / 1e6 / row.medianSeconds }

    /// How many times faster than `reference` (by median time), if it ran.
    public func speedup(_ row: Row, over reference: String) -> Double? {
        guard let base = self.row(reference) else { return nil }
        return base.medianSeconds / row.medianSeconds
    }

    // MARK: - Text

    /// The table people read, with the machine, the input and the ratios that compare the contenders.
    public func table() -> String {
        var lines: [String] = []
        lines.append("machine: \(machine.cores) cores, \(machine.cpu), \(machine.os), Swift \(machine.swift), \(machine.memoryBytes >> 30) GiB")
        lines.append("input: \(bytes) bytes of JSON (\(layout)\(compression == "none" ? "" : ", " + compression)), \(records) records; \(repetitions) repetitions, interleaved; median (min–max)")
        lines.append("")
        lines.append("| contender | MB/s | records/s | CPU s | peak memory | vs JSONDecoder | vs yajl ceiling |")
        lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        // On your own input, JSONDecoder decodes a model of your mapped fields.
        let decoderKey = row("jsondecoder") != nil ? "jsondecoder" : "jsondecoder-mapped"
        for row in rows {
            let rate = megabytesPerSecond(row)
            let fastest = Double(bytes) / 1e6 / (row.seconds.min() ?? row.medianSeconds)
            let slowest = Double(bytes) / 1e6 / (row.seconds.max() ?? row.medianSeconds)
            let peak = row.peakResidentBytes.map { String(format: "%.0f MiB", Double($0) / 1_048_576) } ?? "–"
            let decoderRatio = speedup(row, over: decoderKey).map { String(format: "%.2f×", $0) } ?? "–"
            let ceilingRatio = row.key == "yajl-ceiling" ? "100 %" : speedup(row, over: "yajl-ceiling").map { String(format: "%.0f %%", $0 * 100) } ?? "–"
            lines.append("| \(row.name) | \(Self.format(rate)) (\(Self.format(slowest))–\(Self.format(fastest))) | \(Int((Double(records) / row.medianSeconds).rounded())) | \(String(format: "%.2f", row.medianCPUSeconds)) | \(peak) | \(decoderRatio) | \(ceilingRatio) |")
        }
        let summary = ratioSummary()
        if !summary.isEmpty {
            lines.append("")
            lines += summary
        }
        if !notRun.isEmpty {
            lines.append("")
            lines += notRun.map { "not run: " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// How Sluice compares with each other contender that ran, as ratios.
    public func ratioSummary() -> [String] {
        var lines: [String] = []
        if let yajl = row("sluice-columnar-yajl-1"), let ceiling = speedup(yajl, over: "yajl-ceiling") {
            lines.append(String(format: "Sluice columnar (yajl), 1 worker: %.0f %% of the yajl ceiling", ceiling * 100))
        }
        guard let single = row("sluice-columnar-1") else { return lines }
        if let backends = speedup(single, over: "sluice-columnar-yajl-1") { lines.append(String(format: "Sluice columnar, 1 worker: %.2f× as fast as with the yajl tokenizer", backends)) }
        if let ceiling = speedup(single, over: "simdjson-ceiling") { lines.append(String(format: "Sluice columnar, 1 worker: %.2f× the speed of the simdjson ceiling", ceiling)) }
        if let decoder = speedup(single, over: "jsondecoder") { lines.append(String(format: "Sluice columnar, 1 worker: %.1f× as fast as JSONDecoder with dates by hand", decoder)) }
        if let decoder = speedup(single, over: "jsondecoder-mapped") { lines.append(String(format: "Sluice columnar, 1 worker: %.1f× as fast as JSONDecoder with a Decodable of the mapped fields", decoder)) }
        if let formatter = speedup(single, over: "jsondecoder-dateformatter") { lines.append(String(format: "Sluice columnar, 1 worker: %.1f× as fast as JSONDecoder with DateFormatter", formatter)) }
        if let msgspec = speedup(single, over: "msgspec") { lines.append(String(format: "Sluice columnar, 1 worker: %.2f× as fast as msgspec", msgspec)) }
        if let widest = rows.filter({ $0.key.hasPrefix("sluice-columnar-") && !$0.key.contains("yajl") }).max(by: { $0.threads < $1.threads }), widest.threads > 1 {
            if let scaling = speedup(widest, over: "sluice-columnar-1") { lines.append(String(format: "Sluice columnar, %d workers: %.2f× as fast as one worker", widest.threads, scaling)) }
            if let duck = rows.first(where: { $0.key.hasPrefix("duckdb-") }), let ratio = speedup(widest, over: duck.key) {
                lines.append(String(format: "Sluice columnar, %d workers: %.2f× as fast as DuckDB with %d threads", widest.threads, ratio, duck.threads))
            }
        }
        return lines
    }

    static func format(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }

    // MARK: - JSON and HTML

    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// A self-contained page: the machine, a bar chart of MB/s (SVG, no scripts), and the table.
    public func html() -> String {
        let maximum = rows.map(megabytesPerSecond).filter(\.isFinite).max() ?? 1
        let barHeight = 26
        let labelWidth = 330
        let chartWidth = 480
        let height = rows.count * (barHeight + 8) + 30
        var bars = ""
        for (index, row) in rows.enumerated() {
            let rate = megabytesPerSecond(row)
            let width = rate.isFinite ? max(1, Int(Double(chartWidth) * rate / maximum)) : 0
            let y = index * (barHeight + 8) + 10
            let color: String
            switch row.family {
            case .ceiling: color = "#9aa5b1"
            case .sluice: color = "#1f77b4"
            case .foundation: color = "#e07b39"
            case .foreign: color = "#6a9f58"
            case .decompressor: color = "#c5b358"
            }
            bars += """
                <text x="\(labelWidth - 8)" y="\(y + barHeight / 2 + 5)" text-anchor="end">\(Self.escape(row.name))</text>
                <rect x="\(labelWidth)" y="\(y)" width="\(width)" height="\(barHeight)" fill="\(color)"/>
                <text x="\(labelWidth + width + 6)" y="\(y + barHeight / 2 + 5)">\(Self.format(rate)) MB/s</text>

                """
        }
        let tableRows = table().split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| ---") && !$0.hasPrefix("| contender") }.map { line -> String in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            return "<tr>" + cells.enumerated().map { $0.offset == 0 ? "<td>\(Self.escape($0.element))</td>" : "<td class=n>\(Self.escape($0.element))</td>" }.joined() + "</tr>"
        }.joined(separator: "\n")
        let summary = ratioSummary().map { "<li>\(Self.escape($0))</li>" }.joined()
        let notRunItems = notRun.map { "<li>not run: \(Self.escape($0))</li>" }.joined()
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>sluice-bench</title>
            <style>
            body { font: 14px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em; color: #222; }
            table { border-collapse: collapse; margin-top: 1em; } td, th { padding: 4px 10px; border-bottom: 1px solid #ddd; }
            td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; } svg text { font-size: 13px; fill: #222; }
            </style></head><body>
            <h1>sluice-bench</h1>
            <p>\(Self.escape("\(machine.cores) cores, \(machine.cpu), \(machine.os), Swift \(machine.swift)"))<br>
            \(Self.escape("\(bytes) bytes of JSON (\(layout), \(compression)), \(records) records, \(repetitions) repetitions interleaved; bars show the median"))</p>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(labelWidth + chartWidth + 110)" height="\(height)" role="img" aria-label="throughput in MB/s">
            \(bars)</svg>
            <ul>\(summary)</ul>
            <table><tr><th>contender</th><th class=n>MB/s (min–max)</th><th class=n>records/s</th><th class=n>CPU s</th><th class=n>peak memory</th><th class=n>vs JSONDecoder</th><th class=n>vs yajl ceiling</th></tr>
            \(tableRows)
            </table>
            <ul>\(notRunItems)</ul></body></html>

            """
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
