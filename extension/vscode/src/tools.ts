// Language model tools for agents (Copilot agent mode, any tool-using participant): recall,
// save, forget and the index. Their names, schemas and descriptions are the core's tool
// catalog, the MCP server's too, written into package.json by scripts/tools.mjs; here they run.
// A refusal is thrown as an Error whose message the model reads.

import * as vscode from "vscode";
import { answerer } from "./model";
import type { MemoryType, Workspace } from "./memory";

/** Agents' recalls share one session; a quiet quarter of an hour means a new task. */
const SESSION_IDLE_MS = 15 * 60 * 1000;

const text = (value: string) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);

export function registerTools(workspace: Workspace): vscode.Disposable[] {
  const session = { json: "", used: 0 };
  return [
    vscode.lm.registerTool<{ query: string; recent_tools?: string[]; already_read?: string[] }>("memory_recall", {
      async invoke(options, token) {
        if (Date.now() - session.used > SESSION_IDLE_MS) session.json = "";
        session.used = Date.now();
        // The core's words, as every host shows them.
        const ask = await answerer(token);
        return text(await workspace.callTool("memory_recall", options.input, undefined, { session, ask, givenTo: "vscode:tool" }));
      },
    }),
    vscode.lm.registerTool<{ type: MemoryType; name: string; description: string; body: string; file?: string; replaces?: string; scope?: "private" | "team" | "user" | "group" }>(
      "memory_save",
      {
        prepareInvocation(options) {
          return {
            invocationMessage: `Saving memory "${options.input.name}"`,
            confirmationMessages: {
              title: "Save a memory",
              message: new vscode.MarkdownString(`**${options.input.name}** (${options.input.type})\n\n${options.input.body}`),
            },
          };
        },
        async invoke(options) {
          // The core's words, as every host shows them.
          return text(await workspace.callTool("memory_save", options.input));
        },
      },
    ),
    vscode.lm.registerTool<{ path: string }>("memory_forget", {
      prepareInvocation(options) {
        return {
          invocationMessage: `Forgetting ${options.input.path}`,
          confirmationMessages: { title: "Forget a memory", message: `Delete ${options.input.path} and its MEMORY.md line?` },
        };
      },
      async invoke(options) {
        return text(await workspace.callTool("memory_forget", options.input));
      },
    }),
    vscode.lm.registerTool<Record<string, never>>("memory_index", {
      async invoke() {
        return text(await workspace.callTool("memory_index", {}));
      },
    }),
  ];
}
