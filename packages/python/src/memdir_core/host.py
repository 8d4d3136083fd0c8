"""The memdir memory core embedded in Python, through wasmtime-py's component API.

The core is a WebAssembly component (WIT package memdir:memory@0.3.0). It does no I/O of its
own: this module supplies its filesystem (`host-fs`), confined to the directories the caller
grants, as the Rust harness and the VS Code extension confine theirs, and runs its workflows'
model calls (the step loop in `drive`). Everything else — where memory lives, which switches
are on, what a model reply may change — the core decides.

    core = MemoryCore()  # the component this package ships; or MemoryCore("path/to/memdir_core.wasm")
    fs = ConfinedFs().grant_read("/").grant_write(memory_dir)
    report = core.call(fs, "scan.scan", memory_dir, now_ms)
"""

from __future__ import annotations

import errno
import os
import secrets
import socket
import stat as st
import time
from typing import Any, Callable

from wasmtime import Engine, Store, WasiConfig
from wasmtime.component import (
    Component,
    EnumType,
    ListType,
    Linker,
    OptionType,
    Record,
    RecordType,
    ResultType,
    TupleType,
    ValType,
    Variant,
    VariantType,
)

WIT_VERSION = "0.3.0"


def component_path() -> str:
    """The memory core this package ships, beside this module."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "memdir_core.wasm")

# What the component may import: its own host interface and the WASI interfaces Rust's std
# links for stdio and exit. No filesystem, sockets, clocks or random numbers (R0.2). The Rust
# harness's ALLOWED_IMPORTS is the one list; cli/tests/harness.rs checks this copy against it.
ALLOWED_IMPORTS = (
    f"memdir:memory/types@{WIT_VERSION}",
    f"memdir:memory/host-fs@{WIT_VERSION}",
    "wasi:cli/environment@0.2.",
    "wasi:cli/exit@0.2.",
    "wasi:cli/stdin@0.2.",
    "wasi:cli/stdout@0.2.",
    "wasi:cli/stderr@0.2.",
    "wasi:cli/terminal-input@0.2.",
    "wasi:cli/terminal-output@0.2.",
    "wasi:cli/terminal-stdin@0.2.",
    "wasi:cli/terminal-stdout@0.2.",
    "wasi:cli/terminal-stderr@0.2.",
    "wasi:io/error@0.2.",
    "wasi:io/poll@0.2.",
    "wasi:io/streams@0.2.",
)


class FsFailure(Exception):
    """A host filesystem failure: the WIT `fs-error` it becomes."""

    def __init__(self, tag: str, val: str) -> None:
        super().__init__(f"{tag}: {val}")
        self.error = Variant(tag, val)


def _fail(tag: str, val: str) -> None:
    raise FsFailure(tag, val)


def _io_error(path: str, e: OSError) -> None:
    tags = {errno.ENOENT: "not-found", errno.EACCES: "permission-denied", errno.EPERM: "permission-denied",
            errno.ENOTDIR: "not-a-directory", errno.EISDIR: "is-a-directory"}
    tag = tags.get(e.errno)
    _fail(tag, path) if tag else _fail("other", f"{path}: {e.strerror}")


def _checked(path: str) -> str:
    if not path or "\0" in path or not path.startswith("/") or ".." in path.split("/"):
        _fail("invalid-path", path)
    return path


def _ms(ns: int) -> int:
    """Whole milliseconds, truncated toward zero as the other hosts do."""
    return ns // 1_000_000 if ns >= 0 else -((-ns) // 1_000_000)


def _kind(mode: int) -> str:
    if st.S_ISLNK(mode):
        return "symlink"
    if st.S_ISDIR(mode):
        return "dir"
    if st.S_ISREG(mode):
        return "file"
    return "other"


def _record(**fields: Any) -> Record:
    r = Record()
    for name, value in fields.items():
        setattr(r, name.replace("_", "-"), value)
    return r


_LOCK_MAGIC = "memdir-lock 1"
# A lock file not refreshed for this long is stale, whoever holds it; one without a readable
# record after the shorter time (a holder killed between creating and writing it).
_STALE_AFTER_S = 10.0
_UNREADABLE_AFTER_S = 2.0


class WritersLock:
    """The writers' lock, one protocol for every memdir host on every platform; the Rust
    harness's `host-harness/src/lock.rs` describes it in full. The lock is held by whoever
    created `.memdir.lock` exclusively; the file holds one line naming the holder
    (`memdir-lock 1 pid=… host=… since=… token=…`), and release removes it if it still holds
    our token. A waiter breaks a stale lock under `.memdir.lock.break`: a holder on this host
    whose process is gone, a file not refreshed for 10 s, an unreadable record older than 2 s.
    This host's holds last one core call, so they need no refreshing."""

    def __init__(self, path: str, token: str) -> None:
        self.path, self.token = path, token

    @staticmethod
    def _host() -> str:
        # As the other hosts name it: gethostname, without whitespace.
        return "".join(socket.gethostname().split())

    @staticmethod
    def _parse(text: str) -> tuple[int, str, int, str] | None:
        first = text.split("\n", 1)[0]
        if not first.startswith(_LOCK_MAGIC):
            return None
        fields = dict(f.split("=", 1) for f in first[len(_LOCK_MAGIC):].split() if "=" in f)
        try:
            return int(fields["pid"]), fields["host"], int(fields["since"]), fields["token"]
        except (KeyError, ValueError):
            return None

    @classmethod
    def _read(cls, path: str) -> tuple[int, str, int, str] | None:
        try:
            if not st.S_ISREG(os.lstat(path).st_mode):
                return None
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            try:
                return cls._parse(os.read(fd, 4096).decode("utf-8", "replace"))
            finally:
                os.close(fd)
        except OSError:
            return None

    @staticmethod
    def _create_new(path: str) -> int:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)

    @classmethod
    def _holder(cls, record: tuple[int, str, int, str] | None, age: float) -> str | None:
        """Who holds the lock, or None when it is stale."""
        if record is None:
            return "a writer that is just starting" if age < _UNREADABLE_AFTER_S else None
        pid, host, _, _ = record
        if age >= _STALE_AFTER_S:
            return None
        if host == cls._host() and not _alive(pid):
            return None
        return f"process {pid} on {host}"

    @classmethod
    def _break_stale(cls, path: str, judged: tuple[int, str, int, str] | None) -> None:
        breaker = f"{path}.break"
        try:
            os.close(cls._create_new(breaker))
        except FileExistsError:
            # Another waiter is breaking it; a breaker that died leaves its file, old.
            try:
                if time.time() - os.lstat(breaker).st_mtime >= _UNREADABLE_AFTER_S:
                    os.unlink(breaker)
            except FileNotFoundError:
                pass
            return
        try:
            if cls._read(path) == judged:
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
        finally:
            os.unlink(breaker)

    @classmethod
    def try_acquire(cls, path: str) -> "WritersLock | str":
        """One attempt: the lock, or who holds it. Raises for a lock file that is not regular."""
        for _ in range(3):
            token = secrets.token_hex(16)
            try:
                fd = cls._create_new(path)
            except FileExistsError:
                pass
            else:
                try:
                    line = f"{_LOCK_MAGIC} pid={os.getpid()} host={cls._host()} since={int(time.time() * 1000)} token={token}\n"
                    os.write(fd, line.encode())
                finally:
                    os.close(fd)
                return cls(path, token)
            try:
                info = os.lstat(path)
            except FileNotFoundError:
                continue  # released meanwhile
            # Never read a FIFO (it would block) nor follow a link.
            if not st.S_ISREG(info.st_mode):
                raise OSError(errno.EINVAL, "not a regular file; memdir locks only a regular file")
            record = cls._read(path)
            holder = cls._holder(record, time.time() - info.st_mtime)
            if holder is not None:
                return holder
            cls._break_stale(path, record)
        return "a writer that keeps taking it"

    def release(self) -> None:
        # Only our own: a lock broken as stale and taken by another writer is theirs now.
        record = self._read(self.path)
        if record is not None and record[3] == self.token:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except PermissionError:
        return True
    except OSError:
        return False


class ConfinedFs:
    """The real filesystem, confined to granted roots: after every link is resolved, a path must
    lie in a granted root, and a write in a writable one."""

    def __init__(self) -> None:
        self.roots: list[tuple[str, bool]] = []
        self.locks: dict[str, WritersLock] = {}

    def grant_read(self, directory: str) -> "ConfinedFs":
        self.roots.append((os.path.realpath(directory, strict=True), False))
        return self

    def grant_write(self, directory: str) -> "ConfinedFs":
        self.roots.append((os.path.realpath(directory, strict=True), True))
        return self

    def _root_of(self, canonical: str) -> tuple[str, bool] | None:
        inside = [r for r in self.roots if canonical == r[0] or canonical.startswith(r[0].rstrip("/") + "/")]
        return max(inside, key=lambda r: r[1], default=None)

    def _resolve(self, path: str) -> str:
        try:
            canonical = os.path.realpath(_checked(path), strict=True)
        except OSError as e:
            _io_error(path, e)
        if not self._root_of(canonical):
            _fail("outside-root", path)
        return canonical

    def _resolve_for_write(self, path: str) -> str:
        existing, missing = _checked(path), []
        while True:
            try:
                canonical = os.path.realpath(existing, strict=True)
                break
            except FileNotFoundError as e:
                if existing == "/":
                    _io_error(path, e)
                # A link that points nowhere is not a missing file: it is never written through.
                if os.path.islink(existing):
                    _fail("other", f"{path}: a symbolic link that points nowhere; memdir does not write through it")
                missing.insert(0, os.path.basename(existing))
                existing = os.path.dirname(existing)
            except OSError as e:
                _io_error(path, e)
        full = os.path.join(canonical, *missing)
        root = self._root_of(full)
        if not root:
            _fail("outside-root", path)
        if not root[1]:
            _fail("read-only", path)
        return full

    def _with_file(self, path: str, body: Callable[[int, os.stat_result], Any]) -> Any:
        canonical = self._resolve(path)
        try:
            fd = os.open(canonical, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
        except OSError as e:
            _io_error(path, e)
        try:
            info = os.fstat(fd)
            if st.S_ISDIR(info.st_mode):
                _fail("is-a-directory", path)
            return body(fd, info)
        except OSError as e:
            _io_error(path, e)
        finally:
            os.close(fd)

    # The host-fs functions, by their WIT names.

    def list_dir(self, path: str) -> list[Record]:
        directory = self._resolve(path)
        try:
            names = os.listdir(os.fsencode(directory))
        except OSError as e:
            _io_error(path, e)
        entries = []
        for raw in names:
            try:
                name = raw.decode("utf-8")
            except UnicodeDecodeError:
                continue  # names that are not UTF-8 are left out
            try:
                info = os.lstat(os.path.join(directory, name))
            except OSError:
                continue  # gone between the listing and the stat
            entries.append(_record(name=name, kind=_kind(info.st_mode), size=info.st_size, mtime_ms=_ms(info.st_mtime_ns)))
        return entries

    def read_head(self, path: str, max_lines: int, max_bytes: int) -> Record:
        def body(fd: int, info: os.stat_result) -> Record:
            want, data = min(info.st_size, max_bytes), b""
            while len(data) < want:
                chunk = os.read(fd, want - len(data))
                if not chunk:
                    break
                data += chunk
            lines = 0
            for i, byte in enumerate(data):
                if byte == 0x0A:
                    lines += 1
                    if lines == max_lines:
                        data = data[: i + 1]
                        break
            return _record(data=bytes(data), size=info.st_size, mtime_ms=_ms(info.st_mtime_ns), truncated=len(data) < info.st_size)

        return self._with_file(path, body)

    def stat(self, path: str) -> Record:
        canonical = self._resolve(path)
        try:
            info = os.stat(canonical)
        except OSError as e:
            _io_error(path, e)
        return _record(kind=_kind(info.st_mode), size=info.st_size, mtime_ms=_ms(info.st_mtime_ns))

    def real_path(self, path: str) -> str:
        return self._resolve(path)

    def read_file(self, path: str, max_bytes: int) -> bytes:
        def body(fd: int, info: os.stat_result) -> bytes:
            if info.st_size > max_bytes:
                _fail("other", f"{path}: {info.st_size} bytes, more than the {max_bytes} allowed")
            data = b""
            while chunk := os.read(fd, 64 * 1024):
                data += chunk
                if len(data) > max_bytes:
                    _fail("other", f"{path}: grew past the {max_bytes} bytes allowed")
            return data

        return self._with_file(path, body)

    def write_file(self, path: str, data: bytes) -> None:
        target = self._resolve_for_write(path)
        tmp = os.path.join(os.path.dirname(target), f".memdir-tmp-{os.getpid()}-{os.urandom(6).hex()}")
        try:
            try:
                mode = os.stat(target).st_mode & 0o7777
            except FileNotFoundError:
                mode = 0o644
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            try:
                os.write(fd, data)
                os.fchmod(fd, mode)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(tmp, target)
        except OSError as e:
            if os.path.lexists(tmp):
                os.unlink(tmp)
            _io_error(path, e)

    def append_file(self, path: str, data: bytes) -> None:
        target = self._resolve_for_write(path)
        try:
            # No-follow on the last component: a link put there after the check is not followed.
            fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        except OSError as e:
            _io_error(path, e)

    def rename(self, source: str, target: str) -> None:
        frm, to = self._resolve_for_write(source), self._resolve_for_write(target)
        try:
            os.rename(frm, to)
        except OSError as e:
            _io_error(source, e)

    def remove_file(self, path: str) -> None:
        target = self._resolve_for_write(path)
        try:
            os.unlink(target)
        except OSError as e:
            _io_error(path, e)

    def create_dir_all(self, path: str) -> None:
        target = self._resolve_for_write(path)
        try:
            os.makedirs(target, exist_ok=True)
        except OSError as e:
            _io_error(path, e)

    def lock(self, path: str, timeout_ms: int) -> None:
        """The writers' lock, in the one protocol every memdir host shares (`WritersLock`)."""
        target = self._resolve_for_write(path)
        if target in self.locks:
            return
        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            try:
                got = WritersLock.try_acquire(target)
            except OSError as e:
                _io_error(path, e)
            if isinstance(got, WritersLock):
                self.locks[target] = got
                return
            if time.monotonic() >= deadline:
                _fail("other", f"{path}: still locked by another writer ({got}) after {timeout_ms} ms")
            time.sleep(0.005)

    def unlock(self, path: str) -> None:
        held = self.locks.pop(self._resolve_for_write(path), None)
        if held is not None:
            held.release()

    def functions(self) -> dict[str, Callable[..., Any]]:
        return {
            "list-dir": self.list_dir, "read-head": self.read_head, "stat": self.stat, "real-path": self.real_path,
            "read-file": self.read_file, "write-file": self.write_file, "append-file": self.append_file,
            "rename": self.rename, "remove-file": self.remove_file, "create-dir-all": self.create_dir_all,
            "lock": self.lock, "unlock": self.unlock,
        }


class CoreTrap(Exception):
    """The core trapped; the instance was dropped and the next call gets a fresh one."""


class MemoryCore:
    """The component, loaded once; every call names the filesystem it grants."""

    def __init__(self, wasm_path: str | None = None) -> None:
        if wasm_path is None:
            wasm_path = component_path()
        self.engine = Engine()
        self.component = Component.from_file(self.engine, wasm_path)
        names = [*self.component.type.imports(self.engine), *self.component.type.exports(self.engine)]
        for name in names:
            if name.startswith("memdir:memory/") and "@" in name:
                found = name.split("@", 1)[1]
                if found != WIT_VERSION:
                    raise ImportError(
                        f"the memory core implements memdir:memory@{found}, but this host speaks "
                        f"memdir:memory@{WIT_VERSION}; use the core that ships with this memdir, "
                        "or a memdir of the core's version")
        forbidden = [name for name in self.component.type.imports(self.engine)
                     if not name.startswith(ALLOWED_IMPORTS)]
        if forbidden:
            raise ImportError(f"the memory core imports {', '.join(forbidden)}, which memdir does not grant; refusing to run it")
        self.fs: ConfinedFs | None = None
        self.linker = Linker(self.engine)
        self.linker.add_wasip2()
        with self.linker.root() as root:
            with root.add_instance(f"memdir:memory/host-fs@{WIT_VERSION}") as host_fs:
                for name in ConfinedFs().functions():
                    host_fs.add_func(name, self._host_function(name))
        self.live: tuple[Store, Any] | None = None

    def _host_function(self, name: str) -> Callable[..., Any]:
        # A host function returns its `fs-error` as a value: raising would trap the core.
        def call(_store: Any, *args: Any) -> Any:
            if self.fs is None:
                return Variant("other", "the memory core used the filesystem outside a call")
            try:
                return self.fs.functions()[name](*args)
            except FsFailure as e:
                return e.error
        return call

    def _instance(self) -> tuple[Store, Any]:
        if self.live is None:
            store = Store(self.engine)
            store.set_wasi(WasiConfig())
            self.live = (store, self.linker.instantiate(store, self.component))
        return self.live

    def function(self, func: str) -> tuple[Store, Any]:
        """The exported function `interface.function` (WIT names), with its store."""
        interface, name = func.split(".", 1)
        store, instance = self._instance()
        exported = instance.get_export_index(store, f"memdir:memory/{interface}@{WIT_VERSION}")
        index = instance.get_export_index(store, name, exported) if exported else None
        f = instance.get_func(store, index) if index else None
        if f is None:
            raise LookupError(f"the component exports no {func}")
        return store, f

    def call(self, fs: ConfinedFs | None, func: str, *args: Any) -> Any:
        """Calls `func` with Python values (records as `Record`, variants as `Variant`)."""
        store, f = self.function(func)
        previous, self.fs = self.fs, fs
        try:
            return f(store, *args)
        except Exception as e:
            self.live = None
            raise CoreTrap(f"the memory core failed during `{func}`: {e}") from e
        finally:
            self.fs = previous

    def call_json(self, fs: ConfinedFs, func: str, args: list[Any]) -> Any:
        """Calls `func` with arguments and result in the JSON form of the call scripts."""
        store, f = self.function(func)
        ty = f.type(store)
        if len(ty.params) != len(args):
            raise TypeError(f"{func} takes {len(ty.params)} argument(s), not {len(args)}")
        values = [to_wit(t, a) for (_, t), a in zip(ty.params, args)]
        result = self.call(fs, func, *values)
        return None if ty.result is None else from_wit(ty.result, result)


def drive(step: Any, ask: Callable[[Record], str], resume: Callable[[str, Variant], Any]) -> Any:
    """The whole loop a host runs over a workflow (recall, extraction, dream): while the core
    asks, ask the model and resume with its reply — or with its failure, which the core turns
    into a diagnostic. `step` is the workflow's step (`Variant("ask" | "done", …)`)."""
    while step.tag == "ask":
        call = step.payload
        try:
            reply = Variant("text", ask(getattr(call, "request")))
        except Exception as e:  # any failure of the model is the core's to judge
            reply = Variant("failed", str(e))
        step = resume(getattr(call, "state"), reply)
    return step.payload


# The JSON form of WIT values (see host-harness/src/calls.rs), to and from wasmtime-py's:
# records are `Record`s with the WIT field names; a variant, option or result is a `Variant`
# when its cases cannot be told apart by Python type, else the bare payload.

def _cases(ty: ValType) -> list[tuple[str, ValType | None]]:
    if isinstance(ty, VariantType):
        return ty.cases
    if isinstance(ty, OptionType):
        return [("none", None), ("some", ty.payload)]
    assert isinstance(ty, ResultType)
    return [("ok", ty.ok), ("err", ty.err)]


def _classes(ty: ValType | None) -> set[type]:
    found: set[type] = set()
    if ty is None:
        found.add(object)
    else:
        ty.add_classes(found)
    return found


def _tagged(ty: ValType) -> bool:
    seen: set[type] = set()
    for _, case in _cases(ty):
        classes = _classes(case)
        if classes & seen:
            return True
        seen |= classes
    return False


def to_wit(ty: ValType, value: Any) -> Any:
    if isinstance(ty, RecordType):
        return _record_named({name: to_wit(t, value.get(name)) for name, t in ty.fields})
    if isinstance(ty, ListType):
        return [to_wit(ty.element, v) for v in value]
    if isinstance(ty, TupleType):
        return tuple(to_wit(t, v) for t, v in zip(ty.elements, value))
    if isinstance(ty, (VariantType, OptionType, ResultType)):
        if isinstance(ty, OptionType):
            tag, payload = ("none", None) if value is None else ("some", value)
        else:
            tag, payload = value["tag"], value.get("val")
        case = dict(_cases(ty))[tag]
        lowered = None if case is None else to_wit(case, payload)
        return Variant(tag, lowered) if _tagged(ty) else lowered
    return value  # strings, numbers, booleans, enum names


def from_wit(ty: ValType, value: Any) -> Any:
    if isinstance(ty, RecordType):
        return {name: from_wit(t, getattr(value, name)) for name, t in ty.fields}
    if isinstance(ty, ListType):
        return [from_wit(ty.element, v) for v in value]
    if isinstance(ty, TupleType):
        return [from_wit(t, v) for t, v in zip(ty.elements, value)]
    if isinstance(ty, (VariantType, OptionType, ResultType)):
        if _tagged(ty):
            tag, payload = value.tag, value.payload
        else:
            # The first case the value's Python type fits, as wasmtime-py itself decides.
            tag, payload = next((name, value) for name, case in _cases(ty)
                                if ((value is None) if case is None else isinstance(value, tuple(_classes(case)))))
        case = dict(_cases(ty))[tag]
        if isinstance(ty, OptionType):
            return None if case is None else from_wit(case, payload)
        return {"tag": tag} if case is None else {"tag": tag, "val": from_wit(case, payload)}
    if isinstance(ty, EnumType) or isinstance(value, (str, int, bool)):
        return value
    return value


def _record_named(fields: dict[str, Any]) -> Record:
    r = Record()
    for name, value in fields.items():
        setattr(r, name, value)
    return r
