"""What a run tells people: ``harness run`` (progress, the summary table, Ctrl+C), the
self-contained HTML report (``html``, ``svg``, ``style``), the fault-coverage matrix
(``coverage``), JUnit XML (``junit``) and the pytest side of the report
(``pytest_report``), all built from one plain record per scenario (``record``)."""
