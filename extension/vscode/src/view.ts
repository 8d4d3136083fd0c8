// The Memories view: memories grouped by type (and by private/team when team memory is on),
// each labelled with its name, described by its age, its description as tooltip; stale ones
// marked. A memory that links to others, or is linked to, opens onto its links (→) and
// backlinks (←), as the core resolved them (R1.7); a click opens the memory behind one. It
// refreshes when files in the memory directory change.

import * as vscode from "vscode";
import { type Memory, TYPES, type Workspace } from "./memory";

type Node =
  | { kind: "scope"; team: boolean }
  | { kind: "type"; type: string; team?: boolean }
  | { kind: "memory"; memory: Memory }
  | { kind: "link"; from: Memory; name: string; to?: Memory }
  | { kind: "backlink"; from: Memory; to: Memory };

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
  /** The last check's verdict on a memory's citations, by path (set by the extension). */
  verdictOf: (path: string) => string | undefined = () => undefined;

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
    if (node.kind === "memory") {
      const byPath = (p: string) => this.memories.find((m) => m.header.path === p);
      const { header } = node.memory;
      return [
        ...header.links.map((l): Node => ({ kind: "link", from: node.memory, name: l.name, to: l.path === undefined ? undefined : byPath(l.path) })),
        ...header.backlinks.flatMap((p): Node[] => {
          const from = byPath(p);
          return from ? [{ kind: "backlink", from, to: node.memory }] : [];
        }),
      ];
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
    if (node.kind === "link") return linkItem(node.name, node.to, node.from);
    if (node.kind === "backlink") return backlinkItem(node.from, node.to);
    const { header, file } = node.memory;
    // Freshness and staleness are the core's (R7.6, R1.6), as for every other host.
    const { stale, text: age } = header.freshness;
    const linked = header.links.length + header.backlinks.length > 0;
    const item = new vscode.TreeItem(
      header.name ?? header.path,
      linked ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    const missing = this.verdictOf(header.path) === "missing";
    item.description = [age, stale ? "may be stale" : "", missing ? "cites something missing" : ""].filter(Boolean).join(" · ");
    item.tooltip = new vscode.MarkdownString(
      `**${header.name ?? header.path}**\n\n${header.description ?? "(no description)"}\n\n\`${header.path}\`` +
        (stale ? "\n\n$(warning) Not updated for a long time: check it against the code before relying on it." : "") +
        (missing ? "\n\n$(warning) Something it cites is gone: see the Problems panel." : "") +
        (header.diagnostics.length ? `\n\n${header.diagnostics.map((d) => `- ${d}`).join("\n")}` : ""),
      true,
    );
    item.resourceUri = vscode.Uri.file(file);
    item.iconPath = new vscode.ThemeIcon(stale || missing ? "warning" : "note");
    item.contextValue = "memdir.memory";
    item.command = { command: "vscode.open", title: "Open Memory", arguments: [vscode.Uri.file(file)] };
    item.id = file;
    return item;
  }
}

/** `→ name`: opens the memory it reaches; a link to nothing is "not written yet", never an error. */
function linkItem(name: string, to: Memory | undefined, from: Memory): vscode.TreeItem {
  const item = new vscode.TreeItem(`→ ${name}`, vscode.TreeItemCollapsibleState.None);
  item.id = `${from.file}→${name}`;
  if (!to) {
    item.description = "not written yet";
    item.tooltip = `[[${name}]] names no memory yet: something worth writing later.`;
    item.iconPath = new vscode.ThemeIcon("circle-outline");
    return item;
  }
  item.description = to.header.path;
  item.iconPath = new vscode.ThemeIcon("arrow-right");
  item.command = { command: "vscode.open", title: "Open Memory", arguments: [vscode.Uri.file(to.file)] };
  return item;
}

/** `← name`: a memory that links here; opens it. */
function backlinkItem(from: Memory, to: Memory): vscode.TreeItem {
  const item = new vscode.TreeItem(`← ${from.header.name ?? from.header.path}`, vscode.TreeItemCollapsibleState.None);
  item.id = `${to.file}←${from.file}`;
  item.description = from.header.path;
  item.iconPath = new vscode.ThemeIcon("arrow-left");
  item.command = { command: "vscode.open", title: "Open Memory", arguments: [vscode.Uri.file(from.file)] };
  return item;
}
