// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell text with parameter expansions
import { beforeAll, describe, expect, it } from "vitest";
import { splitCommands } from "../../src/tools/approval/commands.js";
import { detectCommand } from "../../src/tools/approval/detect.js";
import { loadShellGrammar } from "../../src/tools/approval/grammar.js";
import { decodeBase, decodeHex, printf, sed, tr, unescapes } from "../../src/tools/approval/text-codecs.js";

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

describe("static text transformations", () => {
  it("decodes escapes, printf formats and encodings as the shell tools do", () => {
    expect(unescapes("\\x72\\155\\u0020\\t", "ansi").text).toBe("rm \t");
    expect(unescapes("a\\0101\\cb", "echo")).toEqual({ text: "aA", stop: true });
    expect(printf("%s-%s\\n", ["a", "b", "c"])).toBe("a-b\nc-\n");
    expect(printf("%b|%5s|%-3d|%x|%c", ["\\x41", "ab", "7", "255", "zed"])).toBe("A|   ab|7  |ff|z");
    expect(printf("%n", [])).toBeUndefined();
    expect(decodeBase("cm0g\nLXJm", 64)).toBe("rm -rf");
    expect(decodeBase("OJWSALLSMYQC6===", 32)).toBe("rm -rf /");
    expect(decodeBase("not base64!", 64)).toBeUndefined();
    expect(decodeHex("726d 202f", true)).toBe("rm /");
    expect(decodeHex("00000000: 726d 202f  rm /", false)).toBe("rm /");
  });

  it("runs tr and sed only where the result is certain", () => {
    expect(tr("ez -es /", ["a-z", "n-za-m"])).toBe("rm -rf /");
    expect(tr("hello", ["[:lower:]", "[:upper:]"])).toBe("HELLO");
    expect(tr("r-m", ["-d", "-"])).toBe("rm");
    expect(tr("rrm", ["-s", "r"])).toBe("rm");
    expect(tr("x", ["-c", "a", "b"])).toBeUndefined();
    expect(sed("rX -rf /", ["s/X/m/"])).toBe("rm -rf /");
    expect(sed("a.b.c", ["-e", "s|\\.|/|g", "-e", "y/abc/xyz/"])).toBe("x/y/z");
    expect(sed("aaa", ["-E", "s/(a+)+$/b/"])).toBeUndefined();
    expect(sed("x", ["-n", "p"])).toBeUndefined();
  });
});

describe("command splitting with the bash grammar", () => {
  beforeAll(async () => {
    expect(await loadShellGrammar()).toBe(true);
  });
  const texts = (s: string): string[] => splitCommands(s).map((c) => c.text);

  it("splits, unquotes and strips wrappers as the splitter does", () => {
    expect(
      texts("cd /x && 'r'\"m\" -rf a || echo $(whoami) ; (ls | wc -l) &\nsudo -u root env A=1 nohup \\rm b"),
    ).toEqual(["cd /x", "rm -rf a", "echo ⟨subst⟩", "whoami", "ls", "wc -l", "rm b"]);
    const [c] = splitCommands("sudo -E timeout 5 nice -n 10 stdbuf -oL xargs -0 -n 1 rm -f");
    expect(c!.wrappers).toEqual(["sudo", "timeout", "nice", "stdbuf", "xargs"]);
    const [h] = splitCommands("cat >>log.txt 2>&1 <<'EOF'\nline one\nEOF");
    expect(h!.redirects).toEqual([{ op: ">>", target: "log.txt" }]);
    expect(h!.stdin).toEqual(["line one"]);
    expect(texts("bash -lc 'rm -rf x; ls'")).toContain("rm -rf x");
    expect(texts("cat <<EOF\nreboot\nEOF")).not.toContain("reboot");
  });

  it("expands what bash would expand before running the command", () => {
    expect(texts("echo${IFS}a${IFS%?}b")).toEqual(["echo a b"]);
    expect(texts("$'\\x65cho' {x,y}z r{m,}")).toEqual(["echo xz yz rm r"]);
    expect(texts("a=ec; b=ho; $a$b hi")).toContain("echo hi");
    expect(texts("x=abcd; echo ${x#a} ${x%d} ${x/b/B} ${x:1:2} ${x^^} ${#x}")).toContain(
      "echo bcd abc aBcd bc ABCD 4",
    );
    expect(texts('arr=(one two); set -- p q; echo "${arr[1]}" "$@" $#')).toContain("echo two p q 2");
    expect(texts("read -r a b <<< 'x y z'; printf -v c %s-%s 1 2; echo $a $b $c")).toContain(
      "echo x y z 1-2",
    );
    expect(texts("echo $(printf '%s' r m) `echo hi`")).toContain("echo rm hi");
  });

  it("keeps every possible value of a variable set in a branch or a loop", () => {
    expect(texts("a=ls; if x; then a=pwd; fi; $a")).toEqual(expect.arrayContaining(["ls", "pwd"]));
    expect(texts("for c in id whoami; do $c; done")).toEqual(expect.arrayContaining(["id", "whoami"]));
    expect(texts('f() { echo "$2"; }; f a b')).toContain("echo b");
    expect(texts("alias ll='ls -la'; ll /tmp")).toContain("ls -la /tmp");
  });

  it("shows what it cannot know instead of guessing", () => {
    expect(texts("$(cat cmd) -x")).toContain("⟨subst⟩ -x");
    expect(texts("$CMD -x ${HOME}/a ${X/a/b}")).toContain("$CMD -x $HOME/a ⟨subst⟩");
    expect(texts("echo '$HOME'")).toContain("echo $HOME");
  });

  it("screens text a shell or interpreter runs: pipes, here-strings, process substitution, eval", () => {
    const [, sh] = splitCommands("printf 'id\\nwhoami' | sh");
    expect(sh!.stdin).toEqual(["id\nwhoami"]);
    expect(texts("printf 'id\\nwhoami' | sh")).toEqual(expect.arrayContaining(["id", "whoami"]));
    expect(texts("bash <<< $(echo aWQ= | base64 -d)")).toContain("id");
    expect(texts("source <(echo uptime)")).toContain("uptime");
    expect(texts("eval \"$(echo 'emit(){ uname -a; }')\"; emit")).toContain("uname -a");
    expect(texts("python3 <<EOF\nprint(1)\nEOF")).toContain("python3 -c print(1)");
    expect(texts("trap 'uptime' EXIT")).toContain("uptime");
  });

  it("reads past the grammar's recovery from syntax errors", () => {
    expect(texts("echo a; {ls,-la}")).toContain("ls -la");
    expect(texts("cat <<EOF; uptime\nx\nEOF")).toContain("uptime");
  });

  it("never throws and always finishes, whatever the input", () => {
    const nasty = [
      "'unclosed",
      '"unclosed $(',
      "$(((",
      "`",
      "<<",
      "a |",
      "&&",
      "\\",
      "$(".repeat(300),
      "{a,b}".repeat(30),
      "for a in 1 2; do ".repeat(20),
      "f() { f; f; f; }; f",
      "x=1; ".repeat(5000),
      "echo ${x#*a*a*a*a*a*a*a*b}",
      "eval eval eval eval eval eval eval eval ls",
      "echo $(echo $(echo $(echo $(echo $(echo $(echo $(echo ls)))))))",
    ];
    for (const s of nasty) expect(() => detectCommand(s)).not.toThrow();
  });
});
