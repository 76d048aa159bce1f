import sys, json, logging
from common import *
import common as C
import litellm
from importlib.metadata import version

print("litellm", version("litellm"), "stream" if STREAM else "nostream", flush=True)
TOOLS = [{"type": "function", "function": {"name": "read_file", "description": "Read a text file from the workspace.",
          "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]
messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": PROMPT}]
try:
    for step in range(4):
        kw = dict(model="anthropic/" + MODEL, api_base=BASE, api_key=KEY, messages=messages, tools=TOOLS,
                  max_tokens=1024, timeout=20)
        if STREAM:
            chunks = []
            for ch in litellm.completion(stream=True, **kw):
                chunks.append(ch)
            resp = litellm.stream_chunk_builder(chunks, messages=messages)
        else:
            resp = litellm.completion(**kw)
        msg = resp.choices[0].message
        fr = resp.choices[0].finish_reason
        print("RESPONSE", fr, repr(msg.content), [(t.function.name, t.function.arguments) for t in (msg.tool_calls or [])], flush=True)
        messages.append(msg.model_dump(exclude_none=True) if hasattr(msg, "model_dump") else dict(msg))
        if not msg.tool_calls:
            break
        for tc in msg.tool_calls:
            try:
                args = json.loads(tc.function.arguments or "{}")
                out = C.read_file(args.get("path"))
            except Exception as e:
                out = f"error: bad arguments {tc.function.arguments!r}: {e}"
                print("TOOL_ARGS_ERROR", repr(tc.function.arguments), e, flush=True)
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": out})
    print("DONE", flush=True)
except BaseException as e:
    report_exception(e)
    sys.exit(1)
