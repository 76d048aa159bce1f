#!/usr/bin/env bash
# The clients of docs/clients.md, in a virtualenv of their own: none of them is a
# dependency of the project, and CI does not need them.
#
#   CLIENTS_VENV=/path/to/venv docs/clients/install.sh     (default: .venv-clients)
#
# Claude Code comes bundled inside claude-agent-sdk; if a wheel does not bundle it,
# the CLI is installed with npm into "$CLIENTS_VENV/claude-code".
set -euo pipefail
VENV=${CLIENTS_VENV:-.venv-clients}
PY=${PY:-python3.11}
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/pip" install -q --upgrade pip
"$VENV/bin/pip" install -q \
  anthropic \
  "pydantic-ai-slim[anthropic]" \
  langgraph langchain-anthropic \
  litellm \
  "smolagents[litellm]" \
  claude-agent-sdk
if ! ls "$VENV"/lib/python3*/site-packages/claude_agent_sdk/_bundled/claude* >/dev/null 2>&1; then
  mkdir -p "$VENV/claude-code"
  (cd "$VENV/claude-code" && npm install --no-audit --no-fund @anthropic-ai/claude-code)
fi
"$VENV/bin/pip" freeze > "$(dirname "$0")/clients-venv.freeze.txt"
echo "clients installed in $VENV"
