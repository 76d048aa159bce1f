"""Run real clients through ``harness serve --check``, fault by fault, and write the
client-by-fault table of docs/clients.md.

    docs/clients/install.sh                                   # the clients, in their own venv
    .venv/bin/python docs/clients/run.py --venv .venv-clients [--clients a,b] [--faults x,y]

For each client, fault and mode (stream, nostream) it writes a scenario (the fault on
the first model request, then the replies a recovering client needs), starts
``harness serve`` on a free loopback port with ``--check --log``, runs the client's
driver (``drivers/``) against it with a time limit, stops the server with SIGINT and
keeps its report. Results go to ``results.json``; ``--table`` prints the table.
Everything stays on 127.0.0.1; each run ends by itself (the driver is killed, with its
process group, at the time limit).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CLIENTS = {  # name → (driver, tool call on the README, extra environment)
    "anthropic_tool_runner": ("anthropic_tool_runner", "read_file", {}),
    "pydantic_ai_agent": ("pydantic_ai_agent", "read_file", {}),
    "langgraph_react": ("langgraph_react", "read_file", {}),
    "litellm_loop": ("litellm_loop", "read_file", {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}),
    "smolagents_agent": ("smolagents_agent", "read_file", {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}),
    "claude_code": ("claude_code", "Read", {}),
    "claude_code_threads": ("claude_code", "Read", {"CC_EXTRA_ENV": json.dumps(
        {"ANTHROPIC_MODEL": "claude-opus-4-8", "CLAUDE_CODE_TETHER_LIVE": "1"})}),
}
FAULTS = {  # name → the reply keys of the first answer, or the scenario's own keys
    "normal": {},
    "529x2": {"errors": ["overloaded", "overloaded"]},
    "429-retry-after-2": {"errors": [{"error": "rate_limit", "headers": {"retry-after": "2"}}]},
    "cut-fin": {"fault": {"cut": {"after_event": 3, "how": "fin"}}},
    "cut-rst": {"fault": {"cut": {"after_event": 3, "how": "rst"}}},
    "error-event": {"fault": {"error_event": 3}},
    "end-after-tool-use": {"fault": {"end_early": 8}},
    "end-mid-tool-input": {"fault": {"end_early": 6}},
    "bad-tool-json": {"bad_json": True},
    "401": {"errors": ["authentication"]},
    "thread-unsupported": {"threads": "unsupported"},
}
README = "# Demo\nThis is a demo project.\n"


def scenario(client: str, fault: str, workspace: Path) -> str:
    """The scenario of one run, as YAML (JSON is YAML)."""
    _, tool, _ = CLIENTS[client]
    spec = FAULTS[fault]
    key = "file_path" if tool == "Read" else "path"
    value = str(workspace / "README.md") if tool == "Read" else "README.md"
    text = json.dumps({key: value}, separators=(",", ":"))
    cut = text.index(':"') + 3  # the second piece starts inside the value, as the live API splits
    pieces = [text[:cut], text[cut:]]
    call = {"text": "I'll read the file.", "tool_use": {"name": tool, "json": pieces}}
    first = dict(call, **spec.get("fault", {}))
    if spec.get("bad_json"):
        first = {"text": "I'll read the file.", "tool_use": {"name": tool, "json": ["", '{"path": oops']},
                 "unstreamed": {"text": "I'll read the file.", "tool_use": {"name": tool, "input": {}}}}
    replies = [{"error": e} if isinstance(e, str) else e for e in spec.get("errors", [])]
    replies += [first] + ([call] if spec.get("fault") or spec.get("bad_json") else [])
    if client == "smolagents_agent":
        replies.append({"text": "Done.", "tool_use": {"name": "final_answer", "input": {"answer": "A demo project."}}})
    else:
        replies.append({"text": "README.md says this is a demo project."})
    document = {"name": f"{client}-{fault}", "about": f"{fault} on the first model request", "turns": [
        {"user": "Summarize README.md", "replies": replies}]}
    if "threads" in spec:
        document["threads"] = spec["threads"]
    return json.dumps(document, indent=1)


def run_one(venv: Path, client: str, fault: str, mode: str, limit: float) -> dict:
    driver, _, extra = CLIENTS[client]
    with tempfile.TemporaryDirectory(prefix="harness-clients-") as tmp:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        (workspace / "README.md").write_text(README)
        path = Path(tmp) / "scenario.yaml"
        path.write_text(scenario(client, fault, workspace))
        log = Path(tmp) / "log.jsonl"
        server = subprocess.Popen(
            [sys.executable, "-m", "harness", "serve", str(path), "--port", "0", "--check", "--log", str(log)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
        )
        url = re.search(r"http://127\.0\.0\.1:\d+", server.stdout.readline()).group(0)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")} | extra | {
            "BASE_URL": url, "MODE": mode, "WORKDIR": str(workspace), "TOOL_LOG": str(Path(tmp) / "tools.jsonl"),
            "PYTHONUNBUFFERED": "1", "NO_PROXY": "*", "no_proxy": "*",
        }
        started = time.monotonic()
        with open(Path(tmp) / "client.out", "w") as out:
            process = subprocess.Popen([str(venv / "bin" / "python"), str(HERE / "drivers" / f"{driver}.py")],
                                       stdout=out, stderr=subprocess.STDOUT, env=env, cwd=workspace, start_new_session=True)
            try:
                rc, timed_out = process.wait(timeout=limit), False
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                rc, timed_out = process.wait(), True
        elapsed = time.monotonic() - started
        server.send_signal(signal.SIGINT)
        report = server.communicate(timeout=30)[0]
        output = (Path(tmp) / "client.out").read_text(errors="replace")
        tools = [json.loads(line)["input"] for line in open(Path(tmp) / "tools.jsonl")] if (Path(tmp) / "tools.jsonl").exists() else []
    exceptions = [line for line in output.splitlines() if line.startswith("EXCEPTION")]
    return {
        "client": client, "fault": fault, "mode": mode, "rc": rc, "timed_out": timed_out, "elapsed": round(elapsed, 1),
        "requests": [line for line in report.splitlines() if line.startswith("  #")],
        "problems": [line[2:] for line in report.splitlines() if line.startswith("✗ ")],
        "notes": [line[2:] for line in report.splitlines() if line.startswith("⚠ ")],
        "exception": exceptions[0][10:] if exceptions else None, "tools_run": tools,
    }


def table(results: list[dict]) -> str:
    """The client-by-fault table: per cell, the verdict of ``--check`` in each mode."""
    clients = list(dict.fromkeys(r["client"] for r in results))
    faults = list(dict.fromkeys(r["fault"] for r in results))
    cells = {(r["client"], r["fault"], r["mode"]): r for r in results}
    lines = ["| fault | " + " | ".join(clients) + " |", "|---" * (len(clients) + 1) + "|"]
    for fault in faults:
        row = [fault]
        for client in clients:
            parts = [f"{m[0].upper()}: {verdict(cells[(client, fault, m)])}" for m in ("stream", "nostream") if (client, fault, m) in cells]
            row.append("<br>".join(parts) or "–")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def verdict(result: dict) -> str:
    """``ok``, or what ``--check`` found (✗ problems, ⚠ notes), the requests made and how
    the client ended. Replies the client never asked for are shown as where it stopped."""
    stopped = any("were never requested" in n for n in result["notes"])
    notes = [n for n in result["notes"] if "were never requested" not in n and "the agent made request" not in n]
    parts = [f"{len(result['requests'])} req"]
    if result["problems"]:
        parts.append("✗ " + "; ".join(_short(p) for p in result["problems"]))
    if notes:
        parts.append("⚠ " + "; ".join(_short(n) for n in notes))
    if result["timed_out"]:
        parts.append("killed at the time limit")
    elif result["exception"]:
        parts.append("raised " + result["exception"].split(":")[0].split(".")[-1])
    elif stopped:
        parts.append("stopped, no error")
    return ", ".join(parts) if len(parts) > 1 else f"ok ({parts[0]})"


def _short(text: str) -> str:
    text = re.sub(r"^(the default session|session '[^']*')(, conversation \d+)?: ", "", text)
    return text.split(":\n")[0][:140]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path(os.environ.get("CLIENTS_VENV", ".venv-clients")))
    parser.add_argument("--clients", default=",".join(CLIENTS))
    parser.add_argument("--faults", default=",".join(FAULTS))
    parser.add_argument("--modes", default="stream,nostream")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds a client may run")
    parser.add_argument("--results", type=Path, default=HERE / "results.json")
    parser.add_argument("--table", action="store_true", help="only print the table of the saved results")
    args = parser.parse_args()
    if args.table:
        print(table(json.loads(args.results.read_text())))
        return 0
    results = json.loads(args.results.read_text()) if args.results.exists() else []
    for client in args.clients.split(","):
        for fault in args.faults.split(","):
            for mode in args.modes.split(","):
                if client == "claude_code" and mode == "nostream" or client == "claude_code_threads" and (
                        mode == "nostream" or fault not in ("normal", "thread-unsupported")):
                    continue  # Claude Code streams; its thread variant only for the thread faults
                result = run_one(args.venv, client, fault, mode, args.limit)
                results = [r for r in results if (r["client"], r["fault"], r["mode"]) != (client, fault, mode)] + [result]
                args.results.write_text(json.dumps(results, indent=1) + "\n")
                print(f"{client:22} {fault:20} {mode:8} {verdict(result)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
