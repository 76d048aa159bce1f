"""Where the real recorded cassettes are: the full set beside the project when it is
there, else the copies this project ships in cassettes/conformance/."""

from pathlib import Path

FULL_SET = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "llm-anthropic"
SHIPPED = Path(__file__).resolve().parents[1] / "cassettes" / "conformance" / "llm-anthropic"
CONFORMANCE = FULL_SET if FULL_SET.is_dir() else SHIPPED
