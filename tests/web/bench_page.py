#!/usr/bin/python3
# Frame and recompute times of the web page while its temperature slider is dragged, at L = 256 and
# 1024, beside the native build's `--bench-frames 120 --bench-key temperature` on the same machine.
# A measurement, not a test. Usage: bench_page.py SITE_DIR NATIVE_BINARY [WORK_DIR]
# (headless chromium renders WebGL with SwiftShader on the CPU, as the native build uses llvmpipe).
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_test as page  # noqa: E402

GRAB = page.TEMPERATURE_GRAB


def drag_back_and_forth(driver, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        page.drag(driver, GRAB, (GRAB[0] - 90, GRAB[1]), steps=30)
        page.drag(driver, (GRAB[0] - 90, GRAB[1]), GRAB, steps=30)


def main():
    site, native = sys.argv[1], sys.argv[2]
    work = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="bench-page-")
    os.makedirs(work, exist_ok=True)
    server, base = page.serve(site)
    driver = page.browser(tempfile.mkdtemp(prefix="profile-", dir=work), work)
    rows = []
    try:
        for seq_len in (256, 1024):
            page.open_page(driver, base + f"index.html?set=seq_len={seq_len}", settle=4.0)
            driver.execute_script("return Module.ccall('smlab_timing', 'string', [], []);")  # reset
            drag_back_and_forth(driver, 8.0)
            web = json.loads(driver.execute_script("return Module.ccall('smlab_timing', 'string', [], []);"))
            done = subprocess.run([native, "--bench-frames", "120", "--bench-key", "temperature", "--set",
                                   f"seq_len={seq_len}"], capture_output=True, text=True, timeout=300)
            rows.append({"L": seq_len, "web": web, "native": json.loads(done.stdout) if done.returncode == 0 else None})
            print(json.dumps(rows[-1]), flush=True)
    finally:
        driver.quit()
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
