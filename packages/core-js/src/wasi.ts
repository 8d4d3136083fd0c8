// Our own minimal WASI for the memory core. Rust's std links stdio, environment and exit; the
// core never uses them for its work. The stock preview2 shim would hand the core
// `process.env` and could end the extension host on `exit`, so here the environment is empty,
// stdin is closed, stdout is discarded, stderr is captured (a panic's message), and `exit`
// throws.

/** Thrown when the core calls `exit`: its instance is finished and must be replaced. */
export class CoreExited extends Error {
  constructor(readonly ok: boolean) {
    super(`the memory core called exit (${ok ? "success" : "failure"})`);
  }
}

class Pollable {
  block(): void {}
  ready(): boolean {
    return true;
  }
}

class IoError {
  toDebugString(): string {
    return "closed";
  }
}

/** A stream error, as jco passes it to the core: the `stream-error` in `payload`. */
class StreamClosed extends Error {
  readonly payload = { tag: "closed" };
  constructor() {
    super("the stream is closed");
  }
}

class InputStream {
  read(): Uint8Array {
    throw new StreamClosed();
  }
  blockingRead(): Uint8Array {
    throw new StreamClosed();
  }
  subscribe(): Pollable {
    return new Pollable();
  }
}

class OutputStream {
  constructor(private readonly sink: (bytes: Uint8Array) => void) {}
  checkWrite(): bigint {
    return 1n << 20n;
  }
  write(contents: Uint8Array): void {
    this.sink(contents);
  }
  blockingWriteAndFlush(contents: Uint8Array): void {
    this.sink(contents);
  }
  flush(): void {}
  blockingFlush(): void {}
  subscribe(): Pollable {
    return new Pollable();
  }
}

class TerminalInput {}
class TerminalOutput {}

/** The WASI imports, with what the core writes to stderr kept in `stderr()`. */
export function wasiImports(): { imports: Record<string, object>; stderr: () => string; clear: () => void } {
  let captured: Uint8Array[] = [];
  const stdout = new OutputStream(() => {});
  const stderr = new OutputStream((bytes) => {
    if (captured.length < 64) captured.push(bytes.slice());
  });
  const stdin = new InputStream();
  const imports: Record<string, object> = {
    "wasi:cli/environment": { getEnvironment: () => [], getArguments: () => [], initialCwd: () => undefined },
    "wasi:cli/exit": {
      exit: (status: { tag: "ok" | "err" }) => {
        throw new CoreExited(status.tag === "ok");
      },
    },
    "wasi:cli/stdin": { getStdin: () => stdin },
    "wasi:cli/stdout": { getStdout: () => stdout },
    "wasi:cli/stderr": { getStderr: () => stderr },
    "wasi:cli/terminal-input": { TerminalInput },
    "wasi:cli/terminal-output": { TerminalOutput },
    "wasi:cli/terminal-stdin": { getTerminalStdin: () => undefined },
    "wasi:cli/terminal-stdout": { getTerminalStdout: () => undefined },
    "wasi:cli/terminal-stderr": { getTerminalStderr: () => undefined },
    "wasi:io/error": { Error: IoError },
    "wasi:io/poll": { Pollable, poll: () => new Uint32Array([0]) },
    "wasi:io/streams": { InputStream, OutputStream },
  };
  return {
    imports,
    stderr: () => Buffer.concat(captured).toString("utf8").trim(),
    clear: () => {
      captured = [];
    },
  };
}
