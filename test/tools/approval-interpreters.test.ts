import { describe, expect, it } from "vitest";
import { splitCommands } from "../../src/tools/approval/commands.js";
import { type DetectOptions, detectCommand } from "../../src/tools/approval/detect.js";
import { interpreterScripts } from "../../src/tools/approval/interpreters.js";

const ME: DetectOptions = { cwd: "/home/me/proj", home: "/home/me", hermesHome: "/home/me/.hermes" };

const hardline = (command: string): string[] => detectCommand(command).hardline.map((m) => m.key);
const dangerous = (command: string): string[] => detectCommand(command).dangerous.map((m) => m.key);
const flagged = (command: string, opts: DetectOptions = {}): string[] => {
  const d = detectCommand(command, opts);
  return [...d.hardline, ...d.dangerous, ...d.warnings].map((m) => m.key);
};

describe("interpreter code", () => {
  it("screens the shell commands a program runs", () => {
    const cases: [string, string][] = [
      ["python3 -c \"import os; os.system('rm -rf /')\"", "rm_root"],
      ['python3 -c \'import subprocess; subprocess.run(["rm", "-rf", "/etc"])\'', "rm_system_dir"],
      ["python3 -c 'import subprocess as sp; sp.call(\"reboot\", shell=True)'", "power_off"],
      ["python3 -c 'from os import system as s; s(\"halt\")'", "power_off"],
      ["python3 -c \"import os; os.popen('kill -9 -1')\"", "kill_every_process"],
      ["python3 -c \"import pty; pty.spawn(['/bin/sh', '-c', 'sudo -S id'])\"", "sudo_password"],
      ["python3 - <<'PY'\nimport os\nos.system('rm -rf ~')\nPY", "rm_home"],
      [
        "python3 <<EOF\nimport subprocess\nsubprocess.check_output('shutdown -h now', shell=True)\nEOF",
        "power_off",
      ],
      ["python3 -c \"c = 'rm -rf /usr'; import os; os.system(c)\"", "rm_system_dir"],
      ["python3 -c \"import os; p = '/boot'; os.system(f'rm -rf {p}')\"", "rm_system_dir"],
      ["python3 -c \"import os; os.system('rm -rf %s' % '/var')\"", "rm_system_dir"],
      ["python3 -c \"import os; os.system(' '.join(['rm', '-rf', '/']))\"", "rm_root"],
      ["python3 -c \"import os, base64; os.system(base64.b64decode('cm0gLXJmIC8=').decode())\"", "rm_root"],
      ['python3 -c "exec(\'import os; os.system(\\"reboot\\")\')"', "power_off"],
      ["node -e \"require('child_process').execSync('rm -rf /')\"", "rm_root"],
      [
        'node --eval \'const cp = require("child_process"); cp.spawnSync("rm", ["-rf", "/home"])\'',
        "rm_system_dir",
      ],
      ['node -p \'require("child_process").execSync("reboot")\'', "power_off"],
      [
        "node <<'JS'\nconst { execSync } = require('child_process');\nexecSync('kill -9 -1');\nJS",
        "kill_every_process",
      ],
      ["bun -e 'await Bun.$`rm -rf /usr`'", "rm_system_dir"],
      ["perl -e 'system(\"rm -rf /\")'", "rm_root"],
      ['perl -e \'system "rm", "-rf", "/etc"\'', "rm_system_dir"],
      ["perl -e '`reboot`'", "power_off"],
      ["perl -e 'qx{kill -9 -1}'", "kill_every_process"],
      ["ruby -e 'system(\"rm -rf /\")'", "rm_root"],
      ["ruby -e '`halt`'", "power_off"],
      ["ruby -e '%x(rm -rf ~)'", "rm_home"],
      ['ruby -e \'Kernel.system("sudo", "-S", "id")\'', "sudo_password"],
      ["php -r 'system(\"rm -rf /\");'", "rm_root"],
      ["php -r 'echo `reboot`;'", "power_off"],
      ["sudo python3 -c 'import os; os.system(\"rm -rf /\")'", "rm_root"],
      ['bash -c "python3 -c \'import os; os.system(\\"reboot\\")\'"', "power_off"],
    ];
    for (const [c, key] of cases) expect(hardline(c), c).toContain(key);
  });

  it("screens file operations as the shell command that does the same", () => {
    const cases: [string, string][] = [
      ["python3 -c \"import shutil; shutil.rmtree('/')\"", "rm_root"],
      ["python3 -c \"import shutil; shutil.rmtree('/etc')\"", "rm_system_dir"],
      ["python3 -c \"open('/home/me/.hermes/config.yaml', 'w').write('approvals: off')\"", "hermes_files"],
      ["python3 -c \"import os; open(os.path.expanduser('~/.bashrc'), 'a').write('x')\"", "login_files"],
      [
        "python3 -c \"from pathlib import Path; (Path.home() / '.ssh' / 'authorized_keys').write_text('k')\"",
        "login_files",
      ],
      [
        "python3 -c \"import os; os.remove(os.path.join(os.environ['HOME'], '.hermes', 'auth.json'))\"",
        "hermes_files",
      ],
      [
        "python3 -c \"import shutil, os; shutil.copy('/tmp/e', os.path.expanduser('~/.hermes/config.yaml'))\"",
        "hermes_files",
      ],
      ["python3 -c \"import os; os.symlink('/tmp/e', os.path.expanduser('~/.profile'))\"", "login_files"],
      ["node -e \"require('fs').rmSync('/', {recursive: true, force: true})\"", "rm_root"],
      [
        "node -e \"require('fs').writeFileSync(require('os').homedir() + '/.hermes/config.yaml', 'x')\"",
        "hermes_files",
      ],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a JavaScript template literal
      ['node -e \'require("fs").appendFileSync(`${process.env.HOME}/.bashrc`, "x")\'', "login_files"],
      ["deno eval 'Deno.removeSync(\"/etc\", { recursive: true })'", "rm_system_dir"],
      ['perl -e \'open(my $f, ">>", "$ENV{HOME}/.bashrc"); print $f "x"\'', "login_files"],
      ["perl -e 'unlink \"$ENV{HOME}/.hermes/config.yaml\"'", "hermes_files"],
      ["perl -MFile::Path -e 'rmtree(\"/usr\")'", "rm_system_dir"],
      ['ruby -e \'require "fileutils"; FileUtils.rm_rf("/etc")\'', "rm_system_dir"],
      ['ruby -e \'File.write(File.join(Dir.home, ".hermes", "config.yaml"), "x")\'', "hermes_files"],
      ['php -r \'file_put_contents(getenv("HOME") . "/.bashrc", "x", FILE_APPEND);\'', "login_files"],
      ["php -r 'unlink(\"/home/me/.hermes/.env\");'", "hermes_files"],
    ];
    for (const [c, key] of cases) expect(hardline(c), c).toContain(key);
    expect(
      dangerous("python3 -c \"import urllib.request as u; u.urlopen('http://169.254.169.254/latest/')\""),
    ).toContain("cloud_metadata");
  });

  it("leaves ordinary programs alone", () => {
    for (const c of [
      "python3 -c \"print('hello')\"",
      "python3 -c \"import os; print(os.listdir('.'))\"",
      "python3 -c \"import subprocess; print(subprocess.run(['git', 'status'], capture_output=True).stdout)\"",
      "python3 -c \"open('out.txt', 'w').write('x')\"",
      "python3 -c \"print(open('/home/me/.hermes/config.yaml').read())\"",
      "python3 -c \"import shutil; shutil.rmtree('build')\"",
      "python3 -c \"s = 'a b'; print(s.replace('a', '/etc/passwd'))\"",
      'python3 -c "import asyncio; asyncio.run(main())"',
      "python3 - <<EOF\nprint(sum(range(10)))\nEOF",
      "python3 script.py",
      "python3 -m http.server",
      "node -e \"console.log(require('fs').readFileSync(process.env.HOME + '/.bashrc', 'utf8'))\"",
      "node -e \"process.stdout.write('rm -rf /')\"",
      "node -e \"const re = /x/; re.exec('rm -rf /')\"",
      "node server.js",
      "perl -ne 'print if /rm -rf/' file.txt",
      "perl -pi -e 's/foo/bar/' src/app.js",
      "ruby -e 'puts \"hi\"'",
      "php -r 'echo \"hi\";'",
    ]) {
      expect(flagged(c, ME), c).toEqual([]);
    }
  });

  it("finds the program text however the interpreter is given it", () => {
    const scripts = (c: string) => splitCommands(c).flatMap(interpreterScripts);
    expect(scripts("python3 -Bc 'import os; os.system(\"ls\")'")).toEqual(["ls"]);
    expect(scripts("python3 -W ignore -c 'import os; os.system(\"ls\")'")).toEqual(["ls"]);
    expect(scripts("perl -Mstrict -lne 'system(\"ls\")'")).toEqual(["ls"]);
    expect(scripts("ruby -rjson -e 'system(\"ls\")'")).toEqual(["ls"]);
    expect(scripts('node --eval=\'require("child_process").execSync("ls")\'')).toEqual(["ls"]);
    expect(scripts("php -d display_errors=1 -r 'system(\"ls\");'")).toEqual(["ls"]);
    expect(scripts("python3 script.py <<< 'import os'")).toEqual([]);
  });
});
