"""An independent normaliser for Sluice's child tables: reads the input with Python's json module, applies the rules
of docs/mapping.md ("Child tables") to the mapping below (the same as child_tables.mapping.yaml), and compares every
table, row for row, with what Sluice wrote into a SQLite database and, when given, a directory of Parquet files
(read by pyarrow, DuckDB and polars).

Rules: a record whose arrays' elements do not all map is rejected whole (no row in any table); a missing array or
null gives no rows; a null element gives no row but is counted in the positions; a value that is not an array
rejects the record. Rows link to their record by its key (keyed) or by the input's name and the record's 1-based
ordinal (unkeyed), then by the position of each array on the way down.

Usage: check_tables.py keyed|unkeyed INPUT RECORDS_PATH|- SOURCE_NAME DATABASE [PARQUET_DIR]
Prints "ok: <rows per table>" and exits 0, or prints the differences and exits 1.
"""
import json
import sqlite3
import sys


class Rejected(Exception):
    pass


def integer(value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise Rejected()
    return value


def text(value):
    if not isinstance(value, str):
        raise Rejected()
    return value


# The mapping: (column, key path, converter, optional) for columns, (name, key path, index column, spec) for tables,
# where a spec of a table of values is a converter with its optionality.
MAPPING = {
    "columns": [("id", ["id"], integer, False), ("text", ["text"], text, False)],
    "tables": [
        ("hashtags", ["entities", "hashtags"], None, {
            "columns": [("text", ["text"], text, False)],
            "tables": [("indices", ["indices"], None, (integer, False))],
        }),
        ("mentions", ["entities", "user_mentions"], "position", {
            "columns": [("id", ["id"], integer, False), ("screen_name", ["screen_name"], text, False)],
            "tables": [],
        }),
        ("urls", ["entities", "urls"], None, {
            "columns": [("value", ["expanded_url"], text, True)],
            "tables": [],
            "values_at": None,
        }),
    ],
}

MISSING = object()


def at(value, path):
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return MISSING
        value = value[key]
    return value


def columns_of(value, spec):
    row = []
    for _, path, convert, optional in spec:
        found = at(value, path)
        if found is MISSING or found is None:
            if not optional:
                raise Rejected()
            row.append(None)
        else:
            row.append(convert(found))
    return row


def table_rows(value, spec, links, name, out):
    """The rows of the tables beneath `value` (an object the spec's columns and tables read)."""
    for table, path, _, child in spec["tables"]:
        array = at(value, path)
        if array is MISSING or array is None:
            continue
        if not isinstance(array, list):
            raise Rejected()
        full = name + "_" + table
        for position, element in enumerate(array):
            if element is None:
                continue
            row_links = links + [position]
            if isinstance(child, tuple):
                convert, optional = child
                out.setdefault(full, []).append(tuple(row_links + [convert(element)]))
                continue
            if not isinstance(element, dict):
                raise Rejected()
            out.setdefault(full, []).append(tuple(row_links + columns_of(element, child["columns"])))
            table_rows(element, child, row_links, full, out)


def expected(records, keyed, source):
    tables = {"t": []}
    for name in table_names("t", MAPPING):
        tables[name] = []
    rejected = 0
    for ordinal, record in enumerate(records, start=1):
        rows = {}
        try:
            if not isinstance(record, dict):
                raise Rejected()
            own = columns_of(record, MAPPING["columns"])
            links = [own[0]] if keyed else [source, ordinal]
            rows["t"] = [tuple(own if keyed else own + links)]
            table_rows(record, MAPPING, links, "t", rows)
        except Rejected:
            rejected += 1
            continue
        for name, found in rows.items():
            tables[name].extend(found)
    return tables, rejected


def table_names(prefix, spec):
    names = []
    for table, _, _, child in spec["tables"]:
        names.append(prefix + "_" + table)
        if isinstance(child, dict):
            names += table_names(prefix + "_" + table, child)
    return names


def read_records(path, records_path):
    with open(path, "rb") as handle:
        data = handle.read()
    if records_path == "-":
        return [json.loads(line) for line in data.splitlines() if line.strip()]
    return at(json.loads(data), records_path.split("."))


def canonical(rows):
    return sorted(rows, key=lambda row: json.dumps(row, default=str))


def main():
    mode, input_path, records_path, source, database = sys.argv[1:6]
    parquet = sys.argv[6] if len(sys.argv) > 6 else None
    tables, rejected = expected(read_records(input_path, records_path), mode == "keyed", source)
    problems = []
    connection = sqlite3.connect(database)
    found_rejected = connection.execute("SELECT count(*) FROM t_rejects").fetchone()[0]
    if found_rejected != rejected:
        problems.append(f"t_rejects holds {found_rejected} records, the normaliser rejects {rejected}")
    readers = [("sqlite", lambda name: [tuple(row) for row in connection.execute(f'SELECT * FROM "{name}"')])]
    if parquet:
        import duckdb
        import polars
        import pyarrow.parquet

        readers.append(("pyarrow", lambda name: [tuple(row.values()) for row in pyarrow.parquet.read_table(f"{parquet}/{name}.parquet").to_pylist()]))
        readers.append(("duckdb", lambda name: [tuple(row) for row in duckdb.sql(f"SELECT * FROM '{parquet}/{name}.parquet'").fetchall()]))
        readers.append(("polars", lambda name: [tuple(row) for row in polars.read_parquet(f"{parquet}/{name}.parquet").rows()]))
    for reader, read in readers:
        for name, rows in tables.items():
            found = canonical(read(name))
            want = canonical(rows)
            if found != want:
                missing = [row for row in want if row not in found][:3]
                extra = [row for row in found if row not in want][:3]
                problems.append(f"{reader} {name}: {len(found)} rows, expected {len(want)}; missing {missing}, unexpected {extra}")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print("ok: " + ", ".join(f"{name} {len(rows)}" for name, rows in tables.items()) + f", rejected {rejected}")


main()
