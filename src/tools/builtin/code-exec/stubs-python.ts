import type { StubSpec } from "./sandbox-tools.js";

const PY_KEYWORDS = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except finally " +
    "for from global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);
const usable = (name: string): boolean => /^[A-Za-z][A-Za-z0-9_]*$/.test(name) && !PY_KEYWORDS.has(name);

/**
 * The RPC client. One connection per thread (so threads never share a socket and need no lock
 * around a round trip), dropped in a forked child. Replies are read with a buffered line reader: a
 * fresh large recv() buffer per call costs more than the round trip itself. Tool results are JSON
 * strings: they come back parsed when they parse. A refused call (unknown tool, call limit)
 * returns {"error": ...} like a failed tool.
 */
const RUNTIME = `import json as _json
import os as _os
import socket as _socket
import threading as _threading

_local = _threading.local()
_id_lock = _threading.Lock()
_last_id = [0]
_encode = _json.JSONEncoder(default=str, separators=(",", ":")).encode


def _forget_connection():
    _local.__dict__.clear()


# A forked child must not share its parent's connection (replies would go to either process).
_os.register_at_fork(after_in_child=_forget_connection)


def _connection():
    sock = getattr(_local, "sock", None)
    if sock is None:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        sock.connect(_os.environ["HERMES_RPC_SOCKET"])
        _local.sock = sock
        _local.reader = sock.makefile("rb")
    return sock


def _call(tool, args):
    with _id_lock:
        _last_id[0] += 1
        request_id = _last_id[0]
    payload = {"id": request_id, "tool": tool, "args": {k: v for k, v in args.items() if v is not None}}
    try:
        sock = _connection()
        sock.sendall((_encode(payload) + "\\n").encode("utf-8"))
        line = _local.reader.readline()
        if not line:
            raise ConnectionError("connection closed")
    except OSError as exc:
        _local.sock = None
        raise RuntimeError("hermes_tools: lost the connection to Hermes (%s)" % exc) from None
    reply = _json.loads(line)
    if reply.get("id") != request_id:
        raise RuntimeError("hermes_tools: reply for another request")
    if "error" in reply:
        return {"error": reply["error"]}
    result = reply.get("result")
    if isinstance(result, str):
        try:
            return _json.loads(result)
        except ValueError:
            return result
    return result
`;

function pyFunction(spec: StubSpec): string {
  const params = spec.params.filter((p) => usable(p.name));
  const signature = params.map((p) => (p.required ? p.name : `${p.name}=None`)).join(", ");
  const args = params.map((p) => `"${p.name}": ${p.name}`).join(", ");
  return `def ${spec.name}(${signature}):\n    return _call("${spec.name}", {${args}})\n`;
}

/** Source of hermes_tools.py exposing `specs` (Python 3 standard library only). */
export function pythonStubs(specs: readonly StubSpec[]): string {
  const names = specs.map((s) => `"${s.name}"`).join(", ");
  return [
    '"""Hermes tools callable from this script (generated for this run)."""',
    RUNTIME,
    `__all__ = [${names}]\n`,
    ...specs.map(pyFunction),
  ].join("\n\n");
}
