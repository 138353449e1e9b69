"""The checks' helpers (checklib, check_commands) and the checks,
tests.checks.NN-name, run by tests/run.sh as python3 -m from the top."""
