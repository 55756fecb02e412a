import Foundation
import SluiceFixtures

/// msgspec and DuckDB on your own input (`sluice bench --input`), reading the fields of your mapping as a user of
/// each would: msgspec into typed structs built from the key paths (`defstruct`, lenient as Sluice is with numbers
/// in strings), DuckDB through `read_json` with the columns' types given. Each computes the checksum of
/// ``MappedFields/recordSum(_:row:)`` in its own terms and times itself after its imports.
extension ForeignContenders {
    /// The ones installed here that read `layout`, given the mapping's fields, and a note for each left out.
    public static func available(fields: MappedFields, threads: Int, layout: FixtureFile.Layout, python: String = "python3") -> (contenders: [Contender], notRun: [String]) {
        var found: [Contender] = []
        var notRun: [String] = []
        let description = fields.jsonText
        if !canImport("msgspec", python: python) {
            notRun.append("msgspec: python3 cannot import it (pip install msgspec)")
        } else {
            found.append(Contender(name: "msgspec (Python), typed structs", key: "msgspec", family: .foreign, threads: 1) { input in
                try withFieldsFile(description) { try runScript(mappedMsgspecScript, arguments: [input.path, $0, input.layout == .array ? "array" : "ndjson"], python: python) }
            })
        }
        if canImport("duckdb", python: python) {
            found.append(Contender(name: "DuckDB read_json, \(threads) thread\(threads == 1 ? "" : "s")", key: "duckdb-\(threads)", family: .foreign, threads: threads) { input in
                try withFieldsFile(description) {
                    try runScript(mappedDuckDBScript, arguments: [input.path, $0, String(threads), input.layout == .array ? "array" : "newline_delimited"], python: python)
                }
            })
        } else {
            notRun.append("DuckDB: python3 cannot import it (pip install duckdb)")
        }
        return (found, notRun)
    }

    private static func withFieldsFile(_ text: String, _ body: (String) throws -> RunOutcome) throws -> RunOutcome {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-bench-fields-\(UUID().uuidString).json")
        try text.write(to: url, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url.path)
    }

    /// Reads the fields' description and builds, per field, the steps to its value and what it adds to a record's sum.
    static let mappedFieldsPython = """
        import base64, calendar, datetime, json, math
        def load_fields(path):
            with open(path, encoding="utf-8") as file:
                return json.load(file)
        def build_tree(fields):
            # The key paths as a tree: objects by key, arrays by index and by every element. A json field may end
            # where others go on: it reads that container whole.
            root = {}
            for field in fields:
                node = root
                steps = field["steps"]
                for position, step in enumerate(steps):
                    if "every" in step:
                        node["every"] = field
                        break
                    children = node.setdefault("keys" if "key" in step else "elements", {})
                    node = children.setdefault(step["key"] if "key" in step else step["index"], {})
                    if position == len(steps) - 1:
                        node["leaf"] = field
            return root
        def is_container(node):
            return "keys" in node or "elements" in node or "every" in node
        def json_presence(value):
            if value is None:
                return 0
            return 0 if type(value).__name__ == "Raw" and bytes(value) == b"null" else 1
        def floor_seconds(value, unit):
            if isinstance(value, int):
                return value * unit // 1000000000
            return math.floor(value * unit / 1e9)
        def utc_seconds(moment):
            return calendar.timegm(moment.utctimetuple())
        def date_seconds(dates):
            if "strptime" in dates:
                pattern = dates["strptime"]
                return lambda text: utc_seconds(datetime.datetime.strptime(text, pattern))
            def read(value):
                if isinstance(value, str):
                    if not dates.get("iso8601"):
                        raise ValueError("a date that is text: %r" % value)
                    return utc_seconds(datetime.datetime.fromisoformat(value))
                return floor_seconds(value, dates["epoch"])
            return read
        def contribution(field):
            kind = field["kind"]
            if "every" in field["steps"][-1]:
                return lambda v: len(v) + 1
            if kind in ("integer", "unsigned"):
                return lambda v: v
            if kind == "double":
                return lambda v: 1
            if kind == "bool":
                return lambda v: 2 if v else 1
            if kind == "text":
                return lambda v: len(v.encode("utf-8")) + 1
            if kind == "bytes":
                return lambda v: len(v) + 1
            if kind == "json":
                return json_presence
            return date_seconds(field["dates"])
        """

    static let mappedMsgspecScript = """
        import sys, time
        from typing import Any, Optional, Union
        import msgspec
        \(checksumPython)
        \(mappedFieldsPython)
        started, cpu_started = time.perf_counter(), time.process_time()
        fields = load_fields(sys.argv[2])
        def scalar(field):
            kind, dates = field["kind"], field["dates"]
            simple = {"integer": int, "unsigned": int, "double": float, "bool": bool, "text": str, "bytes": bytes, "json": msgspec.Raw}
            if kind in simple:
                return simple[kind]
            if "strptime" in dates or "epoch" not in dates:
                return str
            return Union[int, float, str] if dates.get("iso8601") else Union[int, float]
        root = build_tree(fields)
        structs = []
        def type_of(node):
            if not is_container(node):
                return scalar(node["leaf"])
            if "keys" in node:
                names = list(node["keys"])
                node["attrs"] = {name: "f%d" % number for number, name in enumerate(names)}
                members = []
                for name in names:
                    child = type_of(node["keys"][name])
                    members.append((node["attrs"][name], child if child is msgspec.Raw else Optional[child], None))
                structs.append(msgspec.defstruct("S%d" % len(structs), members, rename={attr: name for name, attr in node["attrs"].items()}))
                return structs[-1]
            kinds = [type_of(child) for child in node.get("elements", {}).values()]
            if "every" in node:
                kinds.append(scalar(node["every"]))
            return list[kinds[0] if len(set(map(repr, kinds))) == 1 else Any]
        record_type = type_of(root)
        plan = []
        for number, field in enumerate(fields):
            node, ops = root, []
            for step in field["steps"]:
                if "every" in step:
                    break
                if "key" in step:
                    ops.append((0, node["attrs"][step["key"]]))
                    node = node["keys"][step["key"]]
                else:
                    ops.append((1, step["index"]))
                    node = node["elements"][step["index"]]
            plan.append((2 * number + 1, ops, contribution(field)))
        def record_sum(record):
            total = 0
            for multiplier, ops, add in plan:
                value = record
                for op, argument in ops:
                    if value is None:
                        break
                    value = getattr(value, argument) if op == 0 else (value[argument] if argument < len(value) else None)
                if value is not None:
                    total += add(value) * multiplier
            return total
        records, total = 0, 0
        if sys.argv[3] == "array":
            with open(sys.argv[1], "rb") as f:
                for record in msgspec.json.decode(f.read(), type=list[record_type], strict=False):
                    total += record_sum(record)
                    records += 1
        else:
            decoder = msgspec.json.Decoder(record_type, strict=False)
            with open(sys.argv[1], "rb") as f:
                for line in f:
                    if not line.strip():
                        continue
                    total += record_sum(decoder.decode(line))
                    records += 1
        report(records, total, started, cpu_started)
        """

    static let mappedDuckDBScript = """
        import sys, time
        import duckdb
        \(checksumPython)
        \(mappedFieldsPython)
        started, cpu_started = time.perf_counter(), time.process_time()
        fields = load_fields(sys.argv[2])
        def quoted(name):
            return '"' + name.replace('"', '""') + '"'
        def literal(text):
            return "'" + text.replace("'", "''") + "'"
        def scalar(field):
            kind, dates = field["kind"], field["dates"]
            simple = {"integer": "BIGINT", "unsigned": "UBIGINT", "double": "DOUBLE", "bool": "BOOLEAN", "text": "VARCHAR", "bytes": "VARCHAR", "json": "JSON"}
            if kind in simple:
                return simple[kind]
            if "epoch" in dates and not dates.get("iso8601"):
                return "DOUBLE" if dates["epoch"] == 1000000000 else "BIGINT"
            return "VARCHAR"
        root = build_tree(fields)
        def type_of(node):
            if not is_container(node):
                return scalar(node["leaf"])
            if "keys" in node:
                return "STRUCT(" + ", ".join(quoted(name) + " " + type_of(child) for name, child in node["keys"].items()) + ")"
            kinds = [type_of(child) for child in node.get("elements", {}).values()] + ([scalar(node["every"])] if "every" in node else [])
            return (kinds[0] if len(set(kinds)) == 1 else "JSON") + "[]"
        columns = "{" + ", ".join(literal(name) + ": " + literal(type_of(child)) for name, child in root["keys"].items()) + "}"
        terms = []
        for number, field in enumerate(fields):
            steps = field["steps"]
            expression = quoted(steps[0]["key"])
            for step in steps[1:]:
                if "every" in step:
                    break
                expression = "struct_extract(%s, %s)" % (expression, literal(step["key"])) if "key" in step else "list_extract(%s, %d)" % (expression, step["index"] + 1)
            kind, dates = field["kind"], field["dates"]
            if "every" in steps[-1]:
                value = "len(%s) + 1" % expression
            elif kind in ("integer", "unsigned"):
                value = "%s::HUGEINT" % expression
            elif kind == "double":
                value = "CASE WHEN %s IS NOT NULL THEN 1 END" % expression
            elif kind == "json":
                # NULL stays NULL (0 below); a JSON null read into a JSON column is the text null.
                value = "CASE WHEN %s IS NULL OR %s::VARCHAR = 'null' THEN 0 ELSE 1 END" % (expression, expression)
            elif kind == "bool":
                value = "CASE WHEN %s THEN 2 WHEN NOT %s THEN 1 END" % (expression, expression)
            elif kind == "text":
                value = "strlen(%s) + 1" % expression
            elif kind == "bytes":
                value = "octet_length(from_base64(%s)) + 1" % expression
            elif "strptime" in dates:
                value = "floor(epoch(strptime(%s, %s)))" % (expression, literal(dates["strptime"]))
            elif dates.get("iso8601") and "epoch" in dates:
                value = "CASE WHEN TRY_CAST(%s AS DOUBLE) IS NOT NULL THEN floor(%s::DOUBLE) ELSE floor(epoch(%s::TIMESTAMPTZ)) END" % (expression, expression, expression)
            elif dates.get("iso8601"):
                value = "floor(epoch(%s::TIMESTAMPTZ))" % expression
            elif dates["epoch"] == 1000000000:
                value = "floor(%s)" % expression
            else:
                per_second = 1000000000 // dates["epoch"]
                value = "(%s::HUGEINT - ((%s %% %d) + %d) %% %d) // %d" % (expression, expression, per_second, per_second, per_second, per_second)
            terms.append("coalesce((%s)::HUGEINT, 0) * %d" % (value, 2 * number + 1))
        con = duckdb.connect()
        con.execute(f"SET threads = {int(sys.argv[3])}")
        con.execute("SET TimeZone = 'UTC'")
        query = "SELECT count(*), sum(%s) FROM read_json(%s, format = %s, columns = %s, maximum_object_size = 67108864)" % (
            " + ".join(terms) or "0", literal(sys.argv[1]), literal(sys.argv[4]), columns)
        records, total = con.execute(query).fetchone()
        report(records, int(total or 0), started, cpu_started)
        """
}
