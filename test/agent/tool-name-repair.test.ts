import { describe, expect, it } from "vitest";
import { nameVariants, nearMiss, repairToolName } from "../../src/agent/tool-name-repair.js";

const OFFERED = [
  "terminal",
  "process",
  "read_file",
  "write_file",
  "patch",
  "search_files",
  "todo",
  "skills_list",
  "skill_view",
  "browser_click",
  "execute_code",
];

describe("repairToolName", () => {
  it.each([
    // near misses
    ["terminall", "terminal"],
    ["termnal", "terminal"],
    ["read_fiel", "read_file"],
    ["raed_file", "read_file"],
    ["skill_list", "skills_list"],
    ["pach", "patch"],
    ["tod", "todo"],
    // class-style spellings
    ["PatchTool", "patch"],
    ["ReadFile_tool", "read_file"],
    ["write-file_Tool", "write_file"],
    ["ReadFileTool", "read_file"],
    ["Terminal", "terminal"],
    ["search-files", "search_files"],
    ["TodoTool_tool", "todo"],
    ["Tool_Patch", "patch"],
    ["BrowserClick", "browser_click"],
    ["write file", "write_file"],
    ["EXECUTE_CODE", "execute_code"],
    // quoting and markup
    ['"terminal"', "terminal"],
    ["'terminal'", "terminal"],
    ["`terminal`", "terminal"],
    ['terminal" parameter="command"', "terminal"],
    ["terminal' parameter='command' string='true", "terminal"],
    ["<terminal>", "terminal"],
    ["</terminal>", "terminal"],
    ["<terminal parameter=command>", "terminal"],
    ["terminal()", "terminal"],
    ["functions.terminal", "terminal"],
    ["default_api.read_file", "read_file"],
    ["terminal:0", "terminal"],
    ["functions.terminal:3", "terminal"],
    [" terminal\n", "terminal"],
    // combinations and repeats
    ['ReadFileTool" parameter="path"', "read_file"],
    ["functions.terminall", "terminal"],
    ["skills_listskills_list", "skills_list"],
    ["PatchPatch", "patch"],
  ])("%s → %s", (raw, tool) => {
    expect(repairToolName(raw, OFFERED)).toBe(tool);
  });

  it.each([
    ["", "nothing to read"],
    ["_tool", "only the decoration"],
    ["tool", "only the decoration"],
    ["teleport", "no tool is close"],
    ["ThisIsNotRemotelyARealToolName_tool", "no tool is close"],
    ['no_such_tool" parameter="x"', "junk around an unknown name"],
    ["functions.", "an empty namespace"],
    ["readfile_writefile", "two tools run together"],
    ["terminalterminal_x", "not a clean repeat"],
  ])("%s → nothing (%s)", (raw) => {
    expect(repairToolName(raw, OFFERED)).toBeUndefined();
  });

  it("only ever answers with an offered tool", () => {
    expect(repairToolName("ReadFileTool", ["terminal"])).toBeUndefined();
    expect(repairToolName("terminall", [])).toBeUndefined();
    expect(repairToolName("Terminal", ["process"])).toBeUndefined();
  });

  it("leaves a near miss alone when two offered tools are that close", () => {
    // kb_aet is one edit from both; either guess could run the wrong operation.
    expect(repairToolName("kb_aet", ["kb_get", "kb_set", "kb_add"])).toBeUndefined();
    expect(repairToolName("rea_file", ["read_file", "head_file"])).toBeUndefined();
    expect(repairToolName("tod", ["todo", "toda"])).toBeUndefined();
    // ...and repairs it once only one of them is offered.
    expect(repairToolName("kb_aet", ["kb_get", "kb_add"])).toBe("kb_get");
    expect(repairToolName("rea_file", ["read_file", "terminal"])).toBe("read_file");
  });

  it("allows two edits for long names and one for short ones", () => {
    expect(repairToolName("terminxyl", ["terminal"])).toBe("terminal");
    expect(repairToolName("termxyzl", ["terminal"])).toBeUndefined();
    expect(repairToolName("pxtch", ["patch"])).toBe("patch");
    expect(repairToolName("pxtyh", ["patch"])).toBeUndefined();
    // Short on either side means short: "patchxy" is two edits from "patch" but "patch" has 5 letters.
    expect(repairToolName("patchxy", ["patch"])).toBeUndefined();
  });

  it("prefers an exact reading over a typo of another tool", () => {
    // "Patch_tool" reads as "patch" and is also one edit from "patch_too": the reading wins.
    expect(repairToolName("Patch_tool", ["patch", "patch_too"])).toBe("patch");
  });
});

describe("nameVariants", () => {
  it("lists the literal reading first and drops duplicates", () => {
    expect(nameVariants("terminal")).toEqual(["terminal"]);
    expect(nameVariants("ReadFile_tool")).toEqual(["ReadFile_tool", "read_file_tool", "read_file"]);
    expect(nameVariants('functions.terminal:0"')).toEqual([
      "functions.terminal",
      "functions_terminal",
      "terminal",
    ]);
  });
});

describe("nearMiss", () => {
  it("counts a swap of neighbouring letters as one edit", () => {
    expect(nearMiss(["tood"], ["todo"])).toBe("todo");
    expect(nearMiss(["otdo"], ["todo"])).toBe("todo");
  });

  it("ignores case and separators when measuring", () => {
    expect(nearMiss(["Read-Fiel"], ["read_file"])).toBe("read_file");
  });
});
