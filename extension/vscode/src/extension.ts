// memdir in VS Code: the memory core (a WebAssembly component, loaded through jco) with the
// filesystem confined to the memory roots and `vscode.lm` as its model. It gives the user a
// Memories view and commands, and agents the @memory participant and language model tools.

import * as path from "node:path";
import * as vscode from "vscode";
import { registerCommands } from "./commands";
import { installCopilotHooks } from "./copilot";
import { registerPause } from "./pause";
import { MemoryDiagnostics } from "./diagnostics";
import { review } from "./review";
import { Workspace } from "./memory";
import { registerParticipant } from "./participant";
import { registerTools } from "./tools";
import { MemoriesView } from "./view";

export function activate(context: vscode.ExtensionContext) {
  const started = performance.now();
  const log = vscode.window.createOutputChannel("memdir", { log: true });
  const workspace = new Workspace(vscode.Uri.joinPath(context.extensionUri, "dist").fsPath, log);
  const view = new MemoriesView(workspace, log);
  const diagnostics = new MemoryDiagnostics(workspace, log);
  // The view marks a memory whose citations are gone, from the last check (issue 14).
  view.verdictOf = (memoryPath) => diagnostics.last?.evidence.find((e) => e.path === memoryPath)?.verdict;
  context.subscriptions.push(
    diagnostics,
    diagnostics.onDidCheck(() => view.refresh()),
    vscode.languages.registerCodeActionsProvider({ scheme: "file", pattern: "**/MEMORY.md" }, diagnostics, {
      providedCodeActionKinds: [vscode.CodeActionKind.QuickFix],
    }),
    vscode.commands.registerCommand("memdir.check", async () => {
      const report = diagnostics.run();
      if (!report) return;
      const count = report.findings.filter((f) => f.severity !== "note").length;
      vscode.window.showInformationMessage(
        `memdir: ${report.memories} memories checked; ${count} error(s) or warning(s), ${report.findings.length - count} note(s)`,
      );
      await vscode.commands.executeCommand("workbench.actions.view.problems");
    }),
    vscode.commands.registerCommand("memdir.review", async () => {
      try {
        await review(workspace, () => {
          view.refresh();
          diagnostics.schedule();
        });
      } catch (e) {
        vscode.window.showErrorMessage(`memdir: ${(e as Error).message}`);
      }
    }),
    vscode.commands.registerCommand("memdir.fixIndex", () => {
      try {
        const changes = workspace.fix();
        log.info(`memdir: ${changes.length ? changes.join("; ") : "MEMORY.md needed no repair"}`);
        vscode.window.showInformationMessage(`memdir: ${changes.length ? changes.join("; ") : "MEMORY.md needed no repair"}`);
      } catch (e) {
        vscode.window.showErrorMessage(`memdir: ${(e as Error).message}`);
      }
      diagnostics.run();
      view.refresh();
    }),
    watchMemories(workspace, () => diagnostics.schedule()),
    registerTeamSync(workspace, log, () => {
      view.refresh();
      diagnostics.schedule();
    }),
  );
  diagnostics.schedule();
  context.subscriptions.push(
    log,
    view,
    pendingBadge(vscode.window.createTreeView("memdir.memories", { treeDataProvider: view }), view, workspace, log),
    ...registerCommands(workspace, view),
    ...registerTools(workspace),
    ...registerPause(workspace, log),
    registerParticipant(workspace, log),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("memdir")) view.refresh();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => view.foldersChanged()),
  );
  noticeTwoMemories(context);
  installCopilotHooks(log);
  context.subscriptions.push(awaitLateFolders(() => view.foldersChanged()));
  log.info(`memdir: memory directory ${safe(() => workspace.location().memoryDir)}`);
  // The extension builds prompts: a missing MEMORY.md is written now (R6.5).
  log.info(`memdir: ${safe(() => workspace.rebuildIndex() ?? "MEMORY.md needs no rebuilding")}`);
  log.info(`memdir: activated in ${(performance.now() - started).toFixed(1)} ms`);
}

/**
 * The Memories view's badge: how many proposals wait for review (issue 28), across the folders,
 * counted again whenever the view refreshes.
 */
function pendingBadge(tree: vscode.TreeView<unknown>, view: MemoriesView, workspace: Workspace, log: vscode.LogOutputChannel): vscode.Disposable {
  const count = () => {
    let waiting = 0;
    for (const { name, workspace: ws } of workspace.folders()) {
      try {
        waiting += ws.pending().length;
      } catch (e) {
        log.warn(`memdir: the review queue of ${name}: ${(e as Error).message}`);
      }
    }
    tree.badge = waiting > 0 ? { value: waiting, tooltip: `${waiting} proposed change(s) to memory wait for review: Memory: Review Memories…` } : undefined;
  };
  count();
  return vscode.Disposable.from(tree, view.onDidChangeTreeData(count));
}

/** Copilot's own memory settings: when one is on, agents have two memories to write to. */
const EDITOR_MEMORY = ["tools.memory.enabled", "copilotMemory.enabled"];

/**
 * Says once, plainly, that two memory systems are active when the editor's own agent memory is
 * on too, and how to choose (issue 16).
 */
function noticeTwoMemories(context: vscode.ExtensionContext): void {
  const shown = "memdir.twoMemoriesNoticeShown";
  if (context.globalState.get<boolean>(shown)) return;
  const copilot = vscode.workspace.getConfiguration("github.copilot.chat");
  const on = EDITOR_MEMORY.filter((key) => copilot.get<boolean>(key) === true);
  if (on.length === 0) return;
  void context.globalState.update(shown, true);
  const off = "Turn Off Copilot Memory";
  vscode.window
    .showInformationMessage(
      "Two memory systems are active: memdir and Copilot's own memory. Agents may save a fact to either, and each recalls only its own. To keep one memory that every agent shares, turn off Copilot's; to keep Copilot's, set autoMemoryEnabled to false in ~/.claude/settings.json.",
      off,
      "Keep Both",
    )
    .then(async (choice) => {
      if (choice !== off) return;
      for (const key of on) await copilot.update(key, false, vscode.ConfigurationTarget.Global);
    });
}

/**
 * Team memory synced through git (issue 13): the Sync Team Memory command, and with
 * `teamSync: auto` a sync when the window opens and after writes pause, in the background
 * (reported in the log), one at a time.
 */
/**
 * A window opened on a `.code-workspace` can activate the extension before it knows the
 * workspace's folders, and no folder-change event follows (seen in code-server on a first
 * start): until the folders are there (at most a minute), look every half second, and tell
 * the view once they are.
 */
function awaitLateFolders(arrived: () => void): vscode.Disposable {
  if (!vscode.workspace.workspaceFile || vscode.workspace.workspaceFolders?.length) return new vscode.Disposable(() => {});
  let tries = 0;
  const timer = setInterval(() => {
    if (vscode.workspace.workspaceFolders?.length) arrived();
    if (vscode.workspace.workspaceFolders?.length || ++tries >= 120) clearInterval(timer);
  }, 500);
  return new vscode.Disposable(() => clearInterval(timer));
}

function registerTeamSync(workspace: Workspace, log: vscode.LogOutputChannel, changed: () => void): vscode.Disposable {
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const sync = (minIntervalMs?: number) => {
    const next = running.then(async () => {
      // Each folder's memory once: two folders of one repository share theirs.
      const reports = [];
      const seen = new Set<string>();
      for (const { workspace: ws } of workspace.folders()) {
        const dir = safe(() => ws.location().memoryDir);
        if (seen.has(dir)) continue;
        seen.add(dir);
        reports.push(...(await ws.sync(minIntervalMs)));
      }
      for (const r of reports) {
        if (r.skipped) continue;
        log.info(`memdir: synced ${r.dir} with ${r.remote ?? "?"}: ${r.committed ?? "nothing to commit"}; received ${r.received.length}; ${r.pushed ? "pushed" : "nothing to push"}`);
        for (const c of r.conflicts) log.warn(`memdir: ${c.message}`);
      }
      if (reports.some((r) => !r.skipped)) changed();
      return reports;
    });
    running = next.catch(() => undefined);
    return next;
  };
  const auto = () => safe(() => workspace.teamSync()) === "auto";
  // The core's schedule, asked when a sync is due (not at activation).
  const schedule = () => workspace.core.autoSyncSchedule();
  workspace.onWrite = () => {
    if (!auto()) return;
    clearTimeout(timer);
    timer = setTimeout(() => sync().catch((e) => log.warn(`memdir: sync: ${(e as Error).message}`)), schedule().writeDelayMs);
  };
  if (auto()) sync(schedule().sessionIntervalMs).catch((e) => log.warn(`memdir: sync: ${(e as Error).message}`));
  const command = vscode.commands.registerCommand("memdir.teamSync", async () => {
    if (!vscode.workspace.isTrusted) {
      vscode.window.showWarningMessage("memdir: this workspace is in Restricted Mode, where memory is read-only: trust it to sync");
      return;
    }
    if (workspace.teamSync() === "off") {
      vscode.window.showWarningMessage("memdir: team sync is off (teamSync in ~/.claude/settings.json)");
      return;
    }
    try {
      const reports = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: "memdir: syncing memory through git" },
        () => sync(),
      );
      if (reports.length === 0) {
        vscode.window.showInformationMessage("memdir: no memory here is synced yet: run `memdir team init` (see docs/team.md)");
        return;
      }
      const said = reports.map((r) => `${path.basename(r.dir)}: received ${r.received.length}, ${r.pushed ? "pushed" : "nothing to push"}${r.conflicts.length ? `, ${r.conflicts.length} conflict(s) kept beside` : ""}`);
      vscode.window.showInformationMessage(`memdir: ${said.join("; ")}`);
    } catch (e) {
      vscode.window.showErrorMessage(`memdir: ${(e as Error).message}`);
    }
  });
  return new vscode.Disposable(() => {
    clearTimeout(timer);
    command.dispose();
  });
}

/** Calls `changed` whenever a memory file is created, changed or deleted. */
function watchMemories(workspace: Workspace, changed: () => void): vscode.Disposable {
  try {
    const dir = workspace.location().memoryDir;
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), "**/*.md"));
    watcher.onDidCreate(changed);
    watcher.onDidChange(changed);
    watcher.onDidDelete(changed);
    return watcher;
  } catch {
    return new vscode.Disposable(() => {});
  }
}

function safe(f: () => string): string {
  try {
    return f();
  } catch (e) {
    return `unknown (${(e as Error).message})`;
  }
}

export function deactivate() {}
