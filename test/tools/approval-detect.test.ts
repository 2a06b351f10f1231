import { describe, expect, it } from "vitest";
import { splitCommands } from "../../src/tools/approval/commands.js";
import { detectCommand } from "../../src/tools/approval/detect.js";

const keys = (command: string, opts = {}): string[] => {
  const d = detectCommand(command, opts);
  return [...d.hardline, ...d.dangerous].map((m) => m.key);
};

describe("command splitting", () => {
  it("splits on operators, newlines, subshells and substitutions, removing quotes and escapes", () => {
    const texts = splitCommands(
      "cd /x && 'r'\"m\" -rf a || echo $(whoami) ; (ls | wc -l) &\nsudo -u root env A=1 nohup \\rm b",
    ).map((c) => c.text);
    expect(texts).toEqual(["cd /x", "rm -rf a", "echo ⟨subst⟩", "whoami", "ls", "wc -l", "rm b"]);
  });

  it("strips wrappers and remembers them", () => {
    const [c] = splitCommands("sudo -E timeout 5 nice -n 10 stdbuf -oL xargs -0 -n 1 rm -f");
    expect(c!.name).toBe("rm");
    expect(c!.wrappers).toEqual(["sudo", "timeout", "nice", "stdbuf", "xargs"]);
  });

  it("separates redirections, including fd forms, and reads heredocs", () => {
    const [c] = splitCommands("cat >>log.txt 2>&1 <<'EOF'\nline one\nEOF");
    expect(c!.redirects).toEqual([{ op: ">>", target: "log.txt" }]);
    expect(c!.stdin).toEqual(["line one"]);
  });

  it("parses scripts given to bash -c, sh -c, eval and heredocs fed to a shell", () => {
    const names = (s: string) => splitCommands(s).map((c) => c.text);
    expect(names("bash -lc 'rm -rf x; ls'")).toContain("rm -rf x");
    expect(names("eval 'crontab -r'")).toContain("crontab -r");
    expect(names("sh <<EOF\nreboot\nEOF")).toContain("reboot");
    expect(names("cat <<EOF\nreboot\nEOF")).not.toContain("reboot");
  });

  it("never throws on malformed input", () => {
    for (const s of ["'unclosed", '"unclosed $(', "$(((", "`", "<<", "a |", "&&", "\\"]) {
      expect(() => detectCommand(s)).not.toThrow();
    }
  });
});

describe("detection details", () => {
  it("does not flag dangerous text that is only data", () => {
    for (const s of [
      'echo "rm -rf /"',
      "git commit -m 'rm -rf / was a bad idea'",
      "grep -rn 'DROP TABLE' migrations/",
      "# rm -rf /",
      "printf '%s\\n' 'mkfs.ext4 /dev/sda'",
      "man shutdown",
    ]) {
      expect(keys(s), s).toEqual([]);
    }
  });

  it("sees through obfuscation", () => {
    for (const s of [
      "r''m -rf /",
      '"rm" -rf "/"',
      "\\rm -rf /",
      "/bin/rm -rf /",
      "rm -rf / # cleanup",
      "busybox rm -rf /",
    ]) {
      expect(keys(s), s).toContain("rm_root");
    }
  });

  it("judges paths against the working directory and home", () => {
    const opts = { cwd: "/home/me/proj", home: "/home/me" };
    expect(keys("rm -rf /home/me/proj/node_modules", opts)).toEqual([]);
    expect(keys("rm -rf $PWD/dist", opts)).toEqual([]);
    expect(keys("rm -rf /home/me/proj/src", opts)).toEqual(["recursive_delete"]);
    expect(keys("rm -rf /home/me", opts)).toContain("rm_home");
    expect(keys("rm /home/me/.ssh/id_rsa", opts)).toContain("rm_home_config");
    // A working directory inside a system folder keeps system rules for relative paths.
    expect(keys("rm hosts", { cwd: "/etc", home: "/home/me" })).toContain("rm_system_path");
  });

  it("lists what a command modifies for the destructive-command note", () => {
    expect(
      detectCommand("sed -i 's/a/b/' f && cp a b > /dev/null && echo x > out && echo y >> log").modifies,
    ).toEqual(["sed -i", "cp", "> out"]);
    expect(detectCommand("git checkout main").modifies).toEqual(["git checkout"]);
    expect(detectCommand("ls -la 2>/dev/null").modifies).toEqual([]);
  });

  it("checks SQL per statement and across pipelines", () => {
    expect(keys('psql -c "UPDATE t SET a=1 WHERE id=2; UPDATE t SET b=2"')).toEqual(["sql_update_all"]);
    expect(keys("cat <<SQL | mysql db\nDELETE FROM sessions;\nSQL")).toEqual(["sql_delete_all"]);
    expect(keys('echo "DROP TABLE x"')).toEqual([]);
  });
});
