"""One Python writer of the lock race (see run): saves COUNT memories named PREFIX-N into DIR
through the component the installed `memdir_core` package ships, each save taking the
writers' lock of the Python host.

    python writer.py DIR PREFIX COUNT
"""

import sys
import time
from pathlib import Path

from memdir_core import ConfinedFs, MemoryCore

directory, prefix, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
core = MemoryCore()
core.call(ConfinedFs().grant_read("/"), "scan.scan", directory, 0)  # instantiated before the start
Path(f"{directory}/../ready-{prefix}").touch()
while not Path(f"{directory}/../go").exists():
    time.sleep(0.01)
for n in range(count):
    memory = {
        "target": {"cwd": directory, "env": [["HOME", directory]], "memory-dir": directory},
        "memory-type": "user", "name": f"{prefix}-{n}", "description": f"written by {prefix}, number {n}",
        "file": None, "replaces": None, "body": f"Fact {n} from {prefix}.", "now-ms": 1_767_225_600_000,
        "utc-offset-minutes": 0, "scope": None,
    }
    result = core.call_json(ConfinedFs().grant_read("/").grant_write(directory), "writer.save", [memory])
    if result.get("tag") != "ok":
        sys.exit(f"{prefix}-{n}: {result}")
