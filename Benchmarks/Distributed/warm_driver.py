#!/usr/bin/env python3
"""One interleaved run inside a driver that is up already, as a notebook or a long-running service is: one Python
process holding a Dask client times `sluice import --workers W` (a child process) against the Dask recipe's
`import_file` on the same running cluster, once splitting the file (dask-warm) and once cutting a kept index
(dask-warm-index; the index is made once, before the timing).

    python warm_driver.py FILE MAPPING --scheduler tcp://127.0.0.1:8786 --sluice .build/release/sluice
        [--repetitions 5] [--workers 2] [--parts N] [--records-at PATH]

Prints each run's seconds and, per contender, the median and its ratio to the single import's median. compare.sh
starts the cluster and runs this after its own contenders.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "examples", "distributed"))
import dask_import  # noqa: E402


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("mapping")
    parser.add_argument("--scheduler", required=True)
    parser.add_argument("--sluice", required=True)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--parts", type=int, help="the recipe's shards (default: the recipe's own choice)")
    parser.add_argument("--records-at")
    arguments = parser.parse_args(argv)
    from dask.distributed import Client

    scratch = tempfile.mkdtemp(prefix="sluice-warm-")
    client = Client(arguments.scheduler, timeout=20)
    try:
        client.wait_for_workers(arguments.workers, timeout=60)
        return compare(arguments, client, scratch)
    finally:
        client.close()
        shutil.rmtree(scratch, ignore_errors=True)


def compare(arguments, client, scratch):
    records_at = ["--records-at", arguments.records_at] if arguments.records_at else []
    whole = os.path.join(scratch, "whole.parquet")
    parts = os.path.join(scratch, "parts")
    index = os.path.join(scratch, "file.idx")
    recipe = [arguments.file, "-m", arguments.mapping, "--kind", "parquet", "--out", parts, "--sluice", arguments.sluice]
    recipe += records_at + (["--parts", str(arguments.parts)] if arguments.parts else [])
    single = [arguments.sluice, "import", "-m", arguments.mapping, arguments.file, "--workers", str(arguments.workers),
              "--to", whole, "--quiet"] + records_at
    contenders = {
        "single": lambda: subprocess.run(single, stdout=subprocess.DEVNULL).returncode,
        "dask-warm": lambda: dask_import.import_file(client, recipe),
        "dask-warm-index": lambda: dask_import.import_file(client, recipe + ["--index", index]),
    }
    # The index is made before the timing: what is timed is a later run that cuts it.
    subprocess.run([arguments.sluice, "split", arguments.file, "--parts", "1", "--index", index, "-o", os.devnull]
                   + records_at, check=True, stdout=subprocess.DEVNULL)
    times = {name: [] for name in contenders}
    for repetition in range(1, arguments.repetitions + 1):
        for name, run in contenders.items():
            shutil.rmtree(parts, ignore_errors=True)
            if os.path.exists(whole):
                os.remove(whole)
            started = time.monotonic()
            status = run()
            seconds = time.monotonic() - started
            if status not in (0, 2):
                print(f"{name} failed with status {status}", file=sys.stderr)
                return 1
            print(f"run {repetition}: {name} {seconds:.3f} s", flush=True)
            times[name].append(seconds)
    size = os.path.getsize(arguments.file)
    base = statistics.median(times["single"])
    for name, seconds in times.items():
        median = statistics.median(seconds)
        print(f"{name:<16} median {median:6.2f} s  {size / median / 1e6:6.0f} MB/s  throughput vs single import "
              f"{base / median:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
