// Test only: a deterministic chat model, registered with the stable
// `registerLanguageModelChatProvider`, so memdir's model path runs for real in the end-to-end
// test. Every request is appended to $MEMDIR_E2E_LOG (one JSON line each) for the test to read.
//
// It answers the three kinds of request memdir makes by their reply schema: recall selection
// (picks the memories whose description shares a word with the request), extraction (reads
// nothing, then saves one user memory when the user said "I am ..."), a dream (folds "prefers X
// over Y" from the logs into a memory), and anything else with
// a fixed answer that quotes the memory it was given about testing.
const vscode = require("vscode");
const fs = require("node:fs");

const words = (text) => new Set((text.toLowerCase().match(/[a-z]{5,}/g) ?? []));

function reply(prompt) {
  if (prompt.includes('"selected_memories"')) {
    const query = words(/Request: (.*)/.exec(prompt)?.[1] ?? "");
    const picked = [...prompt.matchAll(/^- (?:\[\w+\] )?(\S+) \([^)]*\): (.*)$/gm)]
      .filter(([, , description]) => [...words(description)].some((w) => query.has(w)))
      .map(([, path]) => path);
    return JSON.stringify({ selected_memories: picked.slice(0, 5) });
  }
  if (prompt.includes('"read"') && prompt.includes('"required":["read"]')) return JSON.stringify({ read: [] });
  if (prompt.includes('"operations"') && prompt.includes("Log entries:")) {
    const tools = /prefers (\w+) over (\w+)/.exec(prompt);
    if (!tools) return JSON.stringify({ operations: [] });
    return JSON.stringify({
      operations: [
        {
          op: "create",
          path: "user_tooling.md",
          type: "user",
          name: "Package manager",
          description: "Which package manager the user prefers",
          body: `The user prefers ${tools[1]} over ${tools[2]}.`,
        },
      ],
    });
  }
  if (prompt.includes('"operations"')) {
    const role = /\bI am an? ([^.\n]+)/i.exec(prompt);
    if (!role) return JSON.stringify({ operations: [] });
    return JSON.stringify({
      operations: [
        {
          op: "create",
          path: "user_role.md",
          type: "user",
          name: "The user's role",
          description: "Who the user is and what they work on",
          body: `The user is a ${role[1].trim()}.`,
        },
      ],
    });
  }
  const testing = /Integration tests must run against a real Postgres/.test(prompt);
  return testing
    ? "Run the integration tests against the real Postgres database (your memory says mocks hid a broken migration)."
    : "I have no memory about that.";
}

function textOf(message) {
  return message.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : "")).join("");
}

/** What an agent does: finds memdir's tools among vscode.lm.tools and invokes them. */
async function invokeTools() {
  const names = vscode.lm.tools.map((t) => t.name);
  const call = async (name, input) => {
    if (!names.includes(name)) return `${name} is not registered (tools: ${names.join(", ")})`;
    const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
    return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : "")).join("");
  };
  const tools = {
    index: await call("memory_index", {}),
    recall: await call("memory_recall", { query: "which grafana dashboard shows api-latency for on-call" }),
  };
  fs.appendFileSync(process.env.MEMDIR_E2E_LOG, JSON.stringify({ prompt: "", answer: "", tools }) + "\n");
}

exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand("memdirTest.invokeTools", invokeTools));
  const info = {
    id: "memdir-test-model",
    name: "memdir test model",
    family: "memdir-test",
    version: "1",
    maxInputTokens: 200000,
    maxOutputTokens: 8000,
    // The chat lists only tool-calling models in its default (agent) mode.
    capabilities: { toolCalling: true },
  };
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider("memdir-test", {
      provideLanguageModelChatInformation: () => [info],
      async provideLanguageModelChatResponse(model, messages, options, progress) {
        const prompt = messages.map(textOf).join("\n\n");
        const answer = reply(prompt);
        if (process.env.MEMDIR_E2E_LOG) {
          fs.appendFileSync(process.env.MEMDIR_E2E_LOG, JSON.stringify({ prompt, answer }) + "\n");
        }
        progress.report(new vscode.LanguageModelTextPart(answer));
      },
      provideTokenCount: async (model, text) => Math.ceil((typeof text === "string" ? text : textOf(text)).length / 4),
    }),
  );
};
