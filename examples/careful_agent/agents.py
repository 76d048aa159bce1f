"""The sync and async agents: they carry out what the turn asks for."""


import asyncio
from pathlib import Path
from typing import Any, Callable, Generator

from .failures import NotSent, settled
from .settings import LONGEST_WAIT, TOOL_MAP, TurnOutcome
from .turn import Conversation, _Pause, _UseTool

# -- carrying the turn out: sync and async -------------------------------------------

class _Base:
    tool_map = TOOL_MAP

    def __init__(self, client: Any, workspace: Path, sleep: Callable[[float], Any], wall: Callable[[], float],
                 settings: dict[str, Any] | None, on_event: Callable[[str, Any], None] | None) -> None:
        self.client = client.with_options(max_retries=0)   # this agent's retry policy is the only one
        self.sleep = sleep
        self.conversation = Conversation(Path(workspace), settings, wall, on_event)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.conversation.history

    @property
    def harness_policies(self) -> dict[str, Any]:
        """The choices this agent makes where the API leaves them open (harness policy names)."""
        return {"retries": self.conversation.retries, "retries_as_the_sdks_do": True, "honours_max_retries": True, "gives_up_on_final_errors": True,
                "timeout_result_is_data": True, "continues_after_cut_tool_call": True, "strict_tool_input": True,
                "flags_tool_errors": True, "retry_is_invisible": True, "backoff_cap": LONGEST_WAIT,
                "never_raises": True}

    @staticmethod
    def _next(logic: Generator[Any, Any, TurnOutcome], reply: Any) -> Any:
        """Give the turn what its last request produced (or the Ctrl+C that stopped it);
        returns its next request, or the TurnOutcome once it is over."""
        try:
            return logic.throw(reply) if isinstance(reply, KeyboardInterrupt) else logic.send(reply)
        except StopIteration as done:
            return done.value

    def _abandon(self, logic: Generator[Any, Any, TurnOutcome], ending: str, detail: str = "") -> TurnOutcome:
        logic.close()
        self.conversation.mend()
        return TurnOutcome(ending, detail=detail)


class CarefulAgent(_Base):
    def run_turn(self, text: str) -> TurnOutcome:
        logic = self.conversation.turn(text)
        reply: Any = None
        try:
            while not isinstance(step := self._next(logic, reply), TurnOutcome):
                try:
                    reply = self._carry_out(step)
                except KeyboardInterrupt as stop:
                    reply = stop
            return step
        except KeyboardInterrupt:  # in the logic itself, or a second Ctrl+C
            return self._abandon(logic, "interrupted")
        except Exception as bug:
            return self._abandon(logic, "crashed", f"{type(bug).__name__}: {bug}")

    def _carry_out(self, effect: Any) -> Any:
        if isinstance(effect, _Pause):
            return self.sleep(effect.seconds)
        if isinstance(effect, _UseTool):
            return self.conversation.workbench.call(effect.name, effect.args)
        seen: set[str] = set()
        try:
            manager = self.client.messages.stream(**effect.request)
        except Exception as exc:
            return NotSent(exc)
        try:
            with manager as stream:
                for event in stream:
                    seen.add(event.type)
                    if event.type == "text":
                        self.conversation.emit("text", event.text)
                message = stream.get_final_message() if "message_start" in seen else None
        except Exception as exc:
            return exc
        return settled(message, seen)


class AsyncCarefulAgent(_Base):
    async def run_turn(self, text: str) -> TurnOutcome:
        logic = self.conversation.turn(text)
        reply: Any = None
        try:
            while not isinstance(step := self._next(logic, reply), TurnOutcome):
                try:
                    reply = await self._carry_out(step)
                except KeyboardInterrupt as stop:
                    reply = stop
            return step
        except KeyboardInterrupt:
            return self._abandon(logic, "interrupted")
        except asyncio.CancelledError:  # the caller cancelled us: tidy up, then let it through
            self.conversation.workbench.stop_all()
            self._abandon(logic, "interrupted")
            raise
        except Exception as bug:
            return self._abandon(logic, "crashed", f"{type(bug).__name__}: {bug}")

    async def _carry_out(self, effect: Any) -> Any:
        if isinstance(effect, _Pause):
            return await self.sleep(effect.seconds)
        if isinstance(effect, _UseTool):
            return await asyncio.to_thread(self.conversation.workbench.call, effect.name, effect.args)
        seen: set[str] = set()
        try:
            manager = self.client.messages.stream(**effect.request)
        except Exception as exc:
            return NotSent(exc)
        try:
            async with manager as stream:
                async for event in stream:
                    seen.add(event.type)
                    if event.type == "text":
                        self.conversation.emit("text", event.text)
                message = await stream.get_final_message() if "message_start" in seen else None
        except Exception as exc:
            return exc
        return settled(message, seen)
