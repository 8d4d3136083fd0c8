// "Memory: Review Memories": first the proposals waiting under `memoryWrites: review` (issue 28):
// accept, accept and open to edit, or reject each, after seeing what it would change. Then what
// the checks found (issue 14, item 6), one memory at a time: keep, open to edit, or forget each;
// a project memory whose dates have all passed is offered for retirement. The queue and the
// findings are the core's.

import * as path from "node:path";
import * as vscode from "vscode";
import type { Finding, Proposal } from "@memdir/core";
import type { Workspace } from "./memory";

export async function review(workspace: Workspace, refresh: () => void): Promise<void> {
  const proposals = workspace.pending();
  if (proposals.length > 0 && !(await reviewProposals(workspace, proposals, refresh))) return;
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

/** Walks the waiting proposals; false when the user stopped. */
async function reviewProposals(workspace: Workspace, proposals: Proposal[], refresh: () => void): Promise<boolean> {
  let accepted = 0;
  let rejected = 0;
  let n = 0;
  for (const p of proposals) {
    n += 1;
    const what = p.op === "delete" ? `delete ${p.path}` : `${p.op} ${p.path}: ${p.description ?? ""}`;
    const pick = await vscode.window.showQuickPick(
      [
        { label: "$(check) Accept", action: "accept", detail: p.body ?? p.current ?? undefined },
        { label: "$(edit) Accept and open to edit", action: "edit" },
        { label: "$(close) Reject", action: "reject", detail: "It will not be proposed again." },
        { label: "$(debug-step-over) Later", action: "later" },
        { label: "$(debug-stop) Stop reviewing", action: "stop" },
      ],
      { title: `Proposal ${n}/${proposals.length} from ${p.source}: ${what}`, placeHolder: p.current ? `replaces: ${p.current.slice(0, 200)}` : "a new memory", ignoreFocusOut: true },
    );
    if (!pick || pick.action === "stop") {
      vscode.window.showInformationMessage(`memdir: proposals: ${accepted} accepted, ${rejected} rejected`);
      return false;
    }
    try {
      if (pick.action === "accept" || pick.action === "edit") {
        workspace.accept(p.id);
        accepted += 1;
        if (pick.action === "edit" && p.op !== "delete") {
          await vscode.window.showTextDocument(vscode.Uri.file(path.join(workspace.location().memoryDir, p.path)));
        }
      } else if (pick.action === "reject") {
        workspace.reject(p.id);
        rejected += 1;
      }
    } catch (e) {
      vscode.window.showErrorMessage(`memdir: ${(e as Error).message}`);
    }
    refresh();
  }
  vscode.window.showInformationMessage(`memdir: proposals: ${accepted} accepted, ${rejected} rejected`);
  return true;
}
