import logging, sys
from common import *
import common as C
import anthropic
from anthropic import beta_tool

logging.basicConfig(level=logging.INFO, format="LOG %(name)s %(levelname)s %(message)s", stream=sys.stdout)
logging.getLogger("httpx2").setLevel(logging.INFO)
logging.getLogger("anthropic").setLevel(logging.INFO)


@beta_tool
def read_file(path: str) -> str:
    """Read a text file from the workspace.

    Args:
        path: the file's path, relative to the workspace
    """
    return C.read_file(path)


print("anthropic", anthropic.__version__, "stream" if STREAM else "nostream", flush=True)
client = anthropic.Anthropic(base_url=BASE, api_key=KEY, timeout=20.0)
try:
    runner = client.beta.messages.tool_runner(
        model=MODEL, max_tokens=1024, system=SYSTEM, tools=[read_file],
        messages=[{"role": "user", "content": PROMPT}], stream=STREAM, max_iterations=5)
    for item in runner:
        if STREAM:
            for _ in item:
                pass
            msg = item.get_final_message()
        else:
            msg = item
        print("MESSAGE", msg.id, msg.stop_reason, [b.type for b in msg.content],
              [getattr(b, "input", getattr(b, "text", None)) for b in msg.content], flush=True)
    print("DONE", flush=True)
except BaseException as e:
    report_exception(e)
    sys.exit(1)
