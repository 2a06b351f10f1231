/**
 * Reads a secret from stdin. At a terminal the prompt goes to stderr and typed characters are not
 * echoed; from a pipe (`echo $KEY | hermes auth add openrouter`) the first line is taken.
 */

/** Resolves the entered text ("" on Ctrl+C / Ctrl+D at a terminal, or an empty pipe). Never echoes. */
export function readSecret(prompt: string, stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (!stdin.isTTY) return readFirstLine(stdin);
  process.stderr.write(prompt);
  return new Promise((resolve) => {
    let text = "";
    const finish = (value: string) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return finish(text);
        if (ch === "\u0003" || ch === "\u0004") return finish("");
        if (ch === "\u007f" || ch === "\b") text = text.slice(0, -1);
        else if (ch >= " ") text += ch;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onData);
  });
}

function readFirstLine(stdin: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    stdin.setEncoding("utf8");
    stdin.on("data", (chunk: string) => {
      text += chunk;
    });
    stdin.on("end", () => resolve(text.split(/\r?\n/)[0] ?? ""));
    stdin.on("error", () => resolve(""));
  });
}
