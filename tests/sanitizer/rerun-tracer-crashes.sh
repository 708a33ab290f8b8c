#!/usr/bin/env bash
# After a failed sanitized ctest run, in its build directory: LeakSanitizer's own stop-the-world
# tracer now and then crashes at process exit, after the test itself passed ("Tracer caught signal
# 11" then "LeakSanitizer has encountered a fatal error"; google/sanitizers#1353). The cause seen in
# this project's CI, a dynamic TLS block 16 bytes into a page, is avoided by the Makefile's
# intercept_tls_get_addr=0 (dtls_page_offset_test.cpp); this stays for any other cause.
# That is no finding about this code, so when EVERY failed test failed that way, those tests (and
# only those) run once more, under the same environment, and must pass. Any other failure fails.
set -euo pipefail
log=Testing/Temporary/LastTest.log
failed=Testing/Temporary/LastTestsFailed.log
if [[ ! -s $failed || ! -s $log ]]; then
  echo "sanitizer: no record of the failed tests in $PWD/Testing/Temporary" >&2
  exit 1
fi
while IFS= read -r line; do
  name=${line#*:}
  # This test's output: from its "N/M Testing: NAME" line to the next test's.
  output=$(awk -v name="$name" '/^[0-9]+\/[0-9]+ Testing: / { inside = (substr($0, index($0, "Testing: ") + 9) == name) } inside' "$log")
  if ! grep -q "^Tracer caught signal" <<<"$output" || ! grep -q "LeakSanitizer has encountered a fatal error" <<<"$output" ||
     ! grep -q "^\[  PASSED  \]" <<<"$output"; then
    echo "sanitizer: '$name' failed, and not by the tracer crash after passing: no rerun" >&2
    exit 1
  fi
done <"$failed"
echo "sanitizer: LeakSanitizer's tracer crashed after these passed; running them once more:"
sed 's/^/  /' "$failed"
exec ctest --rerun-failed --output-on-failure
