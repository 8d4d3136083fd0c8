// The "Memory" commands of the palette, and the view's context menu.

import * as vscode from "vscode";
import { answerer, chosenModel, ask } from "./model";
import { decidedBy, type Memory, TYPES, type MemoryType, type Workspace } from "./memory";
import type { MemoriesView } from "./view";

/**
 * What memdir shows (the index as loaded, the status, a recall) opens as a read-only document
 * of the `memdir:` scheme: nothing to save, nothing asked on close (issue 16).
 */
export class MemdirDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  static readonly scheme = "memdir";
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.path) ?? "";
  }

  /** Shows `content` as `memdir:/<name>`, replacing what an earlier one showed. */
  async show(name: string, content: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: MemdirDocuments.scheme, path: `/${name}` });
    this.contents.set(uri.path, content);
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, "markdown");
    await vscode.window.showTextDocument(doc, { preview: false });
  }

  dispose(): void {
    this.changed.dispose();
  }
}

const documents = new MemdirDocuments();
const showDocument = (name: string, content: string) => documents.show(name, content);

export function registerCommands(workspace: Workspace, view: MemoriesView): vscode.Disposable[] {
  const recallSession = { json: "" };
  // VS Code passes a command's arguments untyped: the view's node for deleteMemory, nothing else.
  const command = <A extends unknown[]>(id: string, body: (...args: A) => unknown) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await body(...(args as A));
      } catch (e) {
        vscode.window.showErrorMessage(`memdir: ${(e as Error).message}`);
      }
    });

  return [
    documents,
    vscode.workspace.registerTextDocumentContentProvider(MemdirDocuments.scheme, documents),
    command("memdir.showIndex", async () => {
      const ws = await workspace.choose("Show Index");
      if (!ws) return;
      const index = ws.index();
      await showDocument("MEMORY.md (as loaded)", index.text || `MEMORY.md is empty or missing (${index.file}): nothing has been saved yet.`);
      if (index.warning) vscode.window.showWarningMessage(`memdir: ${index.warning}`);
    }),
    command("memdir.openFolder", async () => {
      const ws = await workspace.choose("Open Memory Folder");
      if (!ws) return;
      const dir = ws.location().memoryDir;
      await vscode.workspace.fs.createDirectory(vscode.Uri.file(dir));
      await vscode.commands.executeCommand("vscode.openFolder", vscode.Uri.file(dir), { forceNewWindow: true });
    }),
    command("memdir.recall", async () => {
      const ws = await workspace.choose("Recall For Query");
      if (!ws) return;
      const query = await vscode.window.showInputBox({ title: "Recall For Query", prompt: "What are you about to work on?" });
      if (!query) return;
      const result = await ws.recall(query, recallSession, await answerer());
      const parts = result.attachments.map((a) => a.text);
      if (result.skipped) parts.push(`Nothing recalled (${result.skipped}).`);
      else if (parts.length === 0) parts.push("No memory is relevant to this request (or the relevant ones were already shown).");
      parts.push(...result.diagnostics.map((d) => `> ${d}`));
      await showDocument("Recall.md", `# Recalled for: ${query}\n\n${parts.join("\n\n")}\n`);
    }),
    command("memdir.save", async () => {
      const ws = await workspace.choose("Save Memory");
      if (!ws) return;
      const type = await vscode.window.showQuickPick(
        TYPES.map((t) => ({ label: t, description: TYPE_HINTS[t] })),
        { title: "Save Memory: type" },
      );
      if (!type) return;
      const name = await vscode.window.showInputBox({ title: "Save Memory: name", prompt: "A short kebab-case name, e.g. release-freeze (other words are made one); an existing name updates that memory" });
      if (!name) return;
      const description = await vscode.window.showInputBox({
        title: "Save Memory: description",
        prompt: "One sentence saying when this memory is relevant",
      });
      if (!description) return;
      const needsWhy = type.label === "feedback" || type.label === "project";
      const body = await vscode.window.showInputBox({
        title: "Save Memory: text",
        prompt: needsWhy ? "The rule or fact. Then **Why:** … and **How to apply:** … (use \\n for new lines)" : "The memory (use \\n for new lines)",
      });
      if (!body) return;
      const report = ws.save({ type: type.label as MemoryType, name, description, body: body.replace(/\\n/g, "\n") });
      vscode.window.showInformationMessage(`memdir: ${report.summary.split("\n")[0]}`);
      view.refresh();
    }),
    command("memdir.dream", async () => {
      const model = await chosenModel();
      if (!model) throw new Error("a dream needs a model; memdir.model is \"offline\"");
      const ws = await workspace.choose("Run Dream");
      if (!ws) return;
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: "memdir: dreaming", cancellable: false },
        (progress) =>
          ws.dream(
            (r) => ask(model, r),
            (done, total) => progress.report({ message: `${done}/${total} chunks` }),
          ),
      );
      vscode.window.showInformationMessage(
        result.chunks === 0 ? "memdir: nothing new in the daily logs" : `memdir: dream read ${result.chunks} chunk(s), wrote ${result.written.join(", ") || "nothing"}`,
      );
      view.refresh();
    }),
    command("memdir.approveExternalImports", async () => {
      const choice = await vscode.window.showWarningMessage(
        "Let this project's CLAUDE.md files import files from outside it (like ~/… or ../…)? A cloned repository can name any file this way, and what it imports reaches the model.",
        { modal: true },
        "Approve",
      );
      if (choice !== "Approve") return;
      const ws = await workspace.choose("Approve Imports");
      if (!ws) return;
      const file = ws.approveExternalImports();
      vscode.window.showInformationMessage(`memdir: imports from outside this project are approved (${file}).`);
    }),
    command("memdir.status", async () => {
      const ws = await workspace.choose("Show Status");
      if (!ws) return;
      const status = ws.status();
      const { switches, location } = status;
      const on = (b: boolean) => (b ? "on" : "off");
      const lines = [
        "# memdir status",
        "",
        `- auto memory: **${on(switches.autoMemory)}** (decided by ${decidedBy(status)})`,
        ...pausedLine(ws),
        ...switches.memoryWrites.map((r) => `- ${r.memoryType} memories: writes **${r.mode}** (decided by ${r.decidedBy})`),
        `- instruction files: ${on(switches.instructions)}${switches.bare ? " (bare mode)" : ""}`,
        `- team memory: ${on(switches.teamMemory)}`,
        `- daily log: ${on(switches.dailyLog)}`,
        `- memory directory: \`${location.memoryDir}\`${location.memoryDirSetting ? ` (set by autoMemoryDirectory in \`${location.memoryDirSetting}\`)` : ""}`,
        `- project root: \`${location.projectRoot}\`${location.fromGit ? " (git)" : ""}`,
        ...learningLines(ws),
        ...switches.diagnostics.map((d) => `- warning: ${d}`),
        ...ws.instructionDiagnostics().map((d) => `- instructions: ${d}`),
      ];
      vscode.window.showInformationMessage(`memdir: auto memory ${on(switches.autoMemory)} (decided by ${decidedBy(status)})`);
      await showDocument("Status.md", lines.join("\n") + "\n");
    }),
    command("memdir.refresh", () => view.refresh()),
    command("memdir.deleteMemory", async (node?: { kind: string; memory?: Memory; ws?: Workspace }) => {
      const memory = node?.memory;
      if (!memory) return;
      const answer = await vscode.window.showWarningMessage(
        `Forget "${memory.header.name ?? memory.header.path}"? The file and its MEMORY.md line are deleted.`,
        { modal: true },
        "Forget",
      );
      if (answer !== "Forget") return;
      (node?.ws ?? workspace).forget(memory.header.path);
      view.refresh();
    }),
  ];
}

/** The status line of a pause in force (issue 28), if any. */
function pausedLine(ws: Workspace): string[] {
  const pause = ws.paused();
  if (!pause) return [];
  const until = pause.untilMs === undefined ? "until resumed" : `until ${new Date(Number(pause.untilMs)).toISOString()}`;
  return [`- automatic writes: **paused** ${until} (recall goes on; Memory: Resume Automatic Memory ends it)`];
}

const TYPE_HINTS: Record<MemoryType, string> = {
  user: "who you are: role, expertise, preferences",
  feedback: "how you want work done",
  project: "what the work is in the middle of",
  reference: "where things live outside the code",
};

/** What learning cost in the last week (issue 46), as `memdir status` shows it. */
function learningLines(ws: Workspace): string[] {
  const l = ws.learning();
  const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
  const models = l.models.length ? ` with ${l.models.join(", ")}` : "";
  const tokens = l.tokens === undefined ? "" : `, ${n(Number(l.tokens), "token")}`;
  const failed = l.failed ? `, ${l.failed} failed` : "";
  return [
    `- learning, last ${l.days} days: ${n(l.extractions, "turn")} learned from${models} (${n(l.calls, "model call")}${tokens}, ${n(l.written, "memory", "memories")} written${failed}); ${n(l.skipped, "turn")} skipped by the gate`,
  ];
}
