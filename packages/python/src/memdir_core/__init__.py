"""memdir's memory core for Python: the WebAssembly component this package ships, run by
wasmtime-py with a filesystem confined to the directories you grant.

    from memdir_core import ConfinedFs, MemoryCore
    core = MemoryCore()
    report = core.call(ConfinedFs().grant_read(memory_dir), "scan.scan", memory_dir, now_ms)
"""

from .host import (
    ALLOWED_IMPORTS,
    WIT_VERSION,
    ConfinedFs,
    CoreTrap,
    FsFailure,
    MemoryCore,
    WritersLock,
    component_path,
    drive,
    from_wit,
    to_wit,
)

__all__ = [
    "ALLOWED_IMPORTS",
    "WIT_VERSION",
    "ConfinedFs",
    "CoreTrap",
    "FsFailure",
    "MemoryCore",
    "WritersLock",
    "component_path",
    "drive",
    "from_wit",
    "to_wit",
]
