"""The benchmark (``make bench``) at a tiny scale: every part runs, measures something,
and the report names every target with its verdict. Not a measurement: the rounds are
too few for the figures to mean anything, and a busy machine can turn any two timings
around, so nothing here compares one timing with another. One test, so that
pytest-xdist runs the bench once."""

from __future__ import annotations

import pytest

from bench import run

TINY = 0.02
FEW_FILES = [run.ROOT / "scenarios" / "http" / name for name in ("overloaded_then_success.yaml", "retry_after_ms.yaml")]


def test_the_bench_runs_every_part_and_reports_every_target(tmp_path, capsys):
    results = run.measure_all(tmp_path, TINY, session_counts=(3, 6), pytest_files=FEW_FILES)
    results["bench_seconds"] = 0.0
    every_contender_is_measured_against_the_floor(results)
    the_scenarios_it_times_pass(results)
    the_property_is_timed_with_its_two_floors(results)
    the_report_gives_every_target_a_verdict(results, capsys)
    the_scale_rows_measure_what_they_say(results)
    the_long_session_and_the_start_are_measured(results)
    big = results["big_cassette"]
    assert big["file_mb"] > 0.5 and all(mb > 0 for mb in big["peak_mb"].values()) and big["memory_over_file"] > 0
    serve = results["serve"]
    assert serve["bare_rps"] > 0 and serve["harness_rps"] > 0 and serve["harness_over_bare"] > 0


def every_contender_is_measured_against_the_floor(results: dict) -> None:
    per_request = results["per_request"]
    assert set(per_request["ratios"]) == {
        "a_again/a", "b_harness_oracle/a", "b_required_work/a", "c_vcr_1/a", "c_vcr_1_with_load/a"
    }
    assert all(r["cpu_median"] > 0 for r in per_request["ratios"].values())
    assert per_request["harness_own_us"]["cpu_median_us"] > 0
    for count in ("3", "6"):
        assert set(results["sessions"][count]["ratios_to_session_floor"]) == {
            "harness_body", "harness_order", "vcr_default", "vcr_body"
        }


def the_scenarios_it_times_pass(results: dict) -> None:
    assert results["ten_retries"]["passed"] and results["ten_retries"]["virtual_seconds"] == 300
    assert results["one_scenario"]["passed"]
    assert results["library"]["not_passed"] == [] and results["library"]["files"] >= 60
    assert results["library"]["two_workers"]["identical_results"] and results["library"]["two_workers"]["s"]["wall_min"] > 0


def the_long_session_and_the_start_are_measured(results: dict) -> None:
    session = results["long_session"]
    assert session["identical_verdicts"] and session["requests"] >= 10
    assert session["ms"]["incremental"] > 0 and session["ms"]["last_once"] > 0 and session["incremental_over_last"] > 0
    start = results["cli_start"]
    assert set(start["s"]) == {"--help", "lint", "show", "events", "scan", "check-history"}
    assert start["import_anthropic_s"] > 0 and all(seconds > 0 for seconds in start["s"].values())


def the_scale_rows_measure_what_they_say(results: dict) -> None:
    checks = results["wire_checks"]
    assert checks["scenarios"] >= 60 and checks["checks_s_cpu"] > 0 and checks["run_s_cpu"] > 0 and checks["on_over_off"] > 0
    scale = results["pytest"]
    assert scale["items"] == len(FEW_FILES) and scale["identical_results"] and scale["differences"] == []
    assert scale["one_worker_s"] > 0 and scale["two_workers_s"] > 0
    assert scale["worker_start_up_s"] > 0 and 0 < scale["slowest_item_s"] <= scale["items_s"]  # one is a part of the other
    assert scale["speedup_bound"] > 0
    machine = results["state_machine"]
    assert machine["examples"] >= 1 and machine["generation_only_examples_per_s"] > 0 and machine["examples_per_s_cpu"] > 0
    assert machine["rounds"] >= 1 and machine["over_generation_floor"] > 0
    assert machine["shares"]["checking"] > 0 and machine["shares"]["harness"] > 0  # the floor of the harness's share apart
    share = results["targets"]["state_machine_harness_share"]
    assert share["floor"] == machine["shares"]["checking"] < share["measured"]


def the_property_is_timed_with_its_two_floors(results: dict) -> None:
    prop = results["property"]
    assert prop["examples_with_problems"] == 0 and prop["checks"]
    assert prop["requests_per_example"] >= 1
    assert prop["sdk_alone_ms_per_example"] > 0 and prop["generate_only_ms_per_example"] > 0


def the_report_gives_every_target_a_verdict(results: dict, capsys: pytest.CaptureFixture[str]) -> None:
    run.report(results)
    out = capsys.readouterr().out
    assert set(results["targets"]) == set(run.TARGETS)
    for name, verdict in results["targets"].items():
        assert verdict["met"] == (
            verdict["measured"] >= run.TARGETS[name] if verdict["target"].startswith("≥") else verdict["measured"] <= run.TARGETS[name]
        )
        assert f"{'met ' if verdict['met'] else 'MISS'}  {name}" in out
    assert "the noise" in out and "the harness's own work per request" in out
    b = results["targets"]["b_over_its_floor"]  # b over its floor, beside b/a: the floor is what b cannot skip
    ratios = results["per_request"]["ratios"]
    assert b["measured"] == round(ratios["b_harness_oracle/a"]["cpu_median"] - ratios["b_required_work/a"]["cpu_median"], 3)
    assert f"(b/a {b['b_over_a']}; the run's noise {b['noise']})" in out
    assert "(its ceiling, the agent and the harness free: " in out


def test_the_profile_command_names_where_the_per_request_work_goes(capsys):
    from bench import profile

    assert profile.main(["--rounds", "1", "--top", "40", "--sort", "cumulative"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("the harness's own work: ") and " µs CPU a request" in out.splitlines()[0]
    assert "handle_request" in out and "plan_reply" in out and "check_request" in out


def test_the_harness_share_keeps_its_required_work_apart():
    from bench.shares import owner_of_file

    root = str(run.ROOT)
    assert owner_of_file(f"{root}/harness/oracle/messages.py") == "checking"
    assert owner_of_file(f"{root}/harness/wire/sse.py") == "checking"
    assert owner_of_file(f"{root}/harness/wire/faults/cut.py") == "checking"
    assert owner_of_file(f"{root}/harness/scenario/fake_api/responder.py") == "harness"
    assert owner_of_file(f"{root}/harness/wire/clock.py") == "harness"
    assert owner_of_file(f"{root}/mini_agent/loop.py") == "agent"
    assert owner_of_file("/usr/lib/python3.11/json/decoder.py") is None
