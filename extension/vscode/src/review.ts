// "Memory: Review Memories" (issue 14, item 6): walks what the checks found, one memory at a
// time, and lets the user keep, open to edit, or forget each; a project memory whose dates have
// all passed is offered for retirement. The findings are the core's.

import * as path from "node:path";
import * as vscode from "vscode";
import type { Finding } from "@memdir/core";
import type { Workspace } from "./memory";

export async function review(workspace: Workspace, refresh: () => void): Promise<void> {
  const report = workspace.check();
  const byMemory = new Map<string, Finding[]>();
  for (const f of report.findings) {
    if (f.path.endsWith("MEMORY.md") || f.path.endsWith(".bad")) continue;
    byMemory.set(f.path, [...(byMemory.get(f.path) ?? []), f]);
  }
  if (byMemory.size === 0) {
    vscode.window.showInformationMessage("memdir: nothing to review");
    return;
  }
  let n = 0;
  let forgotten = 0;
  for (const [memory, findings] of byMemory) {
    n += 1;
    const retire = findings.some((f) => f.kind === "past-dates");
    const actions = [
      { label: retire ? "$(archive) Retire (forget)" : "$(trash) Forget", action: "forget" },
      { label: "$(check) Keep", action: "keep" },
      { label: "$(edit) Open to edit", action: "edit" },
      { label: "$(close) Stop reviewing", action: "stop" },
    ];
    const pick = await vscode.window.showQuickPick(actions, {
      title: `Review ${n}/${byMemory.size}: ${memory}`,
      placeHolder: findings.map((f) => f.message).join(" · "),
      ignoreFocusOut: true,
    });
    if (!pick || pick.action === "stop") break;
    if (pick.action === "edit") {
      await vscode.window.showTextDocument(vscode.Uri.file(path.join(report.memoryDir, memory)));
    } else if (pick.action === "forget") {
      workspace.forget(memory);
      forgotten += 1;
      refresh();
    }
  }
  vscode.window.showInformationMessage(`memdir: reviewed ${n} of ${byMemory.size}; ${forgotten} forgotten`);
}
