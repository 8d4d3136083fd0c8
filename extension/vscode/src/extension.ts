// memdir in VS Code: the memory core (a WebAssembly component, loaded through jco) with the
// filesystem confined to the memory roots and `vscode.lm` as its model. It gives the user a
// Memories view and commands, and agents the @memory participant and language model tools.

import * as vscode from "vscode";
import { registerCommands } from "./commands";
import { Workspace } from "./memory";
import { registerParticipant } from "./participant";
import { registerTools } from "./tools";
import { MemoriesView } from "./view";

export function activate(context: vscode.ExtensionContext) {
  const log = vscode.window.createOutputChannel("memdir", { log: true });
  const workspace = new Workspace(vscode.Uri.joinPath(context.extensionUri, "dist").fsPath, log);
  const view = new MemoriesView(workspace, log);
  context.subscriptions.push(
    log,
    view,
    vscode.window.registerTreeDataProvider("memdir.memories", view),
    ...registerCommands(workspace, view),
    ...registerTools(workspace),
    registerParticipant(workspace, log),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("memdir")) view.refresh();
    }),
  );
  log.info(`memdir: memory directory ${safe(() => workspace.location().memoryDir)}`);
  // The extension builds prompts: a missing MEMORY.md is written now (R6.5).
  log.info(`memdir: ${safe(() => workspace.rebuildIndex() ?? "MEMORY.md needs no rebuilding")}`);
}

function safe(f: () => string): string {
  try {
    return f();
  } catch (e) {
    return `unknown (${(e as Error).message})`;
  }
}

export function deactivate() {}
