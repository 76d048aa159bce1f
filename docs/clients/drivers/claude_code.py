"""Claude Code (the CLI bundled in claude-agent-sdk), pointed at the loopback server."""
import asyncio, json, os, sys, time
from common import *
import claude_agent_sdk
from claude_agent_sdk import query, ClaudeAgentOptions
from claude_agent_sdk._cli_version import __cli_version__

print("claude-agent-sdk", claude_agent_sdk.__version__, "claude-code", __cli_version__, flush=True)
home = os.path.join(WORKDIR, ".home")
os.makedirs(home, exist_ok=True)
env = {
    "ANTHROPIC_BASE_URL": BASE,
    "ANTHROPIC_API_KEY": KEY,
    "HOME": home,
    "CLAUDE_CONFIG_DIR": os.path.join(home, ".claude"),
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "ANTHROPIC_MODEL": MODEL,
    "ANTHROPIC_SMALL_FAST_MODEL": "claude-haiku-4-5",
    "API_TIMEOUT_MS": "20000",
}
env.update(json.loads(os.environ.get("CC_EXTRA_ENV", "{}")))  # e.g. {"CLAUDE_CODE_TETHER_LIVE": "1"}
MODEL = env["ANTHROPIC_MODEL"]
print("extra env", os.environ.get("CC_EXTRA_ENV", "{}"), "model", MODEL, flush=True)


def on_stderr(line: str) -> None:
    print("CLI-STDERR", line.rstrip(), flush=True)


async def main():
    opts = ClaudeAgentOptions(env=env, cwd=WORKDIR, allowed_tools=["Read"], permission_mode="default",
                              max_turns=4, model=MODEL, stderr=on_stderr, setting_sources=[],
                              extra_args={"debug-to-stderr": None})
    prompt = "Summarize README.md. Read it first with the Read tool."
    async for msg in query(prompt=prompt, options=opts):
        name = type(msg).__name__
        if name == "SystemMessage":
            print("SDK", name, getattr(msg, "subtype", ""), flush=True)
            continue
        print("SDK", name, repr(msg)[:1500], flush=True)
    print("DONE", flush=True)

try:
    asyncio.run(asyncio.wait_for(main(), 150))
except BaseException as e:
    report_exception(e)
    sys.exit(1)
