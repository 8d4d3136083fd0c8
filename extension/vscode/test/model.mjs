// Model adapters for the Node CLI, after `host-harness/src/llm/mod.rs`: `--llm SPEC` names
// one. `command:CMD` is ported from `llm/command.rs`: `sh -c CMD` with the request as JSON on
// stdin and the reply on stdout, bounded by MEMDIR_LLM_TIMEOUT_MS (default 30 s). The HTTP
// adapters (`anthropic:`, `openai:`) need an asynchronous host and are refused here, after
// the same checks of their spec and keys.

import { spawnSync } from "node:child_process";
import { debugStr, durationDebug, exitStatus, ioMessage, parseU64, sortedKeys, trim } from "./rust.mjs";

/** Replies longer than this are not read (the core refuses long replies anyway). */
const MAX_STDOUT = 16 * 1024 * 1024;
/** How much of a failing command's stderr the error quotes. */
const MAX_STDERR = 64 * 1024;

/** A model call that gave no reply; the message reads as Rust's `LlmError`. */
export class LlmError extends Error {}

/** A `--llm` spec that is not understood or lacks a key; the message says what to write. */
export class SpecError extends Error {}

/** `llm::var`: the last definition of `name` in `env` (pairs), when not empty. */
export function envVar(env, name) {
  const found = env.findLast(([key]) => key === name);
  return found && found[1] !== "" ? found[1] : undefined;
}

/** The reply schema of a request as JSON (the core always sends a valid one). */
function replySchema(request) {
  try {
    return JSON.parse(request.schema);
  } catch {
    return { type: "object" };
  }
}

/** `command:CMD`: a shell command that answers model requests. */
class CommandModel {
  constructor(command, timeoutMs, cwd) {
    this.command = command;
    this.timeoutMs = timeoutMs;
    this.cwd = cwd;
    this.label = `model:command:${command}`;
  }

  /** Performs one request; returns the reply text or throws an LlmError. */
  complete(request) {
    // serde_json's `json!`, as the harness sends it: keys sorted, compact.
    const body = sortedKeys({
      system: request.system,
      user: request.user,
      schema: replySchema(request),
      max_tokens: request.maxTokens,
      tier: request.tier,
    });
    // The command inherits this process's environment and directory, as the harness's does.
    const result = spawnSync("sh", ["-c", this.command], {
      input: JSON.stringify(body),
      cwd: this.cwd,
      timeout: this.timeoutMs,
      killSignal: "SIGKILL",
      maxBuffer: MAX_STDOUT,
    });
    const code = result.error?.code;
    if (code === "ETIMEDOUT") throw new LlmError(`the model did not answer within ${durationDebug(this.timeoutMs)}`);
    // A command may leave its stdin unread (EPIPE); past MAX_STDOUT it is killed (ENOBUFS) and
    // fails below as killed.
    if (result.error && code !== "EPIPE" && code !== "ENOBUFS") {
      throw new LlmError(`the model command failed: ${this.command}: ${ioMessage(result.error)}`);
    }
    if (result.status !== 0) {
      const said = trim(result.stderr.subarray(0, MAX_STDERR).toString("utf8"));
      throw new LlmError(`the model command failed: ${this.command} exited with ${exitStatus(result)}: ${said}`);
    }
    return result.stdout.toString("utf8");
  }
}

/**
 * The model a `--llm` spec names, `null` for `offline`. `env` is the command's environment
 * (pairs); `cwd` where a command runs. Throws a SpecError as `llm::from_spec` fails.
 */
export function fromSpec(spec, env, cwd) {
  const timeoutMs = Number(parseU64(envVar(env, "MEMDIR_LLM_TIMEOUT_MS") ?? "") ?? 30_000n);
  const colon = spec.indexOf(":");
  const [kind, arg] = colon < 0 ? [spec, ""] : [spec.slice(0, colon), spec.slice(colon + 1)];
  if (kind === "offline" && arg === "") return null;
  if (kind === "command" && trim(arg) !== "") return new CommandModel(arg, timeoutMs, cwd);
  if (kind === "anthropic" && arg !== "") {
    if (!envVar(env, "ANTHROPIC_API_KEY")) throw new SpecError("anthropic:MODEL needs ANTHROPIC_API_KEY");
    throw new SpecError("anthropic:MODEL is not available in the Node CLI: use command:CMD");
  }
  if (kind === "openai" && arg !== "") throw new SpecError("openai:MODEL is not available in the Node CLI: use command:CMD");
  throw new SpecError(`unknown model spec ${debugStr(spec)}: use offline, command:CMD, anthropic:MODEL or openai:MODEL`);
}
