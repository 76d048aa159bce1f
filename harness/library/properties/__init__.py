"""The agent-neutral properties: hypothesis draws fault schedules, interruptions and
whole sessions, and every run must leave an API-valid history, against whichever agent
``--harness-agent`` (or ``$HARNESS_AGENT``) names (mini_agent by default). Run them with
``pytest --harness-properties``; ``profiles`` says how many examples each profile runs."""

PROFILE_NAMES = ("ci", "quick", "thorough", "shared")
"""The hypothesis profiles ``profiles`` registers (named here, where hypothesis is not imported)."""
