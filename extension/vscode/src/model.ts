// The core's model requests (R0.3) answered through `vscode.lm`. The `memdir.model` setting
// picks the model ("vendor/family", or just a family); "offline" means recall ranks memories
// lexically and nothing that needs a model runs.

import * as vscode from "vscode";
import type { ModelRequest } from "@memdir/core";

/** Why no model answered, in words for the user. */
export class NoModel extends Error {}

/** The model the setting names, or undefined for "offline". Throws NoModel when none fits. */
export async function chosenModel(): Promise<vscode.LanguageModelChat | undefined> {
  const setting = (vscode.workspace.getConfiguration("memdir").get<string>("model") ?? "").trim();
  if (setting === "offline") return undefined;
  const [vendor, family] = setting.includes("/") ? setting.split("/", 2) : [undefined, setting || undefined];
  const selector: vscode.LanguageModelChatSelector = {};
  if (vendor) selector.vendor = vendor;
  if (family) selector.family = family;
  const models = await vscode.lm.selectChatModels(selector);
  if (models.length === 0) {
    throw new NoModel(
      setting
        ? `No language model matches memdir.model "${setting}". Install or sign in to a model provider, or set memdir.model to "offline".`
        : "No language model is available. Install or sign in to a model provider, or set memdir.model to \"offline\".",
    );
  }
  return models[0];
}

/** Sends one core request to `model` and returns the reply text. */
export async function ask(
  model: vscode.LanguageModelChat,
  request: ModelRequest,
  token: vscode.CancellationToken = new vscode.CancellationTokenSource().token,
): Promise<string> {
  // vscode.lm has no system role: the instructions go first, as the user's own framing.
  const messages = [
    vscode.LanguageModelChatMessage.User(request.system),
    vscode.LanguageModelChatMessage.User(`${request.user}\n\nReply with JSON matching this schema:\n${request.schema}`),
  ];
  try {
    const response = await model.sendRequest(messages, { justification: "memdir asks the model which memories matter and what to remember." }, token);
    let text = "";
    for await (const part of response.text) text += part;
    return text;
  } catch (e) {
    throw new NoModel(explain(model, e));
  }
}

/** A message for a failed request: consent refused, blocked, gone, or the model's own error. */
export function explain(model: vscode.LanguageModelChat, e: unknown): string {
  if (e instanceof vscode.LanguageModelError) {
    switch (e.code) {
      case vscode.LanguageModelError.NoPermissions.name:
        return `memdir may not use ${model.name} yet: allow it when VS Code asks, or set memdir.model to "offline".`;
      case vscode.LanguageModelError.Blocked.name:
        return `${model.name} refused memdir's request (blocked or rate limited); try again later.`;
      case vscode.LanguageModelError.NotFound.name:
        return `${model.name} is no longer available; pick another with memdir.model.`;
    }
  }
  return `${model.name} failed: ${(e as Error)?.message ?? String(e)}`;
}

let warnedNoModel = false;

/**
 * The answerer for recall's requests, or undefined for the offline selector: when memdir.model
 * is "offline", and when no model is available (said once, so the user knows why).
 */
export async function answerer(token?: vscode.CancellationToken) {
  try {
    const model = await chosenModel();
    return model ? (request: ModelRequest) => ask(model, request, token) : undefined;
  } catch (e) {
    if (!(e instanceof NoModel)) throw e;
    if (!warnedNoModel) {
      warnedNoModel = true;
      vscode.window.showWarningMessage(`memdir: ${e.message} Until then, recall ranks memories without a model.`);
    }
    return undefined;
  }
}
