// Writes the language-model tools of package.json from the core's tool catalog, so that an
// agent in VS Code sees the same tool names, descriptions and argument schemas as one on the
// MCP server. What only VS Code shows (icons, the names people type after #) is kept here.
//
//   node scripts/tools.mjs           rewrite package.json
//   node scripts/tools.mjs --check   fail when package.json is out of step with the catalog
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { MemoryCore } from "@memdir/core";

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const manifest = path.join(here, "package.json");

/** The tools the extension offers (src/tools.ts runs them), with what VS Code shows people. */
const OFFERED = {
  memory_recall: {
    toolReferenceName: "recall",
    canBeReferencedInPrompt: true,
    icon: "$(book)",
    userDescription: "Recall the project's memories relevant to a request",
  },
  memory_save: {
    toolReferenceName: "remember",
    canBeReferencedInPrompt: true,
    icon: "$(save)",
    userDescription: "Save a memory for future conversations",
  },
  memory_forget: {
    toolReferenceName: "forget",
    icon: "$(trash)",
    userDescription: "Delete a memory and its index line",
  },
  memory_index: {
    toolReferenceName: "memoryIndex",
    canBeReferencedInPrompt: true,
    icon: "$(list-unordered)",
    userDescription: "Show MEMORY.md as it is loaded",
  },
};

const catalog = new MemoryCore().toolCatalog();
const tools = Object.entries(OFFERED).map(([name, shown]) => {
  const tool = catalog.find((t) => t.name === name);
  if (!tool) throw new Error(`the core's catalog has no tool ${name}`);
  const { toolReferenceName, ...rest } = shown;
  return {
    name,
    toolReferenceName,
    displayName: tool.title,
    ...rest,
    modelDescription: tool.description,
    inputSchema: JSON.parse(tool.inputSchema),
  };
});

const text = fs.readFileSync(manifest, "utf8");
const pkg = JSON.parse(text);
pkg.contributes.languageModelTools = tools;
const written = `${JSON.stringify(pkg, null, 2)}\n`;
if (process.argv.includes("--check")) {
  if (written !== text) {
    console.error("package.json's languageModelTools differ from the core's tool catalog: run node scripts/tools.mjs");
    process.exit(1);
  }
} else {
  fs.writeFileSync(manifest, written);
}
