// Pausing automatic memory from the editor (issue 28, item 4): the Pause and Resume commands,
// and a status bar item while any folder's memory is paused. The core keeps the state (the
// memory directory's `.paused`) and every writer reads it there; this file only shows it.

import * as vscode from "vscode";
import type { Workspace } from "./memory";

/** How often the status bar looks again, so a pause that runs out disappears on its own. */
const REFRESH_MS = 60_000;

const CHOICES = [
  { label: "For an hour", ms: 3_600_000 },
  { label: "Until tomorrow", ms: 86_400_000 },
  { label: "Until I resume", ms: undefined },
];

export function registerPause(workspace: Workspace, log: vscode.LogOutputChannel): vscode.Disposable[] {
  const item = vscode.window.createStatusBarItem("memdir.paused", vscode.StatusBarAlignment.Left, 10);
  item.name = "memdir: automatic memory paused";
  item.command = "memdir.resume";
  const refresh = () => {
    const paused = workspace.folders().flatMap(({ name, workspace: ws }) => {
      try {
        const pause = ws.paused();
        return pause ? [{ name, until: pause.untilMs }] : [];
      } catch (e) {
        log.warn(`memdir: reading the pause of ${name}: ${(e as Error).message}`);
        return [];
      }
    });
    if (paused.length === 0) return item.hide();
    item.text = "$(debug-pause) Memory paused";
    item.tooltip = paused
      .map((p) => `${p.name}: automatic memory writes paused ${p.until === undefined ? "until resumed" : `until ${new Date(Number(p.until)).toLocaleString()}`}`)
      .concat("Recall goes on. Click to resume.")
      .join("\n");
    item.show();
  };
  const timer = setInterval(refresh, REFRESH_MS);
  refresh();
  return [
    item,
    { dispose: () => clearInterval(timer) },
    vscode.window.onDidChangeActiveTextEditor(refresh),
    vscode.workspace.onDidChangeWorkspaceFolders(refresh),
    vscode.commands.registerCommand("memdir.pause", async () => {
      const ws = await workspace.choose("Pause Automatic Memory");
      if (!ws) return;
      const choice = await vscode.window.showQuickPick(CHOICES, {
        title: "Pause automatic memory: extraction and the dream stop writing; recall goes on",
      });
      if (!choice) return;
      try {
        const pause = ws.pause(choice.ms === undefined ? undefined : Date.now() + choice.ms);
        log.info(`memdir: automatic memory writes paused${pause.untilMs === undefined ? " until resumed" : ` until ${new Date(Number(pause.untilMs)).toISOString()}`}`);
      } catch (e) {
        vscode.window.showErrorMessage(`memdir: ${(e as Error).message}`);
      }
      refresh();
    }),
    vscode.commands.registerCommand("memdir.resume", async () => {
      const ws = await workspace.choose("Resume Automatic Memory");
      if (!ws) return;
      try {
        const was = ws.resume();
        vscode.window.showInformationMessage(was ? "memdir: automatic memory resumed" : "memdir: automatic memory was not paused");
      } catch (e) {
        vscode.window.showErrorMessage(`memdir: ${(e as Error).message}`);
      }
      refresh();
    }),
  ];
}
