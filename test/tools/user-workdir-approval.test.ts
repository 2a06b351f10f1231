import { describe, expect, it } from "vitest";
import { type DetectOptions, detectCommand } from "../../src/tools/approval/detect.js";
import {
  HERMES_HOME,
  HERMES_WRITES,
  HOME,
  OWN_FOLDER_WRITES,
  PROJECT,
  RELATIVE_PROTECTED_WRITES,
  USER_WORKDIR,
} from "../fixtures/user-workdir-commands.js";

/**
 * A chat user's working folder is in HERMES_HOME: their commands work there like anywhere else,
 * while the approval gate keeps refusing every other change in HERMES_HOME (config.yaml, the
 * users' memory, other users' folders). Paths are judged where they lead from the folder the
 * command runs in.
 */

const IN_WORKDIR: DetectOptions = {
  cwd: USER_WORKDIR,
  home: HOME,
  hermesHome: HERMES_HOME,
  ownFolder: USER_WORKDIR,
};
const IN_PROJECT: DetectOptions = { cwd: PROJECT, home: HOME, hermesHome: HERMES_HOME };

describe("the approval gate in a chat user's working folder", () => {
  it.each(OWN_FOLDER_WRITES)("lets the user work in their folder: %s", (command) => {
    expect(detectCommand(command, IN_WORKDIR).hardline).toEqual([]);
  });

  it.each(HERMES_WRITES)("refuses changes to Hermes's files and other users' folders: %s", (command) => {
    expect(detectCommand(command, IN_WORKDIR).hardline.map((m) => m.key)).toContain("hermes_files");
  });

  it("protects the folder of a user who is not the one running the command", () => {
    const owner: DetectOptions = { ...IN_WORKDIR, ownFolder: undefined };
    expect(detectCommand("echo x > notes.md", owner).hardline.map((m) => m.key)).toContain("hermes_files");
    const other: DetectOptions = { ...IN_WORKDIR, ownFolder: `${HERMES_HOME}/users/telegram/43/work` };
    expect(detectCommand("echo x > notes.md", other).hardline.map((m) => m.key)).toContain("hermes_files");
  });
});

describe("relative paths, judged from the folder the command runs in", () => {
  it.each(RELATIVE_PROTECTED_WRITES)("are stopped where they lead: %s", (command) => {
    expect(detectCommand(command, IN_PROJECT).hardline).not.toEqual([]);
  });

  it("are judged from the starting folder too: a `cd` may run in a subshell", () => {
    // From the user's folder, `../up.txt` is beside their memory unless the `cd` moved the shell.
    expect(detectCommand("(cd sub) && echo x > ../up.txt", IN_WORKDIR).hardline).not.toEqual([]);
    expect(detectCommand("cd sub && echo x > ../up.txt", IN_WORKDIR).hardline).not.toEqual([]);
  });

  it("leave ordinary work in the project alone", () => {
    for (const command of [
      "echo x > ../notes.txt",
      "cd .. && cd project2 && echo x > out.txt",
      "cd .. && ls",
    ])
      expect(detectCommand(command, IN_PROJECT).hardline).toEqual([]);
  });
});
