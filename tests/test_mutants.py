"""The mutant set of ``make mutants`` stays plantable: each edit's text is in mini_agent
exactly once (so a refactor that moves it shows here, not at the next mutation run), ids
are unique, and a planted copy really differs where the edit says."""

from __future__ import annotations

from pathlib import Path

import pytest

from mutants.plant import MutantError, check_applies, load_mutants, plant

MUTANTS = load_mutants()


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.id)
def test_every_mutant_applies_to_the_source_as_it_is(mutant) -> None:
    check_applies(mutant)


def test_mutant_ids_are_unique_and_every_one_says_why() -> None:
    ids = [m.id for m in MUTANTS]
    assert len(ids) == len(set(ids)) and all(m.why for m in MUTANTS)


def test_a_planted_copy_carries_the_bug_and_only_it(tmp_path: Path) -> None:
    mutant = next(m for m in MUTANTS if m.id == "retry-after-ms-ignored")
    folder = plant(mutant, tmp_path / "copy")
    planted = (folder / "mini_agent" / "retry.py").read_text()
    assert "millis = None" in planted and 'headers.get("retry-after-ms")' not in planted
    assert (folder / "mini_agent" / "loop.py").read_text() == (Path(__file__).parents[1] / "mini_agent" / "loop.py").read_text()


def test_a_mutant_whose_text_is_gone_is_refused() -> None:
    from mutants.plant import Edit, Mutant

    with pytest.raises(MutantError, match="holds 0 copies"):
        check_applies(Mutant("gone", "why", (Edit("retry.py", "no such text", "x"),)))
