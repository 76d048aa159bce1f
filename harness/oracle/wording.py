"""The API's own words for the rules it enforces, and the violation they make up.

Every text here is the live API's, as its 400 bodies give it; a path names the place
(``messages.3.content.0``) the way the API does.
"""

from __future__ import annotations

from dataclasses import dataclass

ROLE = "Input should be 'user' or 'assistant'"
NOT_AN_OBJECT = "Input should be a valid dictionary"
NOT_THE_SHAPE = "Input does not match the expected shape."  # a value of a union (a message, a system block) that is none of its forms
NOT_A_LIST = "Input should be a valid list"
FIELD_REQUIRED = "Field required"
NO_MESSAGES = "at least one message is required"
EMPTY_MESSAGE = "all messages must have non-empty content except for the optional final assistant message"
EMPTY_TEXT = "text content blocks must be non-empty"
WHITESPACE_TEXT = "text content blocks must contain non-whitespace text"
TRAILING_WHITESPACE = "final assistant content cannot end with trailing whitespace"
TOOL_USE_ID_PATTERN = "String should match pattern '^[a-zA-Z0-9_-]+$'"
TOOL_USE_IDS_UNIQUE = "`tool_use` ids must be unique"
NAME_TOO_SHORT = "String should have at least 1 character"
NAME_TOO_LONG = "String should have at most {limit} characters"
TOOL_RESULT_IN_ASSISTANT = "`tool_result` blocks can only be in `user` messages"
MISSING_RESULTS = (
    "`tool_use` ids were found without `tool_result` blocks immediately after: {ids}. "
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)
RESULTS_NOT_FIRST = (
    "Did not find {count} `tool_result` block(s) at the beginning of this message. "
    "Messages following `tool_use` blocks must begin with a matching number of "
    "`tool_result` blocks."
)
SERVER_CALL_UNRESOLVED = "`{name}` tool use with id `{id}` was found without a corresponding `{name}_tool_result` block"
UNEXPECTED_RESULT = (
    "unexpected `tool_use_id` found in `tool_result` blocks: {id}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
THINKING_FIRST = (
    "If an assistant message contains any thinking blocks, the first block must be "
    "`thinking` or `redacted_thinking`. Found `{found}`."
)
THINKING_LAST = "The final block in an assistant message cannot be `thinking`."
THINKING_DISABLED = (
    "When thinking is disabled, an `assistant` message in the final position cannot contain "
    "`thinking`. To use thinking blocks, enable `thinking` in your request."
)
TOOL_NAME_PATTERN = "String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"
TOOL_NAMES_UNIQUE = "Tool names must be unique."
TTL_ORDER = ("a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. "
             "Note that blocks are processed in the following order: `tools`, `system`, `messages`.")
CACHE_CONTROL_LIMIT = "A maximum of {limit} blocks with cache_control may be provided. Found {found}."
THINKING_MODIFIED = ("`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. "
                     "These blocks must remain as they were in the original response.")
INVALID_SIGNATURE = "Invalid `signature` in `thinking` block"
THINKING_OPENS_THE_TURN = (
    "Expected `thinking` or `redacted_thinking`, but found `{found}`. When `thinking` is enabled, a final "
    "`assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and "
    "`tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this "
    "requirement, disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)
BUDGET_NOT_BELOW_MAX_TOKENS = (
    "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
)
TEMPERATURE_WITH_THINKING = (
    "`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#important-considerations-when-using-extended-thinking"
)
THINKING_WITH_A_FORCED_TOOL = "Thinking may not be enabled when tool_choice forces tool use."
FILE_SOURCE_TAG = "Input tag 'file' found using 'type' does not match any of the expected tags: {tags}"

# Field validation, in pydantic's words (the API validates the body with it, lax mode).
VALID_STRING = "Input should be a valid string"
VALID_INTEGER = "Input should be a valid integer"
INTEGER_FRACTION = "Input should be a valid integer, got a number with a fractional part"
INTEGER_PARSING = "Input should be a valid integer, unable to parse string as an integer"
VALID_NUMBER = "Input should be a valid number"
NUMBER_PARSING = "Input should be a valid number, unable to parse string as a number"
FINITE_NUMBER = "Input should be a finite number"
GREATER_EQUAL = "Input should be greater than or equal to {limit:g}"
LESS_EQUAL = "Input should be less than or equal to {limit:g}"
MUST_BE_AT_LEAST = "must be greater than or equal to {limit}"  # max_tokens, in the live API's words
NO_DISCRIMINATOR = "Unable to extract tag using discriminator 'type'"
VALIDATION_OPENINGS = ("Input should", "Input does not", "Input tag", "Field required", "String should", "Unable to extract")
SYSTEM_FIRST = "use the top-level 'system' parameter for the initial system prompt"  # the harness's words: no real text known


@dataclass(frozen=True)
class Violation:
    """One broken rule, with the API's path (``messages.3.content.0``) and wording.

    Where the API's own text names no block (``messages: text content blocks must be
    non-empty``), ``at`` says which one: shown to people beside the API's text, never
    inside it (``api_text`` is what the API would answer)."""

    path: str
    message: str
    at: str = ""

    @property
    def api_text(self) -> str:
        """The message exactly as the live API words it."""
        return f"{self.path}: {self.message}" if self.path else self.message

    def __str__(self) -> str:
        return f"{self.api_text} (at {self.at})" if self.at and self.at != self.path else self.api_text
