// An embeddings model for recall (issue 27, item 2): the OpenAI-compatible
// `/v1/embeddings` that ollama, llama.cpp's server, LM Studio and vLLM serve. The host's side
// only: it moves texts out and vectors back; whether the vectors are usable is the core's to
// judge (`MemoryCore.recall` with `input.embeddings` set to `label`).

import type { Embed } from "./core";

/** Where the embeddings model is. */
export interface EmbeddingsEndpoint {
  /** The API's base, e.g. `http://127.0.0.1:11434/v1` (`/embeddings` is added). */
  baseUrl: string;
  /** The model's name on that server, e.g. `nomic-embed-text`. */
  model: string;
  /** Sent as a bearer token when set (local servers need none). */
  apiKey?: string;
  /** Per call; default 10 s (recall runs at prompt time). */
  timeoutMs?: number;
}

/** An embedder for `MemoryCore.recall`, and the label its vectors are cached under. */
export function openAiEmbeddings(endpoint: EmbeddingsEndpoint): { label: string; embed: Embed } {
  const url = `${endpoint.baseUrl.replace(/\/+$/, "")}/embeddings`;
  const embed: Embed = async (texts) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
    const response = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: endpoint.model, input: texts, encoding_format: "float" }),
      signal: AbortSignal.timeout(endpoint.timeoutMs ?? 10_000),
    });
    const body = await response.text();
    if (!response.ok) {
      let message = body.slice(0, 200);
      try {
        message = JSON.parse(body).error?.message ?? message;
      } catch {
        // not JSON: the start of the body says it
      }
      throw new Error(`the embeddings API answered ${response.status}: ${message}`);
    }
    return vectors(JSON.parse(body), texts.length);
  };
  // The same label the CLI caches under, so one cache serves both.
  return { label: `openai:${endpoint.model}@${url}`, embed };
}

/** The vectors of `{"data": [{"index", "embedding"}]}`, in `index` order. */
function vectors(reply: unknown, expected: number): number[][] {
  const data = (reply as { data?: unknown }).data;
  if (!Array.isArray(data)) throw new Error("the embeddings API's reply has no `data` list");
  if (data.length !== expected) throw new Error(`the embeddings API returned ${data.length} vectors for ${expected} texts`);
  const out: number[][] = new Array(expected);
  data.forEach((item: { index?: unknown; embedding?: unknown }, at) => {
    const index = typeof item.index === "number" ? item.index : at;
    const embedding = item.embedding;
    if (!Array.isArray(embedding) || !embedding.every((v) => typeof v === "number")) {
      throw new Error("an embedding holds something other than numbers");
    }
    if (!Number.isInteger(index) || !(index >= 0 && index < expected) || out[index] !== undefined) {
      throw new Error("the `index`es are not one per text");
    }
    out[index] = embedding;
  });
  return out;
}
