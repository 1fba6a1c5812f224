"""The reliability harness: transport faults, kills and resumes, a full disk, hostile content, canary
credentials and fuzzed receipts, each measured against the whole tool and summed up in one table.

Run it with ``make reliability`` (or ``.venv/bin/python -m benchmarks.reliability.run --seed 10``); the
table, the command and the failures it found are written to ``docs/reliability.md``. Not part of
``make test``: it measures, it asserts nothing.
"""
