// The Memories view: memories grouped by type (and by private/team when team memory is on),
// each labelled with its name, described by its age, its description as tooltip; stale ones
// marked. A memory that links to others, or is linked to, opens onto its links (→) and
// backlinks (←), as the core resolved them (R1.7); a click opens the memory behind one. It
// refreshes when files in the memory directory change.

import * as vscode from "vscode";
import { type Memory, TYPES, type Workspace } from "./memory";

// Every node knows the folder (`ws`) whose memory it shows: a multi-root workspace shows one
// group per folder, each with its own memory.
type Node =
  | { kind: "folder"; ws: Workspace; name: string }
  | { kind: "scope"; ws: Workspace; team: boolean }
  | { kind: "type"; ws: Workspace; type: string; team?: boolean }
  | { kind: "memory"; ws: Workspace; memory: Memory }
  | { kind: "link"; ws: Workspace; from: Memory; name: string; to?: Memory }
  | { kind: "backlink"; ws: Workspace; from: Memory; to: Memory };

/** What one folder's memory holds, as last read. */
interface Loaded {
  memories: Memory[];
  team: boolean;
}

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
  private watchers: vscode.FileSystemWatcher[] = [];
  private readonly loaded = new Map<string, Loaded>();
  /** The last check's verdict on a memory's citations, by path (set by the extension). */
  verdictOf: (path: string) => string | undefined = () => undefined;

  constructor(
    private readonly workspace: Workspace,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.watch();
  }

  /** Watches each folder's memory directory (it may live outside the workspace). */
  private watch() {
    this.watchers.forEach((w) => w.dispose());
    this.watchers = [];
    for (const { workspace } of this.workspace.folders()) {
      try {
        const dir = workspace.location().memoryDir;
        const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), "**/*.md"));
        const refresh = () => this.refresh();
        watcher.onDidCreate(refresh);
        watcher.onDidChange(refresh);
        watcher.onDidDelete(refresh);
        this.watchers.push(watcher);
      } catch (e) {
        this.log.error(`memdir: cannot watch the memory directory: ${(e as Error).message}`);
      }
    }
  }

  /** The folders changed: watch their memory. */
  foldersChanged(): void {
    this.watch();
    this.refresh();
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  dispose(): void {
    this.watchers.forEach((w) => w.dispose());
    this.changed.dispose();
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      const folders = this.workspace.folders();
      if (folders.length > 1) return folders.map(({ name, workspace }) => ({ kind: "folder", ws: workspace, name }));
      return this.rootOf(folders[0].workspace);
    }
    if (node.kind === "folder") return this.rootOf(node.ws);
    const { memories } = this.loadedOf(node.ws);
    if (node.kind === "scope") {
      return this.typesIn(node.ws, memories.filter((m) => m.team === node.team), node.team);
    }
    if (node.kind === "type") {
      return memories
        .filter((m) => (m.header.memoryType ?? "untyped") === node.type && (node.team === undefined || m.team === node.team))
        .map((memory) => ({ kind: "memory", ws: node.ws, memory }));
    }
    if (node.kind === "memory") {
      const byPath = (p: string) => memories.find((m) => m.header.path === p);
      const { header } = node.memory;
      return [
        ...header.links.map((l): Node => ({ kind: "link", ws: node.ws, from: node.memory, name: l.name, to: l.path === undefined ? undefined : byPath(l.path) })),
        ...header.backlinks.flatMap((p): Node[] => {
          const from = byPath(p);
          return from ? [{ kind: "backlink", ws: node.ws, from, to: node.memory }] : [];
        }),
      ];
    }
    return [];
  }

  /** A folder's top level: private and team, or the types. Reads its memory afresh. */
  private rootOf(ws: Workspace): Node[] {
    let loaded: Loaded;
    try {
      loaded = { memories: ws.memories(), team: ws.status().switches.teamMemory };
    } catch (e) {
      this.log.error(`memdir: ${(e as Error).message}`);
      loaded = { memories: [], team: false };
    }
    this.loaded.set(ws.cwd(), loaded);
    if (loaded.team) return [{ kind: "scope", ws, team: false }, { kind: "scope", ws, team: true }];
    return this.typesIn(ws, loaded.memories);
  }

  private loadedOf(ws: Workspace): Loaded {
    return this.loaded.get(ws.cwd()) ?? { memories: [], team: false };
  }

  private typesIn(ws: Workspace, memories: Memory[], team?: boolean): Node[] {
    const present = new Set<string>(memories.map((m) => m.header.memoryType ?? "untyped"));
    return [...TYPES, "untyped"].filter((t) => present.has(t)).map((type) => ({ kind: "type", ws, type, team }));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === "folder") {
      const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.Expanded);
      item.iconPath = new vscode.ThemeIcon("root-folder");
      item.description = safeDir(node.ws);
      item.id = `folder:${node.ws.cwd()}`;
      return item;
    }
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
    if (node.kind === "link") return linkItem(node.ws, node.name, node.to, node.from);
    if (node.kind === "backlink") return backlinkItem(node.ws, node.from, node.to);
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
    // Two folders of one repository share a memory: the folder keeps the ids apart.
    item.id = `${node.ws.cwd()}|${file}`;
    return item;
  }
}

/** Where a folder's memory lives, for the folder's description. */
function safeDir(ws: Workspace): string {
  try {
    return ws.location().memoryDir;
  } catch {
    return "";
  }
}

/** `→ name`: opens the memory it reaches; a link to nothing is "not written yet", never an error. */
function linkItem(ws: Workspace, name: string, to: Memory | undefined, from: Memory): vscode.TreeItem {
  const item = new vscode.TreeItem(`→ ${name}`, vscode.TreeItemCollapsibleState.None);
  item.id = `${ws.cwd()}|${from.file}→${name}`;
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
function backlinkItem(ws: Workspace, from: Memory, to: Memory): vscode.TreeItem {
  const item = new vscode.TreeItem(`← ${from.header.name ?? from.header.path}`, vscode.TreeItemCollapsibleState.None);
  item.id = `${ws.cwd()}|${to.file}←${from.file}`;
  item.description = from.header.path;
  item.iconPath = new vscode.ThemeIcon("arrow-left");
  item.command = { command: "vscode.open", title: "Open Memory", arguments: [vscode.Uri.file(from.file)] };
  return item;
}
