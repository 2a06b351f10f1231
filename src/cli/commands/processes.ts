import { getHermesHome } from "../../core/home.js";
import { loadProcessRecords, type ProcessRecord } from "../../tools/process/store.js";

export interface ProcessesOptions {
  /** Include finished processes (default: running only). */
  all?: boolean;
  json?: boolean;
}

const age = (iso: string, now: number): string => {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
};

const statusText = (r: ProcessRecord): string =>
  r.status === "running"
    ? r.detached
      ? "running (nohup)"
      : "running"
    : r.status === "killed"
      ? "killed"
      : `exited ${r.exit_code ?? "?"}`;

/**
 * `hermes processes`: background processes recorded in HERMES_HOME/processes.json, with liveness
 * checked now (pid and start time), so processes an earlier Hermes left running show up.
 */
export async function runProcesses(options: ProcessesOptions): Promise<number> {
  const home = getHermesHome();
  const records = loadProcessRecords(home).filter((r) => options.all || r.status === "running");
  if (options.json) {
    process.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
    return 0;
  }
  if (records.length === 0) {
    process.stdout.write(
      options.all ? "No background processes recorded.\n" : "No background processes running.\n",
    );
    return 0;
  }
  const now = Date.now();
  const rows = records.map((r) => [
    r.id,
    String(r.pid),
    statusText(r),
    age(r.started, now),
    r.command.replace(/\s+/g, " ").slice(0, 60),
  ]);
  const header = ["ID", "PID", "STATUS", "AGE", "COMMAND"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const logs = options.all ? "" : "\nLogs: HERMES_HOME/processes/<id>.log; --all includes finished ones.";
  process.stdout.write(`${[line(header), ...rows.map(line)].join("\n")}\n${logs ? `${logs.trim()}\n` : ""}`);
  return 0;
}
