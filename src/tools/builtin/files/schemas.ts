/**
 * The schemas of write_file, patch and search_files, apart from their code: registering the file
 * tools costs these objects, and each tool's implementation loads with its first call.
 */

export const WRITE_FILE_SCHEMA = {
  description: "Create or overwrite a file (parent directories too). To edit a file prefer patch.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string" },
      content: { type: "string" },
    },
    required: ["path", "content"],
  },
};

export const PATCH_SCHEMA = {
  description:
    "Edit files; returns the diff. mode=replace: old_string → new_string in path, one match unless " +
    "replace_all (whitespace differences tolerated). mode=patch: a unified diff or '*** Begin Patch' " +
    "block, may touch several files.",
  parameters: {
    type: "object",
    properties: {
      mode: { type: "string", enum: ["replace", "patch"] },
      path: { type: "string" },
      old_string: { type: "string" },
      new_string: { type: "string" },
      replace_all: { type: "boolean" },
      patch: { type: "string" },
    },
  },
};

export const SEARCH_FILES_SCHEMA = {
  description:
    "Search file contents by regex (target=content) or find files by name glob (target=files, newest " +
    "first; instead of ls/find). Respects .gitignore.",
  parameters: {
    type: "object",
    properties: {
      pattern: { type: "string" },
      target: { type: "string", enum: ["content", "files"] },
      path: { type: "string" },
      file_glob: { type: "string" },
      limit: { type: "integer" },
      offset: { type: "integer" },
      output_mode: { type: "string", enum: ["content", "files_with_matches", "count"] },
      context: { type: "integer" },
    },
    required: ["pattern"],
  },
};
