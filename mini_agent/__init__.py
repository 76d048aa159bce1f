"""mini_agent: a small coding agent whose errors never kill it.

Three layers of error handling: API requests retried visibly (``retry``, ``model``),
tools that turn every failure into an error result for the model (``tools``), and a
loop that never raises and always repairs its history (``loop``).
"""
