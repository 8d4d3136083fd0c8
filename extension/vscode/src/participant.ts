// The @memory chat participant: the seeds' loop inside VS Code's chat. The prompt is the
// instructions, the memory guidance and MEMORY.md; the memories recalled for the request are
// attached and shown as references; the answer streams from the request's model; afterwards,
// when the core's gate finds the user taught something, extraction looks at the turn and saves
// what is worth keeping (skipped when the turn already saved). /remember, /forget and /dream do
// what they say.

import * as path from "node:path";
import * as vscode from "vscode";
import type { ModelRequest } from "@memdir/core";
import { ask } from "./model";
import type { Workspace } from "./memory";

export function registerParticipant(workspace: Workspace, log: vscode.LogOutputChannel): vscode.Disposable {
  // One recall session per conversation: a request with no history starts a new one.
  const session = { json: "" };

  const handler: vscode.ChatRequestHandler = async (request, context, stream, token) => {
    const model = request.model;
    const asker = (r: ModelRequest) => ask(model, r, token);
    const offline = vscode.workspace.getConfiguration("memdir").get<string>("model") === "offline";
    try {
      if (request.command === "remember") return await remember(request.prompt);
      if (request.command === "forget") return forget(request.prompt);
      if (request.command === "dream") return await dream();
      return await answer();
    } catch (e) {
      // NoModel says what to do (consent, no model); anything else is the core's or the model's.
      const message = (e as Error).message;
      log.error(`memdir: ${message}`);
      stream.markdown(`\n\n**memdir:** ${message}`);
      return { errorDetails: { message } };
    }

    async function answer(): Promise<vscode.ChatResult> {
      if (context.history.length === 0) session.json = "";
      stream.progress("Recalling memories…");
      const recalled = await workspace.recall(request.prompt, session, offline ? undefined : asker, { givenTo: "vscode:@memory" });
      const memoryDir = workspace.location().memoryDir;
      for (const a of recalled.attachments) stream.reference(vscode.Uri.file(path.resolve(memoryDir, a.path)));
      for (const d of recalled.diagnostics) log.warn(d);
      const system = [workspace.prompt(), ...recalled.attachments.map((a) => a.text)].join("\n\n");
      const messages = [vscode.LanguageModelChatMessage.User(system)];
      for (const turn of context.history) {
        if (turn instanceof vscode.ChatRequestTurn) messages.push(vscode.LanguageModelChatMessage.User(turn.prompt));
        if (turn instanceof vscode.ChatResponseTurn) {
          const said = turn.response.map((p) => (p instanceof vscode.ChatResponseMarkdownPart ? p.value.value : "")).join("");
          if (said) messages.push(vscode.LanguageModelChatMessage.Assistant(said));
        }
      }
      messages.push(vscode.LanguageModelChatMessage.User(request.prompt));
      const response = await model.sendRequest(messages, {}, token);
      let said = "";
      for await (const fragment of response.text) {
        said += fragment;
        stream.markdown(fragment);
      }
      if (!offline && vscode.workspace.getConfiguration("memdir").get<boolean>("extraction", true)) {
        // No progress message here: the chat would fold the answer into the steps above it.
        const extracted = await workspace.extract(
          [
            { role: "user", text: request.prompt },
            { role: "assistant", text: said },
          ],
          asker,
          { client: "vscode", model: `vscode-lm:${model.vendor}/${model.family}` },
        );
        report(extracted.written, extracted.diagnostics);
      }
      return { metadata: { recalled: recalled.selected } };
    }

    async function remember(text: string): Promise<vscode.ChatResult> {
      if (!text.trim()) {
        stream.markdown("Tell me what to remember, e.g. `/remember I prefer small pull requests`.");
        return {};
      }
      stream.progress("Remembering…");
      const extracted = await workspace.extract([{ role: "user", text: `Remember this: ${text}` }], asker);
      if (extracted.written.length === 0) {
        stream.markdown(
          `Nothing was saved${extracted.skipped ? ` (${extracted.skipped})` : ""}.` +
            (extracted.diagnostics.length ? `\n\n${extracted.diagnostics.map((d) => `- ${d}`).join("\n")}` : ""),
        );
      }
      report(extracted.written, extracted.diagnostics);
      return {};
    }

    function forget(what: string): vscode.ChatResult {
      const wanted = what.trim().toLowerCase();
      const matches = workspace
        .memories()
        .filter((m) => wanted && (m.header.path.toLowerCase() === wanted || (m.header.name ?? "").toLowerCase().includes(wanted) || m.header.path.toLowerCase().includes(wanted)));
      if (matches.length !== 1) {
        stream.markdown(
          matches.length === 0
            ? `No memory matches "${what}". \`/forget\` takes a memory's file name or part of its name.`
            : `Several memories match "${what}"; say which:\n\n${matches.map((m) => `- \`${m.header.path}\` — ${m.header.name ?? ""}`).join("\n")}`,
        );
        return {};
      }
      const report = workspace.forget(matches[0].header.path);
      stream.markdown(`Forgot \`${report.path}\` (${report.indexLinesRemoved} MEMORY.md line(s) removed).`);
      return {};
    }

    async function dream(): Promise<vscode.ChatResult> {
      const result = await workspace.dream(asker, (done, total) => stream.progress(`Dreaming: ${done}/${total} chunks`));
      stream.markdown(result.chunks === 0 ? "Nothing new in the daily logs." : `Read ${result.chunks} chunk(s) of the daily logs.`);
      report(result.written, result.diagnostics);
      return {};
    }

    function report(written: string[], diagnostics: string[]) {
      for (const d of diagnostics) log.warn(d);
      if (written.length === 0) return;
      const dir = workspace.location().memoryDir;
      stream.markdown(`\n\n**Remembered:** ${written.map((p) => `\`${p}\``).join(", ")}`);
      for (const p of written) stream.reference(vscode.Uri.file(`${dir}/${p}`));
    }
  };

  const participant = vscode.chat.createChatParticipant("memdir.memory", handler);
  participant.iconPath = new vscode.ThemeIcon("book");
  return participant;
}
