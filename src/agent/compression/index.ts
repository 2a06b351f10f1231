export { assemble } from "./assemble.js";
export {
  alignBackward,
  alignForward,
  findBoundaries,
  headEnd,
  lastUserIndex,
  tailStart,
} from "./boundaries.js";
export {
  type CompressionSettings,
  type CompressionStats,
  type CompressOptions,
  type CompressorOptions,
  type CompressResult,
  ContextCompressor,
  type ContextEngine,
  DEFAULT_COMPRESSION,
  isSummaryMessage,
  type Summarise,
  type SummariseResult,
} from "./compressor.js";
export {
  estimateMessagesTokens,
  estimateMessageTokens,
  estimateTextTokens,
  estimateToolsTokens,
  TokenEstimator,
} from "./estimate.js";
export { overheadWarning, toolsetCosts } from "./overhead.js";
export { pruneMessages, shrinkToolArgs, summariseToolResult } from "./prune.js";
export { sanitizeToolPairs, toolPairsValid } from "./sanitize.js";
export { SUMMARY_END_MARKER, SUMMARY_PREFIX, summaryBudget } from "./summary.js";
