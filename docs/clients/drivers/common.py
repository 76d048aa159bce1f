"""Shared by every driver: the prompt, the workspace and a logging read_file tool."""
import json, os, sys, time, traceback

BASE = os.environ["BASE_URL"]
MODE = os.environ.get("MODE", "stream")
STREAM = MODE == "stream"
WORKDIR = os.environ["WORKDIR"]
TOOL_LOG = os.environ["TOOL_LOG"]
MODEL = "claude-sonnet-4-5"
KEY = "sk-ant-dummy-key-0000"
PROMPT = "Summarize README.md. Use the read_file tool to read it first."
SYSTEM = "You are a terse assistant."


def read_file(path) -> str:
    with open(TOOL_LOG, "a") as f:
        f.write(json.dumps({"t": time.time(), "tool": "read_file", "input": {"path": path}}) + "\n")
    p = os.path.join(WORKDIR, str(path))
    if not os.path.isfile(p):
        return f"error: no such file: {path!r}"
    return open(p).read()


def report_exception(e: BaseException) -> None:
    print(f"EXCEPTION {type(e).__module__}.{type(e).__qualname__}: {e}", flush=True)
    c = e.__cause__ or e.__context__
    while c is not None:
        print(f"  CAUSED BY {type(c).__module__}.{type(c).__qualname__}: {c}", flush=True)
        c = c.__cause__ or c.__context__
    traceback.print_exc(file=sys.stderr)
