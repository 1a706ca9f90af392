# format/: the specification, its on-disk numbers, and the second reader
# written from the specification alone (itrace_spec_reader.py), which
# tests/e2e/spec_reader.sh compares with itrace-dump.
E2E_TESTS += tests/e2e/spec_reader.sh
