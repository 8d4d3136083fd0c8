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
    const retire = findings.some((f) => f.kind === "past-dates" || f.kind === "unused");
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

/** The proposals as the user reviews them: a dream's run as one unit, every other one alone. */
function units(proposals: Proposal[]): Proposal[][] {
  const out: Proposal[][] = [];
  for (const p of proposals) {
    const unit = p.batch === undefined ? undefined : out.find((u) => u[0].batch === p.batch);
    if (unit) unit.push(p);
    else out.push([p]);
  }
  return out;
}

/** Walks the waiting proposals, a dream's as one change (whole, or one by one); false when the user stopped. */
async function reviewProposals(workspace: Workspace, proposals: Proposal[], refresh: () => void): Promise<boolean> {
  const tally = { accepted: 0, rejected: 0 };
  const done = (went: boolean) => {
    vscode.window.showInformationMessage(`memdir: proposals: ${tally.accepted} accepted, ${tally.rejected} rejected`);
    return went;
  };
  const decide = (id: string, accept: boolean) => {
    try {
      if (accept) tally.accepted += workspace.accept(id).length;
      else tally.rejected += workspace.reject(id).length;
    } catch (e) {
      vscode.window.showErrorMessage(`memdir: ${(e as Error).message}`);
    }
    refresh();
  };
  const all = units(proposals);
  let n = 0;
  for (const unit of all) {
    n += 1;
    const batch = unit[0].batch;
    if (batch !== undefined) {
      const pick = await vscode.window.showQuickPick(
        [
          { label: "$(check-all) Accept all", action: "accept" },
          { label: "$(close-all) Reject all", action: "reject", detail: "None of them will be proposed again." },
          { label: "$(list-ordered) One by one", action: "each" },
          { label: "$(debug-step-over) Later", action: "later" },
          { label: "$(debug-stop) Stop reviewing", action: "stop" },
        ],
        { title: `Proposal ${n}/${all.length}: ${unit[0].batchSummary ?? batch}`, placeHolder: unit.map((p) => `${p.op} ${p.path}`).join(" · "), ignoreFocusOut: true },
      );
      if (!pick || pick.action === "stop") return done(false);
      if (pick.action === "accept" || pick.action === "reject") decide(batch, pick.action === "accept");
      if (pick.action !== "each") continue;
    }
    for (const p of unit) {
      const what = p.op === "delete" ? `delete ${p.path}` : `${p.op} ${p.path}: ${p.description ?? ""}`;
      const pick = await vscode.window.showQuickPick(
        [
          { label: "$(check) Accept", action: "accept", detail: p.body ?? p.current ?? undefined },
          { label: "$(edit) Accept and open to edit", action: "edit" },
          { label: "$(close) Reject", action: "reject", detail: "It will not be proposed again." },
          { label: "$(debug-step-over) Later", action: "later" },
          { label: "$(debug-stop) Stop reviewing", action: "stop" },
        ],
        { title: `Proposal ${n}/${all.length} from ${p.source}: ${what}`, placeHolder: p.current ? `replaces: ${p.current.slice(0, 200)}` : "a new memory", ignoreFocusOut: true },
      );
      if (!pick || pick.action === "stop") return done(false);
      if (pick.action === "accept" || pick.action === "edit") {
        decide(p.id, true);
        if (pick.action === "edit" && p.op !== "delete") {
          await vscode.window.showTextDocument(vscode.Uri.file(path.join(workspace.location().memoryDir, p.path)));
        }
      } else if (pick.action === "reject") {
        decide(p.id, false);
      }
    }
  }
  return done(true);
}
