"""An agent of a shape none of the examples has, for the test of the built wheel: sync,
never streams (`messages.create`), one tool of its own (`cat`), its own retries."""
import email.utils

import anthropic

TOOLS = [{"name": "cat", "description": "Print a text file.",
          "input_schema": {"type": "object", "properties": {"filename": {"type": "string"}}, "required": ["filename"]}}]
FINAL = {400, 401, 402, 403, 404, 413}


class CatAgent:
    tool_map = {"Read": {"name": "cat", "input": {"file_path": "filename", "offset": None, "limit": None}}}
    harness_policies = {"retries": 5, "retries_as_the_sdks_do": True, "gives_up_on_final_errors": True,
                        "retry_is_invisible": True}

    def __init__(self, client, folder, sleep, wall):
        self.client, self.folder, self.sleep, self.wall = client.with_options(max_retries=0), folder, sleep, wall
        self.history = []

    def run_turn(self, text):
        self.history.append({"role": "user", "content": text})
        try:
            for _ in range(10):
                message = self.ask()
                if message is None:
                    return "gave up"
                content = [b.model_dump(exclude_none=True, exclude={"parsed_output"}) for b in message.content]
                content = [b for b in content if not (b["type"] == "text" and not b["text"].strip())]
                for b in content:
                    if b["type"] == "tool_use" and not isinstance(b.get("input"), dict):
                        b["input"] = {}
                if content and content[-1]["type"] == "text":
                    content[-1]["text"] = content[-1]["text"].rstrip()
                    if not content[-1]["text"]:
                        content.pop()
                while content and content[-1]["type"] in ("thinking", "redacted_thinking"):
                    content.pop()
                if content:
                    self.history.append({"role": "assistant", "content": content})
                calls = [b for b in content if b["type"] == "tool_use"]
                if message.stop_reason == "pause_turn":
                    continue
                if not calls:
                    return message.stop_reason
                if message.stop_reason != "tool_use":
                    self.answer(calls, lambda c: ("not run: the reply was cut", True))
                    return message.stop_reason
                self.answer(calls, self.use)
            return "too many steps"
        finally:
            last = self.history[-1] if self.history else None
            if last and last["role"] == "assistant" and any(b["type"] == "tool_use" for b in last["content"]):
                self.answer([b for b in last["content"] if b["type"] == "tool_use"], lambda c: ("stopped", True))

    def ask(self):
        for attempt in range(6):
            try:
                return self.client.messages.create(model="claude-sonnet-4-5", max_tokens=2048, tools=TOOLS,
                                                   messages=self.history)
            except anthropic.APIStatusError as error:
                headers = error.response.headers
                should = headers.get("x-should-retry")
                if should == "false" or (should != "true" and error.status_code in FINAL):
                    return None
                wait = self.asked(headers)
            except (anthropic.APIConnectionError, ValueError):
                wait = None
            if attempt < 5:
                self.sleep(wait if wait is not None else min(8.0, 0.5 * 2 ** attempt))
        return None

    def asked(self, headers):
        for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            try:
                return max(0.0, float(headers[name]) * scale)
            except (KeyError, TypeError, ValueError):
                pass
        when = email.utils.parsedate_tz(headers.get("retry-after") or "")
        return max(0.0, email.utils.mktime_tz(when) - self.wall()) if when else None

    def answer(self, calls, result):
        blocks = []
        for call in calls:
            text, failed = result(call)
            blocks.append({"type": "tool_result", "tool_use_id": call["id"], "content": text or "(empty)", "is_error": failed})
        self.history.append({"role": "user", "content": blocks})

    def use(self, call):
        name = call["input"].get("filename") if call["name"] == "cat" else None
        if call["name"] != "cat":
            return f"no tool called {call['name']}", True
        if not isinstance(name, str):
            return "expected a text `filename`", True
        try:
            target = (self.folder / name).resolve()
            if not target.is_relative_to(self.folder.resolve()):
                return "outside the folder", True
            return target.read_text(errors="replace"), False
        except OSError as error:
            return f"{name}: {error.strerror}", True
        except ValueError as error:  # a NUL byte in the name
            return f"{name!r}: {error}", True


def make(ctx):
    return CatAgent(ctx.client, ctx.workspace, ctx.sleep, ctx.wall)
