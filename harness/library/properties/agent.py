"""The agent the properties run against: ``--harness-agent`` or ``$HARNESS_AGENT`` (None:
mini_agent). Read when the test modules are imported, after the plugin has read the
command line. Another agent gets Ctrl+C only where any agent can meet it, while a reply
streams (mini_agent's events also let it come at an event or as a tool is called)."""

from __future__ import annotations

import os

AGENT = os.environ.get("HARNESS_AGENT") or None
AGENT_EVENTS = AGENT is None
