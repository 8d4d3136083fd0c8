// What `check` finds (issue 14), where VS Code users look for problems: each finding is a
// diagnostic on its memory file (on its line for MEMORY.md), in the Problems panel. A dangling or
// duplicate index line offers the safe repair as a quick fix. The checks run when the
// extension starts, when a memory file changes (debounced), and on "Memory: Check Memories".

import * as path from "node:path";
import * as vscode from "vscode";
import type { CheckReport, Finding } from "@memdir/core";
import type { Workspace } from "./memory";

const SOURCE = "memdir";
/** Findings the index repair removes. */
const FIXABLE = new Set(["dangling-index-line", "duplicate-index-line", "not-in-index", "missing-index"]);

export class MemoryDiagnostics implements vscode.Disposable, vscode.CodeActionProvider {
  private readonly collection = vscode.languages.createDiagnosticCollection(SOURCE);
  private readonly changed = new vscode.EventEmitter<CheckReport>();
  /** Fires after each check, with its report (the Memories view marks memories from it). */
  readonly onDidCheck = this.changed.event;
  private timer: NodeJS.Timeout | undefined;
  last: CheckReport | undefined;

  constructor(
    private readonly workspace: Workspace,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Runs the checks now and shows what they found. */
  run(): CheckReport | undefined {
    let report: CheckReport;
    try {
      report = this.workspace.check();
    } catch (e) {
      this.log.error(`memdir: check failed: ${(e as Error).message}`);
      return undefined;
    }
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const finding of report.findings) {
      const file = path.join(report.memoryDir, finding.path);
      const list = byFile.get(file) ?? [];
      list.push(diagnostic(finding));
      byFile.set(file, list);
    }
    this.collection.clear();
    for (const [file, list] of byFile) this.collection.set(vscode.Uri.file(file), list);
    this.last = report;
    this.changed.fire(report);
    return report;
  }

  /** Runs the checks a moment after the last of a burst of changes. */
  schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), 500);
  }

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const fixable = context.diagnostics.filter((d) => d.source === SOURCE && FIXABLE.has(String(d.code)));
    if (fixable.length === 0) return [];
    const action = new vscode.CodeAction("Repair MEMORY.md (memdir check --fix)", vscode.CodeActionKind.QuickFix);
    action.diagnostics = fixable;
    action.isPreferred = true;
    action.command = { command: "memdir.fixIndex", title: "Repair MEMORY.md", arguments: [document.uri] };
    return [action];
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.collection.dispose();
    this.changed.dispose();
  }
}

function diagnostic(finding: Finding): vscode.Diagnostic {
  const line = finding.line === undefined ? 0 : Math.max(0, finding.line - 1);
  const severity =
    finding.severity === "error"
      ? vscode.DiagnosticSeverity.Error
      : finding.severity === "warning"
        ? vscode.DiagnosticSeverity.Warning
        : vscode.DiagnosticSeverity.Information;
  const d = new vscode.Diagnostic(new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER), finding.message, severity);
  d.source = SOURCE;
  d.code = finding.kind;
  return d;
}
