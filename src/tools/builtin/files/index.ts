import type { HermesToolRegistry, ToolContext } from "../../context.js";
import type { ToolHandler } from "../../registry.js";
import { lazyHandler, toolError } from "../util.js";
import { handleReadFile, READ_FILE_SCHEMA } from "./read.js";
import { PATCH_SCHEMA, SEARCH_FILES_SCHEMA, WRITE_FILE_SCHEMA } from "./schemas.js";

// Writing (with its syntax check), patching (fuzzy matching, diff formats) and searching (ripgrep,
// the JS fallback) load with their first call; read_file, the common one, is here from the start.
const handleWriteFile = lazyHandler(async () => (await import("./write.js")).handleWriteFile);
const handlePatch = lazyHandler(async () => (await import("./patch.js")).handlePatch);
const handleSearchFiles = lazyHandler(async () => (await import("./search.js")).handleSearchFiles);

/** File-system failures (permissions, full disk) become errors the model can read, not crashes. */
function guarded(handler: ToolHandler<ToolContext>): ToolHandler<ToolContext> {
  return async (args, ctx) => {
    try {
      return await handler(args, ctx);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (typeof e?.code === "string") return toolError(`File system error: ${e.message}`);
      throw err;
    }
  };
}

/** Registers read_file, write_file, patch and search_files (toolset "file"). */
export function registerFileTools(registry: HermesToolRegistry): void {
  registry.register({
    name: "read_file",
    toolset: "file",
    schema: READ_FILE_SCHEMA,
    handler: guarded(handleReadFile),
    emoji: "📖",
    // The handler pages within file_read_max_chars; the registry cap must not cut its JSON.
    maxResultChars: 10_000_000,
    parallelSafe: true,
    pathScoped: true,
  });
  registry.register({
    name: "write_file",
    toolset: "file",
    schema: WRITE_FILE_SCHEMA,
    handler: guarded(handleWriteFile),
    emoji: "✍️",
    pathScoped: true,
  });
  registry.register({
    name: "patch",
    toolset: "file",
    schema: PATCH_SCHEMA,
    handler: guarded(handlePatch),
    emoji: "🔧",
    pathScoped: true,
  });
  registry.register({
    name: "search_files",
    toolset: "file",
    schema: SEARCH_FILES_SCHEMA,
    handler: guarded(handleSearchFiles),
    emoji: "🔎",
    parallelSafe: true,
  });
}
