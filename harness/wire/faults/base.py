"""What a fault kind is, the registry the kinds register into, and the position check
they share. A kind is one module of this package: a frozen dataclass whose fields are its
settings (``setting`` gives each its bounds and words), and the methods that do its fault.

A reply's faults run as one pipeline, each in its kind's place in the registry:

    the reply's events ──▶ EventFault.apply ──▶ SSE frames ──▶ ByteFault.apply ──▶ WirePlan
    (a message or raw)     each changes the                   each changes the chunks,
                           events as the faults               delays and ending of the
                           before it left them                plan (``harness.wire.plan``)

What a kind declares, and who reads it (nothing else names a kind):

    declared                              read by
    key, description, its fields,         scenario/format: the schema, the loader and the
    shorthand, mapping, rules             writer (``cut: 5`` or ``cut: {in_event: 4, how: rst}``)
    apply                                 wire/planner: the streamed answer
    json_form, no_json_form               wire/planner: the answer to a request without ``stream``
    label                                 Reply.describe: timelines, logs, ``harness events``
    rows, hits                            the coverage matrix (report/coverage, scenario/run/hits)
    check_bytes, without                  lint (scenario/format/positions)
    role, strategy                        strategies: ``faults()`` draws failures, ``replies()`` noise
    breaks_message                        scenario/fake_api/served: whether a message arrived
    moved, spread                         scenario/fake_api/thinking_first: a block added before the reply's own
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from dataclasses import MISSING, dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Literal, Mapping, Sequence

from harness.wire.errors import HarnessError
from harness.wire.faults.json_forms import JsonForm, Whole
from harness.wire.faults.moving import moved_by

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from harness.wire.plan import WirePlan

IN_STREAM = ("before any block", "mid thinking", "mid text", "mid tool input", "after a text block", "after a tool block",
             "after the message")
"""The places in a stream a fault can hit; with ``NON_STREAMING`` and ``WHOLE_STREAM``, the
coverage matrix's columns for stream faults."""
NON_STREAMING = "non-streaming"
WHOLE_STREAM = "whole stream"
STREAM_OR_BODY = (*IN_STREAM, NON_STREAMING)
SENT = "sent"  # a hit at the events that were sent whole (where a cut, a stall or Ctrl+C ended the stream)
Hit = tuple[str, int | str]  # a coverage row and where it hit: the events before it, SENT or WHOLE_STREAM


class PositionError(HarnessError, ValueError):
    """A fault that names an event or a byte the stream does not have; ``field`` as the
    scenario file spells it (``cut.after_event``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def within(field: str, number: int | None, count: int, *, low: int = 0, high: int | None = None, unit: str = "event") -> None:
    """PositionError unless ``number`` (None: not given) lies in ``low``..``high``
    (default: ``count``, the events or bytes the stream has)."""
    high = count if high is None else high
    if number is None or low <= number <= high:
        return
    served = f"{count} bytes" if unit == "byte" else f"events 1 to {count}" if count else "no events"
    valid = f"valid: {low} to {high}" if low <= high else "no position is valid"
    raise PositionError(field, f"`{field}: {number}` is beyond the reply ({served} as served; {valid})")


def setting(default: Any = MISSING, *, description: str = "", minimum: float | None = None, maximum: float | None = None,
            choices: tuple[str, ...] = (), counts: str = "") -> Any:
    """A fault's field with what the scenario format says of it (no default: required);
    ``counts``: what a number in it counts (``moving.COUNTED``), where a block added before
    the reply's own moves it."""
    words = {"description": description, "minimum": minimum, "maximum": maximum, "choices": choices}
    return dataclasses.field(default=default, metadata={**words, "counts": counts})


def position(default: Any = MISSING) -> Any:
    """A field that counts the events before the fault (0: before message_start)."""
    return setting(default, description="after this many events, counted from 1 (0: before message_start)", minimum=0,
                   counts="events before")


def event_number(default: Any = MISSING) -> Any:
    """A field that names one event, counted from 1."""
    return setting(default, description="an event number, counted from 1 (message_start is event 1)", minimum=1,
                   counts="event")


@dataclass(frozen=True)
class Setting:
    """One field of a fault as the scenario format sees it. ``kind``: integer, number,
    string, boolean, choice, mapping (any JSON object) or list: of ``item`` mappings (a
    dataclass), or of ``item_kind`` values (whose bounds are the setting's)."""

    name: str
    kind: str
    required: bool
    default: Any
    description: str = ""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    item: type | None = None
    item_kind: str = ""


@functools.cache
def settings_of(cls: type) -> tuple[Setting, ...]:
    """The fields of a fault (or of a list item of one) as settings, in order."""
    hints = typing.get_type_hints(cls)
    return tuple(_setting(f, hints[f.name]) for f in dataclasses.fields(cls))


_KINDS = {int: "integer", float: "number", str: "string", bool: "boolean", dict: "mapping"}


def _setting(field: dataclasses.Field, hint: Any) -> Setting:
    words = {k: v for k, v in field.metadata.items() if k != "counts"}
    if type(None) in typing.get_args(hint):  # ``int | None``: optional, an integer when given
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    item, item_kind = None, ""
    if origin is Literal:
        kind, words["choices"] = "choice", args
    elif origin is tuple:  # ``tuple[X, ...]``: a list of X
        kind = "list"
        item, item_kind = (args[0], "mapping") if dataclasses.is_dataclass(args[0]) else (None, _KINDS[args[0]])
    else:
        kind = "choice" if words.get("choices") else _KINDS[origin or hint]
    return Setting(field.name, kind, field.default is MISSING, field.default, item=item, item_kind=item_kind, **words)


class Fault:
    """A fault kind. Subclasses are frozen dataclasses (see the module docstring) and
    derive from ``EventFault`` or ``ByteFault``."""

    key: ClassVar[str]
    """The YAML key, the module's name, the fault's one name (``end_early``)."""
    description: ClassVar[str] = ""
    shorthand: ClassVar[str | None] = None  # the field a bare YAML value sets (``cut: 5`` is ``after_event: 5``)
    mapping: ClassVar[bool] = True  # whether the YAML value may be a mapping of the fields
    rules: ClassVar[tuple[Callable[[Mapping[str, Any]], str | None], ...]] = ()  # checks of the whole mapping
    places: ClassVar[tuple[str, ...]] = IN_STREAM  # the coverage places its one row can hit
    role: ClassVar[Literal["failure", "noise"] | None] = None  # an attempt that fails; what every client tolerates
    no_json_form: ClassVar[str | None] = None  # why a request without ``stream`` cannot get it
    breaks_message: ClassVar[bool] = False  # no complete message arrives, whatever the bytes do
    spread: ClassVar[bool] = False  # its events spread over the stream: a longer one puts them elsewhere
    rank: ClassVar[int] = 0  # its place in the pipeline (set by ``register``)

    @classmethod
    def rows(cls) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The kind's rows in the coverage matrix, each with the places it can hit."""
        return ((cls.key, cls.places),)

    @classmethod
    def from_yaml(cls, value: Any) -> Fault | None:
        """The fault a checked YAML value (plain data) describes; None for one that does nothing."""
        given = value if isinstance(value, dict) else {cls.shorthand: value}
        lists = {s.name: s.item for s in settings_of(cls) if s.kind == "list"}
        return cls(**{k: _read(lists[k], v) if k in lists else v for k, v in given.items()})

    def to_yaml(self) -> Any:
        """The YAML value a person would write: the shorthand where it says it all."""
        written = {s.name: _written(getattr(self, s.name)) for s in settings_of(type(self))
                   if s.required or getattr(self, s.name) != s.default}
        if self.shorthand is not None and (not self.mapping or list(written) == [self.shorthand]):
            return written.get(self.shorthand)
        return written

    def path(self, name: str) -> str:
        """How the scenario file names the field ``name`` (``cut.after_event``, ``end_early``)."""
        return f"{self.key}.{name}" if self.mapping else self.key

    def label(self) -> str | None:
        """The fault in words, for timelines (None: nothing worth saying)."""
        raise NotImplementedError

    def hits(self) -> list[Hit]:
        """Its coverage rows, each with where it hit (see ``Hit``)."""
        raise NotImplementedError

    def json_form(self, frames: list[bytes]) -> JsonForm:
        """What it does to a request without ``stream`` (``frames``: the stream it would
        have been, after the event faults)."""
        return Whole()

    def moved(self, events: int) -> Fault | None:
        """This fault on the stream with a block added before the reply's own (the thinking
        the real API opens a turn with), ``events`` more after message_start: the events it
        names moved with the reply's, so that it hits where it did; None when it cannot be
        (it names bytes)."""
        return moved_by(self, events)

    def check_bytes(self, size: int) -> None:
        """Lint's check of byte positions against a stream of ``size`` bytes (they move
        with the agent, so serving does not check them)."""

    def without(self, field: str) -> Fault | None:
        """This fault without the part ``field`` (a PositionError's) names; None: nothing left."""
        return None

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault] | None:
        """Hypothesis: this kind on a message of ``events`` (None: it cannot land there).
        ``keep``: where its values differ in how a client must take them, only those it keeps."""
        raise NotImplementedError


@functools.cache
def sampled(options: tuple[Any, ...]) -> SearchStrategy[Any]:
    """``st.sampled_from(options)``, the same object for the same options: hypothesis builds
    a strategy made of it (``st.builds``) once, where a new one would be checked on every draw."""
    from hypothesis import strategies as st

    return st.sampled_from(options)


def before_message_stop(events: Sequence[Any]) -> int:
    """The last ``after_event`` a drawn fault may take so that ``message_stop`` (an answer's
    last event) is not whole before it: the API sends nothing after it, and a client that
    stops reading there would see a whole answer where the SDK, reading on, sees a failure."""
    return max(0, len(events) - 1)


class EventFault(Fault):
    """A fault that changes the events of a stream."""

    def apply(self, events: list[dict]) -> list[dict]:
        """The events with this fault; PositionError if it names an event they lack."""
        raise NotImplementedError


class ByteFault(Fault):
    """A fault that changes the bytes of a stream: when they come and how they end."""

    def apply(self, plan: WirePlan, frames: list[bytes]) -> None:
        """Change ``plan``, whose chunks are ``frames`` as the faults before it left them;
        PositionError if it names a frame the stream lacks."""
        raise NotImplementedError

    def on_error_body(self, plan: WirePlan) -> None:
        """Change the plan of an HTTP error's body (most byte faults leave it alone)."""


class RawFrame(dict):
    """An event that a fault sends as raw bytes (``frame``), not as JSON: the client
    cannot read it, so it is not among the plan's events."""

    def __init__(self, frame: bytes, **event: Any) -> None:
        super().__init__(event)
        self.frame = frame


def _read(item: type | None, values: list[Any]) -> tuple[Any, ...]:
    return tuple(item(**value) if item is not None else value for value in values)


def _written(value: Any) -> Any:
    if not isinstance(value, tuple):
        return value
    return [{s.name: getattr(v, s.name) for s in settings_of(type(v))} if dataclasses.is_dataclass(v) else v for v in value]


_REGISTRY: list[type[Fault]] = []


def register(*kinds: type[Fault]) -> None:
    """Add fault kinds to the end of the pipeline, in the order given."""
    for kind in kinds:
        if kind.key in (k.key for k in _REGISTRY):
            raise ValueError(f"a fault kind with the key {kind.key!r} is registered already")
        kind.rank = len(_REGISTRY)
        _REGISTRY.append(kind)


def unregister(kind: type[Fault]) -> None:
    """Take the last registered kind out again (a kind a test registered for itself)."""
    if not _REGISTRY or _REGISTRY[-1] is not kind:
        raise ValueError(f"{kind.__qualname__} is not the last registered fault kind")
    _REGISTRY.pop()


def fault_kinds() -> tuple[type[Fault], ...]:
    """Every registered kind, in pipeline order."""
    return tuple(_REGISTRY)


def kind_for(key: str) -> type[Fault] | None:
    """The kind whose YAML key is ``key``."""
    return next((k for k in _REGISTRY if k.key == key), None)
