"""mini_agent's own properties and the harness's counterexample files (the agent-neutral
properties are shipped: ``harness.library.properties``)."""
