import sys
from common import *
import common as C
import smolagents
from smolagents import ToolCallingAgent, LiteLLMModel, tool

print("smolagents", smolagents.__version__, "stream" if STREAM else "nostream", flush=True)


@tool
def read_file(path: str) -> str:
    """Read a text file from the workspace.

    Args:
        path: the file's path, relative to the workspace
    """
    return C.read_file(path)


model = LiteLLMModel(model_id="anthropic/" + MODEL, api_base=BASE, api_key=KEY, max_tokens=1024, timeout=20)
agent = ToolCallingAgent(tools=[read_file], model=model, max_steps=4, stream_outputs=STREAM, verbosity_level=1)
try:
    out = agent.run(PROMPT)
    print("OUTPUT", repr(out), flush=True)
    for step in agent.memory.steps:
        print("STEP", type(step).__name__, repr(getattr(step, "error", None))[:300], flush=True)
    print("DONE", flush=True)
except BaseException as e:
    report_exception(e)
    sys.exit(1)
