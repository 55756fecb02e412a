"""What the distributed recipes share: splitting on the driver, the task that imports one shard into a part of
its own, and adding up the shards' summaries.

A task runs `sluice import --shard PLAN:I` into OUT/part-0000I.<kind>, with its rejections in
OUT/part-0000I.rejects.ndjson and its summary in OUT/part-0000I.summary.json. A mapping with child tables (or several
mappings) writes a file per table instead, OUT/part-0000I.<table>.<kind> (a SQLite part holds every table). A run again replaces its part
(`--if-exists replace`; a part appears under its name only once its run ended well), so a retried task never leaves
rows twice. A task also checks that its shard read as many records as the split counted.
"""

import argparse
import importlib
import json
import os
import re
import subprocess
import sys
import time

# The part files a sink writes, by the --kind name.
PART_SUFFIXES = {"ndjson": ".ndjson", "parquet": ".parquet", "sqlite": ".sqlite", "csv": ".csv"}


def argument_parser(engine):
    """The options both recipes take; each adds its engine's own."""
    parser = argparse.ArgumentParser(
        description=f"Import one JSON file on {engine}, one `sluice import --shard` task per shard.",
        epilog="Arguments after -- go to every `sluice import` as they are (e.g. -- --compression snappy).",
    )
    parser.add_argument("input", help="the JSON file (NDJSON, a top-level array or a wrapper document)")
    parser.add_argument("-m", "--mapping", action="append", required=True, help="a mapping file (repeat for several)")
    parser.add_argument("--out", required=True, help="the directory for the plan, the parts and the summary")
    parser.add_argument("--parts", type=int,
                        help="how many shards (default: one per 512 MiB, at least one and at most four per worker)")
    parser.add_argument("--part-size", help="or the size of a shard, e.g. 256MiB")
    parser.add_argument("--records-at", help="the key path of the records inside a wrapper document")
    parser.add_argument("--index", help="keep the split's cuts in this file (`sluice split --index`)")
    parser.add_argument("--kind", choices=sorted(PART_SUFFIXES), default="parquet", help="the parts' format")
    parser.add_argument("--sluice-workers", type=int, default=1, help="--workers of each `sluice import`")
    parser.add_argument("--retries", type=int, default=2, help="how often a failed shard is run again")
    parser.add_argument("--sluice", default="sluice", help="the sluice executable")
    return parser


def parse_arguments(parser, argv):
    """The options, with what follows -- as `passed_on`."""
    arguments, passed_on = parser.parse_known_args(argv)
    if passed_on[:1] == ["--"]:
        passed_on = passed_on[1:]
    elif passed_on:
        parser.error(f"unknown arguments: {' '.join(passed_on)} (give sluice's own options after --)")
    arguments.passed_on = passed_on
    if arguments.parts is not None and arguments.part_size is not None:
        parser.error("give --parts or --part-size, not both")
    if arguments.parts is not None and arguments.parts < 1:
        parser.error("--parts must be at least 1")
    return arguments


def start_split(arguments, plan_path, workers):
    """Starts `sluice split` on the driver; it scans the file while the cluster starts."""
    command = [arguments.sluice, "split", arguments.input, "-o", plan_path]
    if arguments.part_size is not None:
        command += ["--part-size", arguments.part_size]
    else:
        command += ["--parts", str(arguments.parts or default_parts(arguments.input, workers))]
    if arguments.index is not None:
        command += ["--index", arguments.index]
    if arguments.records_at is not None:
        command += ["--records-at", arguments.records_at]
    try:
        return subprocess.Popen(command, stdout=subprocess.DEVNULL)
    except OSError as error:
        sys.exit(f"cannot run {arguments.sluice}: {error.strerror} (put sluice on PATH, or give --sluice)")


# Each task costs its engine about 0.03 to 0.08 s besides its shard (measured with Dask on loopback: scheduling,
# a process start, the part's summary), so a shard holds at least about a second of one core's work; more than
# four shards per worker add that cost without evening out the workers any further.
SHARD_BYTES = 512 << 20


def default_parts(path, workers):
    """Shards of about SHARD_BYTES of the file as stored (compressed, for a compressed file), at least one and at most four
    per worker."""
    try:
        size = os.path.getsize(path)
    except OSError:
        # sluice split says what is wrong with the input.
        return 4 * workers
    return max(workers, min(4 * workers, -(-size // SHARD_BYTES)))


def require(module, install):
    """Imports the engine's module, or ends the run saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        sys.exit(f"{module} is not installed here: {install}")


def finish_split(process, plan_path):
    """The plan, or None when the split failed (sluice has said why on standard error)."""
    if process.wait() != 0:
        return None
    with open(plan_path, encoding="utf-8") as file:
        return json.load(file)


def start(arguments, workers):
    """Prepares OUT and starts the split: OUT's absolute path, the plan's path, the start time and the split."""
    os.makedirs(arguments.out, exist_ok=True)
    out = os.path.abspath(arguments.out)
    clear_earlier_run(out)
    plan_path = os.path.join(out, "plan.json")
    return out, plan_path, time.monotonic(), start_split(arguments, plan_path, workers)


def clear_earlier_run(out):
    """Removes what an earlier run left in OUT (its parts, plan and summary, by their names only), so that parts
    of a run with more shards are not read as this run's and an old summary does not stand for a failed run."""
    for name in os.listdir(out):
        if name in ("plan.json", "summary.json") or re.fullmatch(r"part-\d{5,}\..+", name):
            path = os.path.join(out, name)
            if os.path.isfile(path):
                os.remove(path)


def shard_paths(out, index, kind):
    stem = os.path.join(out, f"part-{index:05d}")
    return stem + PART_SUFFIXES[kind], stem + ".rejects.ndjson", stem + ".summary.json"


def import_shard(index, expected_records, settings):
    """One task: imports shard `index` into its own part, replacing what an earlier attempt left."""
    part, rejects, summary_path = shard_paths(settings["out"], index, settings["kind"])
    command = [settings["sluice"], "import", settings["input"], "--shard", f"{settings['plan']}:{index}",
               "--to", part, "--if-exists", "replace", "--rejects", rejects, "--summary-json", summary_path,
               "--workers", str(settings["sluice_workers"]), "--quiet"]
    for mapping in settings["mappings"]:
        command += ["-m", mapping]
    if settings["records_at"] is not None:
        command += ["--records-at", settings["records_at"]]
    command += settings["passed_on"]
    run = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # 0: every record written; 2: some rejected, which the part's rejections hold. Anything else is a failure,
    # which the engine retries.
    if run.returncode not in (0, 2):
        raise RuntimeError(f"shard {index}: sluice exited {run.returncode}: {run.stderr.strip()[-2000:]}")
    with open(summary_path, encoding="utf-8") as file:
        summary = json.load(file)
    # With several mappings each table counts the records of its own type; the split counts one type.
    if len(settings["mappings"]) == 1 and summary["records_read"] != expected_records:
        raise RuntimeError(f"shard {index}: read {summary['records_read']} records, the split counted {expected_records}")
    return summary


def settings(arguments, plan_path, out):
    """What a task needs, as plain values that pickle."""
    return {
        "sluice": arguments.sluice, "input": os.path.abspath(arguments.input), "plan": plan_path, "out": out,
        "kind": arguments.kind, "mappings": [os.path.abspath(mapping) for mapping in arguments.mapping],
        "records_at": arguments.records_at, "sluice_workers": arguments.sluice_workers,
        "passed_on": arguments.passed_on,
    }


def add_up(summaries, plan, seconds):
    """The shards' summaries as one: counts added, each rejection kind's first case the earliest in the file."""
    total = {"shards": len(summaries), "records_in_split": plan["records"], "records_read": 0,
             "records_written": 0, "records_rejected": 0, "records_rolled_back": 0, "bytes_read": 0, "seconds": round(seconds, 3),
             "shard_seconds": 0.0, "peak_memory_bytes": 0, "tables": {}, "child_tables": {}, "rejections": {}}
    for summary in summaries:
        for key in ("records_read", "records_written", "records_rejected", "records_rolled_back", "bytes_read"):
            total[key] += summary[key]
        total["shard_seconds"] += summary["seconds"]
        total["peak_memory_bytes"] = max(total["peak_memory_bytes"], summary["peak_memory_bytes"])
        for table in summary["tables"]:
            counts = total["tables"].setdefault(table["name"], {"records_read": 0, "records_written": 0, "records_rejected": 0,
                                                                 "records_rolled_back": 0, "records_skipped": 0})
            for key in counts:
                counts[key] += table[key]
        # Child tables' rows: written into each part beside its records' table (part-00017.<table>.<kind>).
        for table in summary.get("child_tables", []):
            counts = total["child_tables"].setdefault(table["name"], {"records_table": table["records_table"], "rows_written": 0,
                                                                       "rows_rolled_back": 0})
            for key in ("rows_written", "rows_rolled_back"):
                counts[key] += table[key]
        for rejection in summary["rejections"]:
            key = (rejection["path"], rejection["kind"])
            known = total["rejections"].get(key)
            if known is None:
                total["rejections"][key] = dict(rejection)
            else:
                known["count"] += rejection["count"]
                if rejection["first_ordinal"] < known["first_ordinal"]:
                    for field in ("first", "first_source", "first_ordinal", "first_line"):
                        known[field] = rejection[field]
    total["rejections"] = sorted(total["rejections"].values(), key=lambda rejection: rejection["first_ordinal"])
    total["shard_seconds"] = round(total["shard_seconds"], 3)
    total["exit_status"] = 2 if total["records_rejected"] else 0
    return total


def finish(summaries, plan, started, arguments, out):
    """Writes OUT/summary.json, reports on standard error, and gives the exit status."""
    total = add_up(summaries, plan, time.monotonic() - started)
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as file:
        json.dump(total, file, indent=2)
        file.write("\n")
    # JSON bytes: a compressed file's decompressed size, as sluice counts them.
    megabytes = (plan.get("decompressedBytes") or os.path.getsize(arguments.input)) / 1e6
    child_rows = sum(table["rows_written"] for table in total["child_tables"].values())
    children = f" ({child_rows} rows in {len(total['child_tables'])} child tables)" if total["child_tables"] else ""
    print(f"{total['shards']} shards: {total['records_read']} records read, {total['records_written']} written{children}, "
          f"{total['records_rejected']} rejected; {megabytes:.1f} MB in {total['seconds']:.2f} s "
          f"({megabytes / max(total['seconds'], 1e-9):.0f} MB/s)", file=sys.stderr)
    return total["exit_status"]
