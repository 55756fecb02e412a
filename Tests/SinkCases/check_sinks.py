"""Reads back what the `sinks` fuzz target wrote (scripts/fuzz keeps a corpus of its outputs) through readers Sluice
does not control, and compares every value with the one Sluice's reader mapped (`expected.tsv`):

  out.db        Python's sqlite3 (every record in table t, or in t_rejects, never both)
  out.csv       Python's csv module (CSV or TSV, nulls written as \\N)
  out.parquet   pyarrow, and DuckDB's own Parquet reader

A case whose columns include child tables (a list written as table t_c<N> of its elements, linked by _rid and
_c<N>_index) has a file per table instead (out.t.csv and out.t_c<N>.csv, out.t.parquet and out.t_c<N>.parquet),
and each child table must hold the elements of its written records' lists, in order, and nothing else.

Values are compared by meaning: integers and instants exactly, doubles by their bits, text and bytes byte for byte,
decimals by their plain text with the scale's digits (exactly, as SQLite's and CSV's text hold them),
JSON by its parsed value, lists element by element. SQLite cannot keep the sign of -0.0 (it stores a REAL without a
fraction as an integer): there -0.0 and 0.0 are one value.

Usage: check_sinks.py DIR ...   (each DIR a case directory, or a directory of them)
"""
import base64
import csv
import json
import os
import re
import sqlite3
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ParquetReaders"))
import read_values  # noqa: E402

STORAGE_UNITS = {"text": None, "epoch-s": 1_000_000_000, "epoch-ms": 1_000_000, "epoch-ns": 1}
NEGATIVE_ZERO = struct.unpack("<q", struct.pack("<d", -0.0))[0]
RFC3339 = re.compile(r"(-?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z\Z")


def double_bits(value):
    return struct.unpack("<q", struct.pack("<d", float(value)))[0]


def days_from_civil(y, m, d):
    y = y - 1 if m <= 2 else y
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m - 3 if m > 2 else m + 9) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def rfc3339_nanoseconds(text):
    match = RFC3339.match(text)
    if not match:
        raise ValueError("not RFC 3339 in UTC: %r" % text)
    year, month, day, hour, minute, second = (int(group) for group in match.groups()[:6])
    fraction = int((match.group(7) or "").ljust(9, "0"))
    seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    return seconds * 1_000_000_000 + fraction


def canonical_json(text):
    return json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)


def is_decimal(kind):
    return kind.startswith("decimal")


def json_elements(kind, text):
    """A list's elements from its JSON array text; a decimal's as its literal text, exact."""
    if is_decimal(kind):
        return json.loads(text, parse_float=str, parse_int=str)
    return json.loads(text)


def element_from_json(kind, value):
    """A list element as the JSON array text holds it (lists are JSON text in SQLite and CSV, and in expected.tsv)."""
    if value is None:
        return None
    if kind in ("int64", "uint64"):
        return ("i", int(value))
    if kind == "double":
        return ("d", double_bits(value))
    if kind == "bool":
        return ("b", bool(value))
    if kind == "date":
        return ("t", rfc3339_nanoseconds(value))
    if kind in ("string", "url", "enum"):
        return ("s", value.encode("utf-8"))
    if kind == "json":
        return ("j", json.dumps(value, separators=(",", ":"), ensure_ascii=False))
    if kind == "bytes":
        return ("x", base64.b64decode(value, validate=True))
    if is_decimal(kind):
        return ("n", value)
    raise ValueError(kind)


def from_token(kind, token):
    """A value from a read_values.py token (or expected.tsv's, which adds j: and L:)."""
    if token == "null":
        return None
    if token.startswith("["):
        inner = token[1:-1]
        return tuple(from_token(kind, element) for element in (inner.split(",") if inner else []))
    tag, _, body = token.partition(":")
    if tag == "L":
        return tuple(element_from_json(kind, element) for element in json_elements(kind, bytes.fromhex(body).decode("utf-8")))
    if tag == "i":
        return ("i", int(body))
    if tag == "d":
        return ("d", int(body))
    if tag == "b":
        return ("b", body == "true")
    if tag == "t":
        return ("t", int(body))
    if tag in ("s", "j"):
        text = bytes.fromhex(body)
        return ("j", canonical_json(text.decode("utf-8"))) if kind == "json" else ("s", text)
    if tag == "x":
        return ("x", bytes.fromhex(body))
    if tag == "n":
        return ("n", body)
    raise ValueError("unknown token %r" % token)


def from_text(kind, is_list, text):
    """A value as CSV or SQLite's text holds it."""
    if is_list:
        return tuple(element_from_json(kind, element) for element in json_elements(kind, text))
    if is_decimal(kind):
        return ("n", text)
    if kind in ("int64", "uint64"):
        return ("i", int(text))
    if kind == "double":
        return ("d", double_bits(text))
    if kind == "bool":
        if text not in ("true", "false"):
            raise ValueError("not a Boolean: %r" % text)
        return ("b", text == "true")
    if kind == "date":
        return ("t", rfc3339_nanoseconds(text))
    if kind in ("string", "url", "enum"):
        return ("s", text.encode("utf-8"))
    if kind == "json":
        return ("j", canonical_json(text))
    if kind == "bytes":
        return ("x", base64.b64decode(text, validate=True))
    raise ValueError(kind)


def from_sqlite(kind, is_list, value, storage):
    if value is None:
        return None
    if is_list or kind in ("string", "url", "enum", "json") or is_decimal(kind) or (kind == "date" and storage == "text"):
        if not isinstance(value, str):
            raise ValueError("expected TEXT, found %r" % (value,))
        return from_text(kind, is_list, value)
    if kind in ("int64", "uint64"):
        return ("i", value)
    if kind == "double":
        bits = double_bits(value)
        return ("d", 0 if bits == NEGATIVE_ZERO else bits)
    if kind == "bool":
        if value not in (0, 1):
            raise ValueError("not 0 or 1: %r" % (value,))
        return ("b", value == 1)
    if kind == "date":
        return ("t", value * STORAGE_UNITS[storage])
    if kind == "bytes":
        return ("x", bytes(value))
    raise ValueError(kind)


def as_stored_in_sqlite(kind, is_list, value, storage):
    """The expected value as SQLite can hold it: epochs floored to the stored unit, -0.0 as 0.0."""
    if value is None or is_list:
        return value
    if kind == "date" and storage != "text":
        unit = STORAGE_UNITS[storage]
        return ("t", value[1] // unit * unit)
    if kind == "double" and value[1] == NEGATIVE_ZERO:
        return ("d", 0)
    return value


class Case:
    def __init__(self, directory):
        self.directory = directory
        with open(os.path.join(directory, "case.json"), encoding="utf-8") as file:
            self.description = json.load(file)
        described = self.description["columns"]
        # The records' table's columns, and the child tables (their column's place, name and element kind).
        self.columns = [(column["kind"], column["list"]) for column in described if not column.get("table")]
        self.tables = [(index, "c%d" % (index - 1), column["kind"]) for index, column in enumerate(described) if column.get("table")]
        self.expected = []
        # Per child table, per record: the elements of its list (an empty tuple for none, or null).
        self.elements = [[] for _ in self.tables]
        with open(os.path.join(directory, "expected.tsv"), encoding="utf-8") as file:
            for line in file:
                tokens = line.rstrip("\n").split("\t")
                values = [from_token(column["kind"], token) for column, token in zip(described, tokens)]
                self.expected.append([value for column, value in zip(described, values) if not column.get("table")])
                for number, (index, _, _) in enumerate(self.tables):
                    self.elements[number].append(values[index] or ())
        if len(self.expected) != self.description["records"]:
            raise ValueError("expected.tsv holds %d rows of %d records" % (len(self.expected), self.description["records"]))

    def records_file(self, extension):
        """The records' table's file: out.<extension>, or out.t.<extension> beside child tables' files."""
        return self.path("out.t." + extension if self.tables else "out." + extension)

    def child_rows(self, number, rids, stored=lambda value: value):
        """Child table `number`'s expected rows for the records `rids`: rid, position, element."""
        return [[("i", rid), ("i", position), stored(element)] for rid in rids for position, element in enumerate(self.elements[number][rid])]

    def path(self, name):
        return os.path.join(self.directory, name)


def compare(case, reader, rows, failures, expected=None, width=None):
    expected = case.expected if expected is None else expected
    width = len(case.columns) if width is None else width
    if len(rows) != len(expected):
        failures.append("%s %s: %d rows, expected %d" % (case.directory, reader, len(rows), len(expected)))
        return
    for number, (row, wanted) in enumerate(zip(rows, expected)):
        if len(row) != len(wanted) or len(row) != width:
            failures.append("%s %s: row %d has %d columns, expected %d" % (case.directory, reader, number, len(row), width))
            return
        for column, (value, want) in enumerate(zip(row, wanted)):
            if value != want:
                failures.append("%s %s: row %d column %d: %r, expected %r" % (case.directory, reader, number, column, value, want))
                return


def check_sqlite(case, failures):
    storage = case.description["date_storage"]
    connection = sqlite3.connect("file:%s?mode=ro" % case.path("out.db"), uri=True)
    connection.text_factory = str
    rows = connection.execute("SELECT * FROM t ORDER BY rowid").fetchall()
    rejected = {ordinal for (ordinal,) in connection.execute("SELECT ordinal FROM t_rejects")}
    children = [connection.execute("SELECT * FROM t_%s ORDER BY 1, 2" % name).fetchall() for _, name, _ in case.tables]
    connection.close()
    written = {row[0] for row in rows}
    # Ordinals count from 1; rid from 0.
    rejected_rids = {ordinal - 1 for ordinal in rejected}
    if written & rejected_rids or written | rejected_rids != set(range(len(case.expected))):
        failures.append("%s sqlite3: records written %d, rejected %d, of %d (each exactly once?)" % (case.directory, len(written), len(rejected), len(case.expected)))
        return
    expected = [[as_stored_in_sqlite(kind, is_list, value, storage) for (kind, is_list), value in zip(case.columns, case.expected[rid])] for rid in sorted(written)]
    try:
        read = [[from_sqlite(kind, is_list, value, storage) for (kind, is_list), value in zip(case.columns, row)] for row in rows]
    except ValueError as error:
        failures.append("%s sqlite3: %s" % (case.directory, error))
        return
    compare(case, "sqlite3", read, failures, expected)
    for number, (_, name, kind) in enumerate(case.tables):
        try:
            read = [[("i", row[0]), ("i", row[1]), from_sqlite(kind, False, row[2], storage)] for row in children[number]]
        except ValueError as error:
            failures.append("%s sqlite3 t_%s: %s" % (case.directory, name, error))
            continue
        wanted = case.child_rows(number, sorted(written), lambda value: as_stored_in_sqlite(kind, False, value, storage))
        compare(case, "sqlite3 t_" + name, read, failures, wanted, width=3)


def check_csv(case, failures):
    delimiter = case.description["delimiter"]
    null_text = case.description["null_text"]
    with open(case.records_file("csv"), newline="", encoding="utf-8") as file:
        table = list(csv.reader(file, delimiter=delimiter))
    header, body = table[0], table[1:]
    widths = {len(row) for row in body}
    if widths - {len(case.columns)}:
        failures.append("%s csv: rows of %s columns, expected %d" % (case.directory, sorted(widths), len(case.columns)))
        return
    table_names = {name for _, name, _ in case.tables}
    names = ["rid"] + [name for name in ("c%d" % index for index in range(len(case.columns) + len(case.tables) - 1)) if name not in table_names]
    if header != names:
        failures.append("%s csv: header %r" % (case.directory, header))
        return
    try:
        read = [[None if text == null_text else from_text(kind, is_list, text) for (kind, is_list), text in zip(case.columns, row)] for row in body]
    except ValueError as error:
        failures.append("%s csv: %s" % (case.directory, error))
        return
    compare(case, "csv", read, failures)
    for number, (_, name, kind) in enumerate(case.tables):
        with open(case.path("out.t_%s.csv" % name), newline="", encoding="utf-8") as file:
            table = list(csv.reader(file, delimiter=delimiter))
        if table[:1] != [["_rid", "_%s_index" % name, "value"]]:
            failures.append("%s csv t_%s: header %r" % (case.directory, name, table[:1]))
            continue
        try:
            read = [[from_text("int64", False, row[0]), from_text("int64", False, row[1]), None if row[2] == null_text else from_text(kind, False, row[2])]
                    for row in table[1:]]
        except (ValueError, IndexError) as error:
            failures.append("%s csv t_%s: %s" % (case.directory, name, error))
            continue
        compare(case, "csv t_" + name, read, failures, case.child_rows(number, range(len(case.expected))), width=3)


def parquet_rows(path, reader, kinds):
    """The rows of a Parquet file as read by `reader` (pyarrow or DuckDB), each value read as a column of `kinds`."""
    if reader == "pyarrow":
        import pyarrow.parquet as pq
        table = pq.read_table(path)
    else:
        import duckdb
        table = duckdb.connect().sql("SELECT * FROM read_parquet('%s')" % path.replace("'", "''")).to_arrow_table()
    columns = read_values.normalised(table)
    values = [column.to_pylist() for column, _ in columns]
    rows = []
    for row in range(table.num_rows):
        tokens = [read_values.tagged(values[index][row], original) for index, (_, original) in enumerate(columns)]
        rows.append([from_token(kind, token) for kind, token in zip(kinds, tokens)])
    return rows


def check_parquet(case, reader, failures):
    rows = parquet_rows(case.records_file("parquet"), reader, [kind for kind, _ in case.columns])
    compare(case, reader, rows, failures)
    for number, (_, name, kind) in enumerate(case.tables):
        rows = parquet_rows(case.path("out.t_%s.parquet" % name), reader, ["int64", "int64", kind])
        compare(case, "%s t_%s" % (reader, name), rows, failures, case.child_rows(number, range(len(case.expected))), width=3)


def case_directories(paths):
    for path in paths:
        if os.path.exists(os.path.join(path, "case.json")):
            yield path
        else:
            for name in sorted(os.listdir(path)):
                if os.path.exists(os.path.join(path, name, "case.json")):
                    yield os.path.join(path, name)


def main():
    csv.field_size_limit(sys.maxsize)
    failures = []
    cases = records = 0
    for directory in case_directories(sys.argv[1:]):
        case = Case(directory)
        cases += 1
        records += len(case.expected)
        for check in (check_sqlite, check_csv, lambda c, f: check_parquet(c, "pyarrow", f), lambda c, f: check_parquet(c, "duckdb", f)):
            try:
                check(case, failures)
            except Exception as error:  # a reader that refuses the file is a finding too
                failures.append("%s: %s: %s" % (directory, type(error).__name__, error))
    for failure in failures:
        print(failure)
    print("%d cases, %d records, read back through sqlite3, csv, pyarrow and DuckDB: %d failures" % (cases, records, len(failures)))
    sys.exit(1 if failures or cases == 0 else 0)


if __name__ == "__main__":
    main()
