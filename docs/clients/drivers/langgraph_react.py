import sys, logging, warnings
from common import *
import common as C
import langgraph, langchain_anthropic, langchain_core
from importlib.metadata import version
from langchain_anthropic import ChatAnthropic
from langchain_core.tools import tool
from langgraph.prebuilt import create_react_agent

logging.basicConfig(level=logging.INFO, format="LOG %(name)s %(levelname)s %(message)s", stream=sys.stdout)
print("langgraph", version("langgraph"), "langchain-anthropic", version("langchain-anthropic"),
      "langchain-core", version("langchain-core"), "stream" if STREAM else "nostream", flush=True)


@tool
def read_file(path: str) -> str:
    """Read a text file from the workspace.

    Args:
        path: the file's path, relative to the workspace
    """
    return C.read_file(path)


llm = ChatAnthropic(model=MODEL, base_url=BASE, api_key=KEY, streaming=STREAM, max_tokens=1024, timeout=20)
agent = create_react_agent(llm, [read_file], prompt=SYSTEM)
try:
    inp = {"messages": [("user", PROMPT)]}
    if STREAM:
        final = None
        for chunk in agent.stream(inp, stream_mode="values"):
            final = chunk
    else:
        final = agent.invoke(inp)
    for m in final["messages"]:
        print("HISTORY", type(m).__name__, repr(m.content)[:200], getattr(m, "tool_calls", None) or "", flush=True)
    print("DONE", flush=True)
except BaseException as e:
    report_exception(e)
    sys.exit(1)
