#!/usr/bin/python3
# What a student sees of the page's speed, beside the native build on the same machine in the same
# run (both render on the CPU: chromium's SwiftShader, the native build's llvmpipe). A measurement,
# not a test. Prints one JSON line per measurement:
#   {"first_frame": …}  a cold cache over an emulated 10 Mbit/s link with 40 ms round trips
#                       (DevTools network emulation): milliseconds from navigation to the first frame
#                       that shows the computed plots, and the bytes sent
#   {"drag": …}         rounds alternating the page and the native build at L = 256 and 1024: the
#                       page's frames on screen (requestAnimationFrame intervals) while its temperature
#                       slider is dragged, its ticks (evaluation + frame, ms), and the native
#                       --bench-frames frame time with the same key moving; the load average before each
#   {"training_drag": …} the training view's first slider dragged 30 moves with the lab paused and
#                       with it training (rounds alternate): the drag's wall time, the frame intervals
#                       during it, and the training steps made meanwhile
#   {"control": …}      the same drag over a page with nothing but a WebGL canvas of the same size,
#                       cleared every frame: how often this browser misses a vsync by itself (the floor
#                       under the page's frame intervals), measured in each round beside the page's
# Usage: bench_page.py SITE_DIR NATIVE_BINARY [WORK_DIR] [ROUNDS]
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_test as page  # noqa: E402

GRAB = page.TEMPERATURE_GRAB


def load_average():
    with open("/proc/loadavg", encoding="ascii") as handle:
        return float(handle.read().split()[0])


def drag_back_and_forth(driver, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        page.drag(driver, GRAB, (GRAB[0] - 90, GRAB[1]), steps=30)
        page.drag(driver, (GRAB[0] - 90, GRAB[1]), GRAB, steps=30)


def first_frame(site, work):
    server, base = page.serve(site)
    driver = page.browser(tempfile.mkdtemp(prefix="profile-", dir=work), work)
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 40, "downloadThroughput": 10e6 / 8, "uploadThroughput": 10e6 / 8})
        driver.get(base + "index.html")
        page.wait_for(driver, "return document.body.dataset.firstFrame !== undefined", 120, "the first frame")
        shown = float(driver.execute_script("return document.body.dataset.firstFrame;"))
        sent = driver.execute_script("return performance.getEntriesByType('resource').reduce("
                                     "(sum, e) => sum + e.transferSize, 0) + "
                                     "performance.getEntriesByType('navigation')[0].transferSize;")
        return {"first_frame": {"ms": round(shown), "bytes_sent": sent, "link": "10 Mbit/s, 40 ms",
                                "load": load_average()}}
    finally:
        driver.quit()
        server.shutdown()


def frame_intervals(driver):
    """The frames counted since page.count_frames: how many, the median and p95 interval (ms), and
    how many intervals were over 25 ms (a missed vsync at 60 Hz)."""
    gaps, frames = page.frame_gaps(driver)
    gaps.sort()
    return {"count": frames, "median": round(statistics.median(gaps), 2),
            "p95": round(gaps[min(len(gaps) - 1, len(gaps) * 95 // 100)], 2),
            "over_25ms": sum(1 for gap in gaps if gap > 25.0)}


def page_drag(driver, base, seq_len):
    page.open_page(driver, base + f"index.html?set=seq_len={seq_len}", settle=4.0)
    driver.execute_script("return Module.ccall('smlab_timing', 'string', ['number'], [page.app]);")  # reset
    page.count_frames(driver)
    drag_back_and_forth(driver, 8.0)
    intervals = frame_intervals(driver)
    ticks = json.loads(driver.execute_script("return Module.ccall('smlab_timing', 'string', ['number'], [page.app]);"))
    return {"frame_interval_ms": intervals,
            "tick_ms": ticks["tick_ms"], "evaluate_ms": ticks["evaluate_ms"], "frame_ms": ticks["frame_ms"],
            "recompute_ms": ticks["recompute_ms"]}


def timing(driver):
    return json.loads(driver.execute_script("return Module.ccall('smlab_timing', 'string', ['number'], [page.app]);"))


def training_drag(driver, base, training):
    page.open_page(driver, base + "index.html?view=training&set=train_steps=100000", settle=2.0)
    if training:
        page.click(driver, (100, 45))  # the column's title: the keys go to the canvas
        page.press(driver, page.Keys.SPACE, settle=2.0)  # Train
    before = timing(driver)  # also resets the tick statistics
    page.count_frames(driver)
    started = time.time()
    page.drag(driver, GRAB, (GRAB[0] - 90, GRAB[1]), steps=30)
    took = time.time() - started
    intervals = frame_intervals(driver)
    after = timing(driver)
    return {"training": training, "drag_s": round(took, 2), "frame_interval_ms": intervals,
            "tick_ms": after["tick_ms"], "train_ms": after["train_ms"],
            "train_steps": [before.get("train_steps", 0), after.get("train_steps", 0)]}


# A canvas of the page's size, cleared to a new colour each requestAnimationFrame, listening to the
# pointer as the page does: the browser's own share of the frame intervals.
CONTROL_PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}</style></head><body>
<canvas id="canvas" width="%d" height="%d"></canvas><script>
const gl = document.getElementById('canvas').getContext('webgl2');
let x = 0;
document.getElementById('canvas').addEventListener('pointermove', e => { x = e.clientX; });
const draw = () => { gl.clearColor((x %% 256) / 255, 0.1, 0.2, 1); gl.clear(gl.COLOR_BUFFER_BIT);
                     requestAnimationFrame(draw); };
requestAnimationFrame(draw);
</script></body></html>"""


def control_drag(driver, work):
    control = os.path.join(work, "control.html")
    with open(control, "w", encoding="utf-8") as handle:
        handle.write(CONTROL_PAGE % (page.CANVAS_W, page.CANVAS_H))
    driver.get("file://" + control)
    time.sleep(2.0)
    page.count_frames(driver)
    drag_back_and_forth(driver, 8.0)
    return {"frame_interval_ms": frame_intervals(driver)}


def native_frames(native, seq_len):
    done = subprocess.run([native, "--bench-frames", "120", "--bench-key", "temperature", "--set",
                           f"seq_len={seq_len}"], capture_output=True, text=True, timeout=300)
    return json.loads(done.stdout) if done.returncode == 0 else None


def main():
    site, native = sys.argv[1], sys.argv[2]
    work = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="bench-page-")
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    os.makedirs(work, exist_ok=True)
    print(json.dumps(first_frame(site, work)), flush=True)
    server, base = page.serve(site)
    driver = page.browser(tempfile.mkdtemp(prefix="profile-", dir=work), work)
    try:
        for round_index in range(rounds):
            for training in (False, True):
                print(json.dumps({"training_drag": {"round": round_index + 1, "load_before": load_average(),
                                                    **training_drag(driver, base, training)}}), flush=True)
        for round_index in range(rounds):
            print(json.dumps({"control": {"round": round_index + 1, "load_before": load_average(),
                                          **control_drag(driver, work)}}), flush=True)
            for seq_len in (256, 1024):
                row = {"round": round_index + 1, "L": seq_len}
                row["load_before_page"] = load_average()
                row["page"] = page_drag(driver, base, seq_len)
                row["load_before_native"] = load_average()
                row["native"] = native_frames(native, seq_len)
                if row["native"]:
                    native_ms = row["native"].get("median_frame_ms")
                    if native_ms:
                        row["page_over_native"] = round(row["page"]["frame_interval_ms"]["median"] / native_ms, 2)
                print(json.dumps({"drag": row}), flush=True)
    finally:
        driver.quit()
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
