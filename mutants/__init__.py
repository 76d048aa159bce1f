"""The project's own mutation check: realistic bugs planted in mini_agent, one at a time,
and whether the scenario library and the CI property profile catch each (``make mutants``)."""
