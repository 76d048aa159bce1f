"""The API as documented: the validity rules of a Messages request with the API's own
wording, its betas (``betas``) and its retry semantics (``retry``). Nothing here imports
the agents it checks.

Each rule is one small function whose docstring quotes the API's text, and a runner calls
a list of them, as vcrpy's matchers are run: ``request.REQUEST_RULES`` (the body),
``request.BETA_RULES`` (the rules a beta lifts: run when the request's betas are known),
``fields.FIELD_RULES`` (its fields), ``message_rules.BLOCK_RULES`` / ``CONTENT_RULES`` /
``SYSTEM_RULES`` (one message, run by ``messages.check_history`` in one pass),
``turn_rules.TURN_RULES`` (between turns) and ``signatures`` (what the API answered
before). The words are in ``wording``. No rule raises, whatever JSON it is given.

Every violation carries the API's own path and wording, so a replayed 400 reads like
the real one. Rules, as ``path: message`` (N = message index, K = block index):

Messages
- ``messages: at least one message is required``
- ``messages.N: Input does not match the expected shape.`` -- a message that is not an
  object (``messages: ["Invalid content"]``) or has no ``role`` (``{}``)
- ``messages.N.role: Input should be 'user' or 'assistant'`` -- any role but those and
  ``system`` (accepted with any betas: the docs say no beta header is required)
- ``messages.N: all messages must have non-empty content except for the optional final
  assistant message``
- ``messages: text content blocks must be non-empty``
- ``messages: text content blocks must contain non-whitespace text`` -- a message whose
  only content is whitespace text (``" "`` beside a ``tool_use`` was accepted live)
- ``messages: final assistant content cannot end with trailing whitespace``

Tool use (pairing is judged on turns: consecutive same-role messages are merged, as
the API merges them, and ``system`` messages are skipped)
- ``messages.N.content.K.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'``
- ``messages.N.content.K: `tool_use` ids must be unique`` -- within one assistant turn: a
  later turn may use an id again, answered again
- ``messages.N.content.K.tool_use.input: Input should be a valid dictionary`` -- input
  that is JSON but not an object (``[1, 2]``), as the model may stream it
- ``messages.N.content.K.tool_use.name: String should have at least 1 character`` /
  ``... at most 200 characters``
- ``messages.N: `tool_result` blocks can only be in `user` messages``
- ``messages.N: `tool_use` ids were found without `tool_result` blocks immediately
  after: ...`` -- N is the first message of the turn after the ``tool_use`` turn; a
  client ``tool_use`` with a server tool's id (``srvtoolu_…``) and a declared server
  tool's name is not answered by a ``tool_result``
- ``messages.N: Did not find M `tool_result` block(s) at the beginning of this message.
  ...`` -- every id is answered, but not by the blocks that open the turn
- ``messages.N.content.K: unexpected `tool_use_id` found in `tool_result` blocks: ...``
- ``messages.N: `web_search` tool use with id `srvtoolu_…` was found without a
  corresponding `web_search_tool_result` block`` -- a server tool's call whose result has
  not come when a user message with anything but tool results ends the assistant turn
  (a turn of tool results alone lets it wait; a final assistant message may end in it)

Thinking
- ``messages.N.content.0: If an assistant message contains any thinking blocks, the first
  block must be `thinking` or `redacted_thinking`. Found `X`.`` -- unless it opens with
  a server tool's call or result (the model thinks after a server tool's result)
- ``messages.N: The final block in an assistant message cannot be `thinking`.``
- ``messages.N.content.K: When thinking is disabled, an `assistant` message in the final
  position cannot contain `thinking`. ...`` (``check_request`` only: needs ``thinking``)
- ``messages.N.content.K: Invalid `signature` in `thinking` block`` -- a signature the API
  handed out for another model than the request's (``check_request(body, signatures=…)``
  only: the signatures and their models are what the server remembers of its answers)
- ``messages.N.content.K: `thinking` or `redacted_thinking` blocks in the latest assistant
  message cannot be modified. …`` -- a thinking block of the latest assistant message
  whose text is not the one handed out with its signature (``check_request(body, thoughts=…)``)
- ``messages.N.content.0.type: Expected `thinking` or `redacted_thinking`, but found `X`.
  When `thinking` is enabled, a final `assistant` message must start with a thinking block
  …`` -- thinking ``enabled``, inside a tool loop whose first assistant message the API
  answered with thinking first (``check_request(body, thought_calls=…)`` only: the tool
  calls it handed out after thinking are what the server remembers)

Validation, reported before the rules above (``fields``, ``blocks``; pydantic's words)
- ``model``, ``max_tokens``, ``temperature``, ``top_p``, ``top_k``, ``thinking``'s
  ``budget_tokens`` (1,024 at least): types and ranges
  (``temperature: Input should be less than or equal to 1`` …), when present; -1, the
  legacy "unset" value, is the model's to judge; ``max_tokens: Field required`` only
  for a message request the fake API receives (``fields.required_fields``)
- ``messages.0: use the top-level 'system' parameter …`` (a system message may follow
  a user turn, not open the conversation)
- known blocks' required string fields (``messages.N.content.K.text.text: Input should
  be a valid string``, ``….image.source: Field required``, a block without ``type``);
  unknown block types and unknown fields pass

Request (``check_request`` only)
- ``Thinking may not be enabled when tool_choice forces tool use.`` (no path) -- thinking
  ``enabled`` with ``tool_choice`` ``any`` or ``tool`` (``adaptive`` is not judged: some
  models take a forced tool with it)
- ```temperature` may only be set to 1 when thinking is enabled. …`` (no path) -- thinking
  ``enabled`` beside another ``temperature`` (``adaptive`` and the legacy -1 not judged)
- ``tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`` /
  ``String should have at most 128 characters``; ``tools: Tool names must be unique.``
- ``A maximum of 4 blocks with cache_control may be provided. Found N.`` (no path)
- ``….cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m'
  cache_control block. …`` -- in the order ``tools``, ``system``, ``messages``; no ``ttl`` is 5 min

Betas (``check_request(body, betas=[…])`` only: a beta in ``betas.BETAS`` lifts them)
- ```max_tokens` must be greater than `thinking.budget_tokens`. …`` (no path) -- lifted
  by ``interleaved-thinking-2025-05-14``
- ``messages.N.content.K.document.source: Input tag 'file' found using 'type' does not
  match any of the expected tags: …`` -- lifted by ``files-api-2025-04-14``

Not checked, knowingly: what depends on the model or lies outside the body (token
counts, effort levels, the legacy -1 of the sampling fields, uploaded files, ``top_k``
and ``top_p`` beside thinking: ```top_k` must be unset when thinking is enabled``); where
``role: system`` messages may stand and which models take them (no real error text found); that thinking blocks equal the response that produced
them where the caller gives no ``thoughts`` (the earlier responses are the caller's); that with
thinking on, a tool loop's first assistant message starts with thinking where the server
that answered it is not the caller (adaptive thinking, a forced tool, another server's
answer may have none); model capabilities such as prefill support; a final assistant message
ending in ``tool_use``; the top-level ``system`` text. A conversation may open with an
assistant message: the first-party API accepts it (only Bedrock says ``first message
must use the "user" role``).
"""

from harness.oracle.messages import check_history
from harness.oracle.request import check_request, error_body
from harness.oracle.wording import Violation

__all__ = ["Violation", "check_history", "check_request", "error_body"]
