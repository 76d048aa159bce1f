"""The bench's printed report: every row, then each target's verdict."""

from __future__ import annotations

from typing import Any

OWNER_NAMES = {"sdk": "the SDK (and its HTTP stack)", "hypothesis": "hypothesis", "agent": "the agent",
               "checking": "the harness checking and rendering", "harness": "the rest of the harness",
               "python": "Python (no owner)"}


def report(results: dict[str, Any]) -> None:
    """Print every row of ``results`` and each target's verdict."""
    m = results["machine"]
    print(f"bench: Python {m['python']}, anthropic {m['anthropic']}, {m['cpus']} CPUs, load {m['load']}")
    print("times are per request; cpu = this process's CPU time (median of rounds), wall in brackets\n")
    pr = results["per_request"]
    print(f"one request  (reply {pr['reply_bytes']} B of SSE, request {pr['request_bytes']} B of JSON)")
    for name, s in pr["us"].items():
        r = pr["ratios"].get(name + "/a")
        tail = f"   {r['cpu_median']:.3f}× a" if r else ""
        print(f"  {name:22s} {s['cpu_median_us']:8.0f} µs  [{s['wall_median_us']:8.0f} µs wall]{tail}")
    print(f"  b/a = {pr['ratios']['b_harness_oracle/a']['cpu_median']:.3f}   c/a = {pr['ratios']['c_vcr_1/a']['cpu_median']:.3f}"
          f"   (a twin of a: {pr['ratios']['a_again/a']['cpu_median']:.3f}, the noise)")
    print(f"  b's own floor, the request parsed and checked and the reply rendered, nothing else: "
          f"{pr['ratios']['b_required_work/a']['cpu_median']:.3f}× a")
    a_cpu = pr["us"]["a_sdk_floor"]["cpu_median_us"]
    own = pr["harness_own_us"]["cpu_median_us"]
    print(f"  the harness's own work per request, timed alone: {own:.0f} µs = {own / a_cpu:.1%} of a")
    for count, s in results["sessions"].items():
        print(f"\nsession of {count} interactions (cassette {s['cassette_bytes'] / 1e6:.1f} MB, load included)")
        for name, t in s["us_per_request"].items():
            r = s["ratios_to_session_floor"].get(name)
            tail = f"   {t['cpu_median_us'] / a_cpu:.2f}× a" + (f"   {r['cpu_median']:.2f}× session floor" if r else "")
            print(f"  {name:22s} {t['cpu_median_us']:8.0f} µs  [{t['wall_median_us']:8.0f} µs wall]{tail}")
    _scenarios(results)
    _scale(results)
    print("\ntargets")
    for name, v in results["targets"].items():
        bound = (f" (the bound: {v['bound']})" if "bound" in v else f" (its floor: {v['floor']})" if "floor" in v
                 else f" (b/a {v['b_over_a']}; the run's noise {v['noise']})" if "b_over_a" in v
                 else f" (its ceiling, the agent and the harness free: {v['ceiling']})" if "ceiling" in v else "")
        print(f"  {'met ' if v['met'] else 'MISS'}  {name:28s} {v['target']:>8s}   measured {v['measured']}{bound}")
    print(f"\n(bench took {results['bench_seconds']:.0f} s)")


def _scenarios(results: dict[str, Any]) -> None:
    """The oracle, whole scenarios, the library, the property and the state machine."""
    o = results["oracle"]
    print("\noracle (check_history): " + ", ".join(
        f"{n} messages {o[n]['us_per_call']:.0f} µs = {o[n]['us_per_message']:.2f} µs/message" for n in ("10", "100", "1000")
    ) + f"; growth per message 1,000 vs 10: {o['growth_1000_over_10']:.2f}×")
    _long_session_and_start(results)
    t = results["ten_retries"]
    print(f"\nten retries at the cap: {t['requests']} requests, {t['virtual_seconds']:.0f} s virtual, "
          f"{t['ms']['wall_median']:.1f} ms wall (min {t['ms']['wall_min']:.1f}), {t['ms']['cpu_median']:.1f} ms CPU, "
          f"{'passed' if t['passed'] else 'FAILED: ' + '; '.join(t['problems'])}")
    d = results["one_scenario"]
    print(f"one scenario ({d['file']}, {d['requests']} requests): run {d['run_ms']['wall_median']:.1f} ms wall "
          f"({d['run_ms']['cpu_median']:.1f} ms CPU); load+run {d['load_and_run_ms']['wall_median']:.1f} ms wall")
    lib = results["library"]
    print(f"library: {lib['files']} files, {lib['passed']} passed, {lib['s']['wall_min']:.2f} s wall (min of runs), "
          f"{lib['s']['cpu_min']:.2f} s CPU; slowest: "
          + ", ".join(f"{name} {wall:.0f} ms" for wall, _, name in lib["slowest_ms_wall_cpu"][:3]))
    two = lib["two_workers"]
    print(f"  with --jobs 2: {two['s']['wall_min']:.2f} s wall (min of runs), "
          + ("the same results" if two["identical_results"] else "DIFFERENT RESULTS"))
    if lib["not_passed"]:
        print(f"  not passing: {', '.join(lib['not_passed'])}")
    p = results["property"]
    t = p["ms_per_example_cpu"]
    print(f"property ({p['strategy']} through run_and_record, {p['examples']} examples): "
          f"{p['examples_per_s_wall']:.0f} examples/s wall, {p['examples_per_s_cpu']:.0f}/s CPU "
          f"({t['generate']:.1f} ms generating + {t['run']:.1f} ms running each); "
          f"{p['examples_with_problems']} with problems")
    sdk, generate = p["sdk_alone_ms_per_example"], p["generate_only_ms_per_example"]
    print(f"  {p['requests_per_example']:.2f} requests an example; the SDK alone, sending them and reading the same "
          f"answers through a bare transport, needs {sdk:.1f} ms an example, hypothesis alone {generate:.1f} ms to "
          f"generate one (a run that does nothing): {sdk + generate:.1f} ms, a ceiling of "
          f"{1000 / (sdk + generate):.0f} examples/s with the agent and the harness free")
    s = results["state_machine"]
    print(f"state machine ({s['machine']}, {s['examples']} sessions of up to {s['steps_per_example']} steps, "
          f"{s['rounds']} rounds): {s['examples_per_s_cpu']:.1f} sessions/s CPU; hypothesis generating the same steps "
          f"alone {s['generation_only_examples_per_s']:.1f}/s: {s['over_generation_floor']:.2f}× its floor")
    print("  profiled, its time is " + ", ".join(f"{share:.0%} {OWNER_NAMES[owner]}" for owner, share in s["shares"].items()))


def _long_session_and_start(results: dict[str, Any]) -> None:
    """The long session checked request after request, and the commands' start."""
    s = results["long_session"]
    print(f"long session ({s['requests']} requests growing to {s['messages']} messages, each parsed from its bytes): "
          f"checked one after another {s['ms']['incremental']:.1f} ms in all, {s['incremental_over_last']:.2f}× its last request "
          f"checked once ({s['ms']['last_once']:.2f} ms; the floor, every message read once: {s['floor_over_last']:.1f}×); "
          f"of it the shared bytes compared {s['compare_over_last']:.2f}×; each request checked whole "
          f"{s['ms']['whole']:.0f} ms, {s['whole_over_last']:.0f}×; "
          + ("the same verdicts" if s["identical_verdicts"] else "DIFFERENT VERDICTS"))
    c = results["cli_start"]
    print(f"commands that need no SDK, wall (importing anthropic {c['import_anthropic_s']:.2f} s; each may take "
          f"{c['allowance_s']:.2f} s): " + ", ".join(
              f"{name} {seconds:.2f} s ({c['over_import'][name]:.2f}× the import)" for name, seconds in c["s"].items()))


def _scale(results: dict[str, Any]) -> None:
    """Big streams, the server under load, the wire checks, pytest's scale-out."""
    b = results["big_stream"]
    full, quarter = f"{b['megabytes']:g}mb", f"{b['megabytes'] / 4:g}mb"
    print(f"big stream ({b['megabytes']:g} MB of text in blocks of {b['block_bytes'] // 1000} kB, one streamed message, replayed in 64 KiB "
          f"reads): harness {b['ms'][f'harness_{full}']:.0f} ms CPU, the SDK's floor {b['ms'][f'floor_{full}']:.0f} ms: "
          f"{b['harness_over_floor']['cpu_median']:.2f}× the floor; per MB at {full[:-2]} MB over {quarter[:-2]} MB: "
          f"{b['growth_per_mb_full_over_quarter']:.2f}× (the floor's own: {b['floor_growth_per_mb_full_over_quarter']:.2f}×)")
    c = results["big_cassette"]
    print(f"big cassette ({c['file_mb']:g} MB on disk, one streamed answer of {c['body_mb']:g} MB in 64-character deltas): "
          f"loaded and replayed {c['ms']['harness']:.0f} ms CPU, the SDK's floor on its bytes {c['ms']['floor']:.0f} ms: "
          f"{c['harness_over_floor']['cpu_median']:.2f}× the floor; peak memory added {c['peak_mb']['harness']:.0f} MB, "
          f"{c['memory_over_file']:.2f}× the file (PyYAML composing it alone: {c['peak_mb']['compose']:.0f} MB, "
          f"{c['compose_memory_over_file']:.2f}×; the SDK on the bytes alone: {c['peak_mb']['floor']:.0f} MB)")
    v = results["serve"]
    print(f"serve: {v['clients']} keep-alive clients × {v['requests_each']} streamed requests: harness serve "
          f"{v['harness_rps']:.0f} requests/s, a bare http.server with the same bytes {v['bare_rps']:.0f}/s: "
          f"{v['harness_over_bare']:.2f}×")
    w = results["wire_checks"]
    print(f"wire checks: the library's {w['scenarios']} scenarios {w['run_s_cpu']:.2f} s CPU, of it the checks read from "
          f"the wire (oracle, invariants, expectations) {w['checks_s_cpu']:.3f} s: on over off {w['on_over_off']:.3f}×")
    t = results["pytest"]
    same = "identical results" if t["identical_results"] else f"DIFFERENT results: {t['differences']}"
    print(f"pytest on the library ({t['items']} items, the fastest of {t['rounds']} rounds): one worker {t['one_worker_s']:.1f} s, -n 2 {t['two_workers_s']:.1f} s "
          f"wall: a speed-up of {t['speedup']:.2f}×, {same}")
    print(f"  a worker's start-up (pytest, plugins, the SDK's import, collecting) {t['worker_start_up_s']:.1f} s; the items "
          f"{t['items_s']:.1f} s in all, the slowest {t['slowest_item_s']:.1f} s: two workers cannot beat "
          f"{t['speedup_bound']:.2f}× (start-up + the larger of the slowest item and half the items)")
