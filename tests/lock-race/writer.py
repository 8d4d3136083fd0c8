"""One Python writer of the lock race (see run): saves COUNT memories named PREFIX-N into DIR
through the component, each save taking the writers' lock of the Python host.

    python writer.py COMPONENT.wasm DIR PREFIX COUNT
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
from memdir_host import ConfinedFs, MemoryCore  # noqa: E402

wasm, directory, prefix, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
core = MemoryCore(wasm)
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
