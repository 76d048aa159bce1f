import asyncio, sys, logging
from common import *
import common as C
import pydantic_ai
from pydantic_ai import Agent
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider

logging.basicConfig(level=logging.INFO, format="LOG %(name)s %(levelname)s %(message)s", stream=sys.stdout)
print("pydantic_ai", pydantic_ai.__version__, "stream" if STREAM else "nostream", flush=True)
model = AnthropicModel(MODEL, provider=AnthropicProvider(base_url=BASE, api_key=KEY))
agent = Agent(model, system_prompt=SYSTEM)


@agent.tool_plain
def read_file(path: str) -> str:
    """Read a text file from the workspace.

    Args:
        path: the file's path, relative to the workspace
    """
    return C.read_file(path)


async def main():
    if STREAM:
        # agent.run with an event_stream_handler streams every model request
        # (agent.run_stream ends the run at the first text part, so it is not used here)
        async def handler(ctx, events):
            async for ev in events:
                pass
        result = await agent.run(PROMPT, event_stream_handler=handler)
        print("OUTPUT", repr(result.output), flush=True)
        msgs = result.all_messages()
    else:
        result = await agent.run(PROMPT)
        print("OUTPUT", repr(result.output), flush=True)
        msgs = result.all_messages()
    for m in msgs:
        print("HISTORY", type(m).__name__, [type(p).__name__ for p in m.parts], flush=True)
    print("DONE", flush=True)

try:
    asyncio.run(asyncio.wait_for(main(), 80))
except BaseException as e:
    report_exception(e)
    sys.exit(1)
