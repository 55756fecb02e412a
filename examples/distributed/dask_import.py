#!/usr/bin/env python3
"""Import one large JSON file on a Dask cluster: one `sluice import --shard` task per shard of `sluice split`.

    python dask_import.py dump.json -m tweets.mapping.yaml --parts 16 --out parts/ [--kind parquet]
    python dask_import.py dump.json -m m.yaml --records-at data --parts 64 --out parts/ --scheduler tcp://host:8786

The driver splits the file (`sluice split`, one scan), then maps each shard to a task that runs
`sluice import --shard PLAN:I` into a part of its own:

    OUT/plan.json                       the split
    OUT/part-00017.<kind>               shard 17's rows (NDJSON, Parquet, SQLite or CSV)
    OUT/part-00017.rejects.ndjson       shard 17's rejected records
    OUT/part-00017.summary.json         shard 17's summary
    OUT/summary.json                    the shards' summaries added up

Ordinals, lines and byte offsets in the parts are the whole file's, so the parts in shard order are one import of
the file. A task that fails, or whose worker process dies, is run again; it replaces its part (`--if-exists
replace`, and a part appears under its name only once its run ended well), so a retry never duplicates rows. Each
task also checks that its shard read as many records as the split counted.

Without --scheduler the script starts a LocalCluster of --processes worker processes, one thread each. With a
real cluster, the input, the plan and OUT must be at the same paths on every machine (a shared file system), and
`sluice` on each machine's PATH (or --sluice).

Exit status: 0 every record written; 2 finished, some records rejected; 1 a shard failed after its retries.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

# The part files a sink writes, by the --kind name.
PART_SUFFIXES = {"ndjson": ".ndjson", "parquet": ".parquet", "sqlite": ".sqlite", "csv": ".csv"}


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        description="Import one JSON file on a Dask cluster, one `sluice import --shard` task per shard.",
        epilog="Arguments after -- go to every `sluice import` as they are (e.g. -- --compression snappy).",
    )
    parser.add_argument("input", help="the JSON file (NDJSON, a top-level array or a wrapper document)")
    parser.add_argument("-m", "--mapping", action="append", required=True, help="a mapping file (repeat for several)")
    parser.add_argument("--out", required=True, help="the directory for the plan, the parts and the summary")
    parser.add_argument("--parts", type=int, help="how many shards (default: four per worker process)")
    parser.add_argument("--part-size", help="or the size of a shard, e.g. 256MiB")
    parser.add_argument("--records-at", help="the key path of the records inside a wrapper document")
    parser.add_argument("--kind", choices=sorted(PART_SUFFIXES), default="parquet", help="the parts' format")
    parser.add_argument("--scheduler", help="a running Dask scheduler's address (default: a LocalCluster)")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1,
                        help="worker processes of the LocalCluster (default: the cores)")
    parser.add_argument("--sluice-workers", type=int, default=1, help="--workers of each `sluice import`")
    parser.add_argument("--retries", type=int, default=2, help="how often a failed shard is run again")
    parser.add_argument("--sluice", default="sluice", help="the sluice executable")
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


def start_split(arguments, plan_path):
    """Starts `sluice split` on the driver; it scans the file while the cluster starts."""
    command = [arguments.sluice, "split", arguments.input, "-o", plan_path]
    if arguments.part_size is not None:
        command += ["--part-size", arguments.part_size]
    else:
        command += ["--parts", str(arguments.parts or 4 * arguments.processes)]
    if arguments.records_at is not None:
        command += ["--records-at", arguments.records_at]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL)


def finish_split(process, plan_path):
    """The plan, or None when the split failed (sluice has said why on standard error)."""
    if process.wait() != 0:
        return None
    with open(plan_path, encoding="utf-8") as file:
        return json.load(file)


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
    # 0: every record written; 2: some rejected, which the part's rejections hold. Anything else is a failure
    # Dask retries.
    if run.returncode not in (0, 2):
        raise RuntimeError(f"shard {index}: sluice exited {run.returncode}: {run.stderr.strip()[-2000:]}")
    with open(summary_path, encoding="utf-8") as file:
        summary = json.load(file)
    # With several mappings each table counts the records of its own type; the split counts one type.
    if len(settings["mappings"]) == 1 and summary["records_read"] != expected_records:
        raise RuntimeError(f"shard {index}: read {summary['records_read']} records, the split counted {expected_records}")
    return summary


def add_up(summaries, plan, seconds):
    """The shards' summaries as one: counts added, each rejection kind's first case the earliest in the file."""
    total = {"shards": len(summaries), "records_in_split": plan["records"], "records_read": 0,
             "records_written": 0, "records_rejected": 0, "bytes_read": 0, "seconds": round(seconds, 3),
             "shard_seconds": 0.0, "peak_memory_bytes": 0, "tables": {}, "rejections": {}}
    for summary in summaries:
        for key in ("records_read", "records_written", "records_rejected", "bytes_read"):
            total[key] += summary[key]
        total["shard_seconds"] += summary["seconds"]
        total["peak_memory_bytes"] = max(total["peak_memory_bytes"], summary["peak_memory_bytes"])
        for table in summary["tables"]:
            counts = total["tables"].setdefault(table["name"], {"records_read": 0, "records_written": 0,
                                                                 "records_rejected": 0, "records_skipped": 0})
            for key in counts:
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


def main(argv):
    arguments = parse_arguments(argv)
    # Imported here, so that --help works without Dask installed.
    import dask
    from dask.distributed import Client, LocalCluster

    os.makedirs(arguments.out, exist_ok=True)
    out = os.path.abspath(arguments.out)
    plan_path = os.path.join(out, "plan.json")
    started = time.monotonic()
    splitting = start_split(arguments, plan_path)
    settings = {
        "sluice": arguments.sluice, "input": os.path.abspath(arguments.input), "plan": plan_path, "out": out,
        "kind": arguments.kind, "mappings": [os.path.abspath(mapping) for mapping in arguments.mapping],
        "records_at": arguments.records_at, "sluice_workers": arguments.sluice_workers,
        "passed_on": arguments.passed_on,
    }
    scratch = None
    if arguments.scheduler is not None:
        cluster = None
        client = Client(arguments.scheduler)
    else:
        # The workers' scratch space goes away with the cluster (Dask would leave it in the temporary directory).
        scratch = tempfile.mkdtemp(prefix="sluice-dask-")
        dask.config.set({"temporary-directory": scratch})
        cluster = LocalCluster(n_workers=arguments.processes, threads_per_worker=1, processes=True,
                               dashboard_address=None, local_directory=scratch)
        client = Client(cluster)
    try:
        plan = finish_split(splitting, plan_path)
        if plan is None:
            return 1
        shards = plan["shards"]
        # pure=False: a task is a run with effects, never a cached value; the keys name the shards in the logs.
        futures = [client.submit(import_shard, index, shard["records"], settings, retries=arguments.retries,
                                 pure=False, key=f"sluice-shard-{index:05d}")
                   for index, shard in enumerate(shards)]
        try:
            summaries = client.gather(futures)
        except Exception as error:
            print(f"dask_import: {error}", file=sys.stderr)
            return 1
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    total = add_up(summaries, plan, time.monotonic() - started)
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as file:
        json.dump(total, file, indent=2)
        file.write("\n")
    megabytes = os.path.getsize(arguments.input) / 1e6
    print(f"{total['shards']} shards: {total['records_read']} records read, {total['records_written']} written, "
          f"{total['records_rejected']} rejected; {megabytes:.1f} MB in {total['seconds']:.2f} s "
          f"({megabytes / max(total['seconds'], 1e-9):.0f} MB/s)", file=sys.stderr)
    return total["exit_status"]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
