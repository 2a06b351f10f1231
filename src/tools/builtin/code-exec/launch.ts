/**
 * How a script process is started. It must lead a process group of its own, so that a timeout or
 * an interrupt can kill everything it started. `detached` does that with setsid(), which also opens
 * a new session, and on Linux a new session is a new scheduler autogroup: every tool round trip
 * then wakes a process in another group and pays for it (about half the RPC rate on a 2-core
 * machine). Python can call setpgid() itself, staying in Hermes's session; Node cannot, so
 * JavaScript scripts keep `detached`.
 */

/**
 * Runs the script given as argv[1] as __main__ after moving into a process group of its own.
 * Tracebacks start at the script's own frames, as if it had been run directly. `traceback` is
 * imported only on failure: it costs more start-up time than the rest of the launcher.
 */
const PYTHON_LAUNCHER = `import os, sys
try:
    os.setpgid(0, 0)
except OSError:
    pass
_path = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path[0] = os.path.dirname(os.path.abspath(_path))
try:
    with open(_path, "rb") as _f:
        _code = compile(_f.read(), _path, "exec")
except SyntaxError as _e:
    import traceback
    traceback.print_exception(type(_e), _e, None)
    sys.exit(1)
try:
    exec(_code, {"__name__": "__main__", "__file__": _path, "__builtins__": __builtins__})
except SystemExit:
    raise
except BaseException as _e:
    import traceback
    traceback.print_exception(type(_e), _e, _e.__traceback__.tb_next)
    sys.exit(1)
`;

export interface LaunchPlan {
  args: string[];
  /** Start in a new session (setsid) because the interpreter cannot make its own process group. */
  detached: boolean;
}

export function launchPlan(language: "python" | "javascript", scriptPath: string): LaunchPlan {
  if (language === "python") return { args: ["-c", PYTHON_LAUNCHER, scriptPath], detached: false };
  return { args: [scriptPath], detached: true };
}
