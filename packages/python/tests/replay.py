"""The call scripts (tests/conformance/*/calls.json, see tests/README.md) replayed through the
Python host, the `memdir_core` package as installed: each case's tree prepared as
cli/tests/conformance.rs prepares it, every call made by name on the core the package
ships, its result compared with the script's.

    python replay.py [NAME-FILTER]
"""

from __future__ import annotations

import json
import os
import random
import shutil
import string
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import memdir_core
from memdir_core import ConfinedFs, MemoryCore

REPO = Path(__file__).resolve().parents[3]
CASES = REPO / "tests" / "conformance"
# Every file's mtime unless the case says otherwise: 2026-01-01T00:00:00.000Z.
DEFAULT_MTIME_MS = 1_767_225_600_000


def set_mtime(path: Path, ms: int) -> None:
    os.utime(path, ns=(os.stat(path).st_atime_ns, ms * 1_000_000), follow_symlinks=False)


def copy_tree(source: Path, target: Path) -> None:
    """Copies a tree; a path component named `dot-git` becomes `.git` (git cannot hold a `.git`)."""
    if not source.is_dir():
        return
    target.mkdir(parents=True, exist_ok=True)
    for entry in source.iterdir():
        to = target / (".git" if entry.name == "dot-git" else entry.name)
        if entry.is_symlink():
            os.symlink(os.readlink(entry), to)
        elif entry.is_dir():
            copy_tree(entry, to)
        else:
            shutil.copyfile(entry, to)


def set_mtimes(directory: Path, ms: int) -> None:
    for entry in directory.rglob("*"):
        if entry.is_file() and not entry.is_symlink():
            set_mtime(entry, ms)


def parse_mtime(when: Any) -> int:
    if isinstance(when, int):
        return when
    return int(datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp() * 1000)


def fill(text: str, index: int, pad: int, names: list[tuple[str, str]]) -> str:
    text = text.replace("{i}", str(index).zfill(pad))
    for name, value in names:
        text = text.replace(name, value)
    return text


class CaseDir:
    """A fresh `.tmpXXXXXX` directory, removed on exit. Paths in a case's output are as long as
    the recording's were, so the name has the length the Rust and Node runners give it."""

    def __init__(self) -> None:
        while True:
            name = os.path.join(tempfile.gettempdir(), ".tmp" + "".join(random.choices(string.ascii_letters + string.digits, k=6)))
            try:
                os.mkdir(name, 0o700)
                break
            except FileExistsError:
                continue
        self.name = name

    def __enter__(self) -> "CaseDir":
        return self

    def __exit__(self, *_: object) -> None:
        shutil.rmtree(self.name, ignore_errors=True)


def prepare(case_dir: Path, case: dict, core: MemoryCore) -> tuple[CaseDir, list[tuple[str, str]]]:
    holder = CaseDir()
    tmp = os.path.realpath(holder.name)
    source_input, inp = case_dir / "input", Path(tmp) / "input"
    copy_tree(source_input, inp)
    inp.mkdir(parents=True, exist_ok=True)
    (Path(tmp) / "home").mkdir()
    set_mtimes(inp, DEFAULT_MTIME_MS)
    for rel, text in case.get("outside", {}).items():
        path = Path(tmp) / "outside" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    slug = core.call(None, "paths.slug", tmp)
    names = [("{input}", str(inp)), ("{tmp}", tmp), ("{tmp-slug}", slug)]
    subst = lambda s: fill(s, 0, 0, names)  # noqa: E731
    identity = ["-c", "user.name=memdir", "-c", "user.email=memdir@example.invalid", "-c", "init.defaultBranch=main"]
    for args in case.get("git", []):
        env = {**os.environ, "HOME": f"{tmp}/home", "GIT_CONFIG_NOSYSTEM": "1"}
        subprocess.run(["git", *identity, *map(subst, args)], cwd=inp, env=env, check=True, stdout=subprocess.DEVNULL)
    for g in case.get("generate", []):
        for i in range(g.get("count") or 1):
            path = inp / fill(g["path"], i, g.get("pad", 0), names)
            path.parent.mkdir(parents=True, exist_ok=True)
            text = fill(g.get("prefix", ""), i, g.get("pad", 0), names) + g.get("repeat", "") * g.get("times", 0)
            path.write_bytes((text + fill(g.get("suffix", ""), i, g.get("pad", 0), names)).encode())
            set_mtime(path, DEFAULT_MTIME_MS + i * g.get("mtime_step_ms", 0))
    for rel, when in case.get("mtimes", {}).items():
        set_mtime(inp / rel, parse_mtime(when))
    for link, target in case.get("symlinks", {}).items():
        os.symlink(subst(target), inp / link)
    return holder, names


def map_strings(value: Any, f: Callable[[str], Any], file: Callable[[str], Any]) -> Any:
    if isinstance(value, str):
        return f(value)
    if isinstance(value, list):
        return [map_strings(v, f, file) for v in value]
    if isinstance(value, dict):
        if list(value) == ["$file"]:
            return file(value["$file"])
        return {k: map_strings(v, f, file) for k, v in value.items()}
    return value


def replay(core: MemoryCore, case_dir: Path) -> str | None:
    """Replays one case's script; returns why it failed, or None."""
    case = json.loads((case_dir / "case.json").read_text())
    script = json.loads((case_dir / "calls.json").read_text())
    holder, names = prepare(case_dir, case, core)
    with holder:
        subst = lambda s: fill(s, 0, 0, names)  # noqa: E731
        resolve = lambda v: map_strings(v, subst, lambda p: Path(subst(p)).read_text())  # noqa: E731
        for i, call in enumerate(script):
            fs = ConfinedFs()
            for root in call["grant"]["read"]:
                fs.grant_read(subst(root))
            for root in call["grant"]["write"]:
                os.makedirs(subst(root), exist_ok=True)
                fs.grant_write(subst(root))
            expected = resolve(call["result"])
            got = core.call_json(fs, call["fn"], resolve(call["args"]))
            if got != expected:
                clip = lambda v: (lambda t: t if len(t) <= 600 else t[:600] + "…")(json.dumps(v))  # noqa: E731
                return f"call {i} ({call['fn']}):\n  expected {clip(expected)}\n  got      {clip(got)}"
    return None


def main() -> int:
    filters = sys.argv[1:]
    sys.setrecursionlimit(10_000)  # shutil.rmtree recurses once per folder; a case nests 1,500
    print(f"memdir_core from {os.path.dirname(memdir_core.__file__)}")
    core = MemoryCore()
    passed = failed = 0
    for case_dir in sorted(p for p in CASES.iterdir() if (p / "calls.json").is_file()):
        if filters and not any(f in case_dir.name for f in filters):
            continue
        try:
            why = replay(core, case_dir)
        except Exception as e:  # a driver or core failure fails the case, not the run
            why = f"the replay raised {type(e).__name__}: {e}"
        if why is None:
            passed += 1
        else:
            print(f"FAIL {case_dir.name}: {why}")
            failed += 1
    print(f"calls-python: {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
