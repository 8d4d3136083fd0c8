// The loader and the confined filesystem, for any Node host of the memory core.
export * from "./core";
export { ConfinedFs } from "./hostfs";
export { CoreExited, wasiImports } from "./wasi";
export { runGitAsync, runGitSync } from "./git";
export { Lock } from "./lock";
export { openAiEmbeddings, type EmbeddingsEndpoint } from "./embeddings";
