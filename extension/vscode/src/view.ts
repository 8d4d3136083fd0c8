// The Memories view: memories grouped by type (and by private/team when team memory is on),
// each labelled with its name, described by its age, its description as tooltip; stale ones
// marked. It refreshes when files in the memory directory change.

import * as vscode from "vscode";
import { type Memory, TYPES, type Workspace } from "./memory";

type Node = { kind: "scope"; team: boolean } | { kind: "type"; type: string; team?: boolean } | { kind: "memory"; memory: Memory };

const TYPE_LABELS: Record<string, string> = {
  user: "User",
  feedback: "Feedback",
  project: "Project",
  reference: "Reference",
  untyped: "Without a type",
};

export class MemoriesView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private watcher: vscode.FileSystemWatcher | undefined;
  private memories: Memory[] = [];
  private team = false;

  constructor(
    private readonly workspace: Workspace,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.watch();
  }

  /** Watches the memory directory (it may live outside the workspace). */
  private watch() {
    this.watcher?.dispose();
    try {
      const dir = this.workspace.location().memoryDir;
      this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), "**/*.md"));
      const refresh = () => this.refresh();
      this.watcher.onDidCreate(refresh);
      this.watcher.onDidChange(refresh);
      this.watcher.onDidDelete(refresh);
    } catch (e) {
      this.log.error(`memdir: cannot watch the memory directory: ${(e as Error).message}`);
    }
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  dispose(): void {
    this.watcher?.dispose();
    this.changed.dispose();
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      try {
        this.memories = this.workspace.memories();
        this.team = this.workspace.status().switches.teamMemory;
      } catch (e) {
        this.log.error(`memdir: ${(e as Error).message}`);
        this.memories = [];
      }
      if (this.team) return [{ kind: "scope", team: false }, { kind: "scope", team: true }];
      return this.typesIn(this.memories);
    }
    if (node.kind === "scope") {
      return this.typesIn(this.memories.filter((m) => m.team === node.team), node.team);
    }
    if (node.kind === "type") {
      return this.memories
        .filter((m) => (m.header.memoryType ?? "untyped") === node.type && (node.team === undefined || m.team === node.team))
        .map((memory) => ({ kind: "memory", memory }));
    }
    return [];
  }

  private typesIn(memories: Memory[], team?: boolean): Node[] {
    const present = new Set<string>(memories.map((m) => m.header.memoryType ?? "untyped"));
    return [...TYPES, "untyped"].filter((t) => present.has(t)).map((type) => ({ kind: "type", type, team }));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === "scope") {
      const item = new vscode.TreeItem(node.team ? "Team" : "Private", vscode.TreeItemCollapsibleState.Expanded);
      item.iconPath = new vscode.ThemeIcon(node.team ? "organization" : "person");
      return item;
    }
    if (node.kind === "type") {
      const count = this.getChildren(node).length;
      const item = new vscode.TreeItem(TYPE_LABELS[node.type], vscode.TreeItemCollapsibleState.Expanded);
      item.description = String(count);
      item.contextValue = "memdir.type";
      return item;
    }
    const { header, file } = node.memory;
    // Freshness and staleness are the core's (R7.6, R1.6), as for every other host.
    const { stale, text: age } = header.freshness;
    const item = new vscode.TreeItem(header.name ?? header.path, vscode.TreeItemCollapsibleState.None);
    item.description = stale ? `${age} · may be stale` : age;
    item.tooltip = new vscode.MarkdownString(
      `**${header.name ?? header.path}**\n\n${header.description ?? "(no description)"}\n\n\`${header.path}\`` +
        (stale ? "\n\n$(warning) Not updated for a long time: check it against the code before relying on it." : "") +
        (header.diagnostics.length ? `\n\n${header.diagnostics.map((d) => `- ${d}`).join("\n")}` : ""),
      true,
    );
    item.resourceUri = vscode.Uri.file(file);
    item.iconPath = new vscode.ThemeIcon(stale ? "warning" : "note");
    item.contextValue = "memdir.memory";
    item.command = { command: "vscode.open", title: "Open Memory", arguments: [vscode.Uri.file(file)] };
    item.id = file;
    return item;
  }
}
