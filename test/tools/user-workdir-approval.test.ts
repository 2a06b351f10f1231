import { describe, expect, it } from "vitest";
import { type DetectOptions, detectCommand } from "../../src/tools/approval/detect.js";
import {
  HERMES_HOME,
  HERMES_WRITES,
  HOME,
  OWN_FOLDER_WRITES,
  USER_WORKDIR,
} from "../fixtures/user-workdir-commands.js";

/**
 * A chat user's working folder sits beside HERMES_HOME, not in it: their commands work there like
 * anywhere else, while the approval gate keeps refusing every change in HERMES_HOME, where the
 * users' memory lives.
 */

const IN_WORKDIR: DetectOptions = { cwd: USER_WORKDIR, home: HOME, hermesHome: HERMES_HOME };

describe("the approval gate in a chat user's working folder", () => {
  it.each(OWN_FOLDER_WRITES)("lets the user work in their folder: %s", (command) => {
    expect(detectCommand(command, IN_WORKDIR).hardline).toEqual([]);
  });

  it.each(HERMES_WRITES)("refuses changes to Hermes's files and the users' memory: %s", (command) => {
    expect(detectCommand(command, IN_WORKDIR).hardline.length).toBeGreaterThan(0);
  });
});
