/**
 * Speech synthesis backends behind one interface: OpenAI's audio API, and espeak-ng on this machine
 * when it is installed (offline, no key).
 */
import { spawn } from "node:child_process";
import { findExecutable } from "../../environments/shell-state.js";
import { hasKey, httpFailure, type MediaEnv } from "./cache-file.js";

export interface SpeechAudio {
  data: Buffer;
  ext: string;
}

export interface SpeechBackend {
  name: "openai" | "espeak";
  synthesize(text: string, signal?: AbortSignal): Promise<SpeechAudio>;
}

export interface TtsSettings {
  provider: string;
  voice: string;
  openai_base_url: string;
}

function openaiSpeech(key: string, settings: TtsSettings): SpeechBackend {
  const base = (settings.openai_base_url || "https://api.openai.com/v1").replace(/\/+$/, "");
  return {
    name: "openai",
    async synthesize(text, signal) {
      const res = await fetch(`${base}/audio/speech`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "gpt-4o-mini-tts",
          voice: settings.voice || "alloy",
          input: text,
          response_format: "mp3",
        }),
        ...(signal ? { signal } : {}),
      });
      if (!res.ok) throw await httpFailure("The OpenAI audio API", res);
      return { data: Buffer.from(await res.arrayBuffer()), ext: "mp3" };
    },
  };
}

/** espeak-ng reads the text on stdin (no argument parsing of it) and writes WAV to stdout. */
function espeakSpeech(binary: string, settings: TtsSettings): SpeechBackend {
  return {
    name: "espeak",
    synthesize: (text, signal) =>
      new Promise((resolve, reject) => {
        const args = ["--stdout", ...(settings.voice ? ["-v", settings.voice] : [])];
        const child = spawn(binary, args, { stdio: ["pipe", "pipe", "pipe"], ...(signal ? { signal } : {}) });
        const out: Buffer[] = [];
        let err = "";
        child.stdout.on("data", (c: Buffer) => out.push(c));
        child.stderr.on("data", (c: Buffer) => {
          err += c.toString();
        });
        child.on("error", reject);
        child.on("close", (code) => {
          const data = Buffer.concat(out);
          if (code === 0 && data.length > 0) resolve({ data, ext: "wav" });
          else reject(new Error(`espeak-ng exited with ${code}: ${err.trim().slice(0, 300)}`));
        });
        child.stdin.end(text);
      }),
  };
}

/**
 * The configured backend when usable; with none configured, OpenAI with a key, else espeak-ng
 * when installed. Undefined when none is usable.
 */
export function chooseSpeechBackend(settings: TtsSettings, env: MediaEnv): SpeechBackend | undefined {
  const wanted = settings.provider.trim().toLowerCase();
  const openai = () =>
    hasKey(env, "OPENAI_API_KEY") ? openaiSpeech(env.OPENAI_API_KEY!.trim(), settings) : undefined;
  const espeak = () => {
    const binary = findExecutable("espeak-ng", env.PATH);
    return binary ? espeakSpeech(binary, settings) : undefined;
  };
  if (wanted === "openai") return openai();
  if (wanted === "espeak" || wanted === "espeak-ng") return espeak();
  if (wanted) return undefined;
  return openai() ?? espeak();
}
