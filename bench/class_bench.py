#!/usr/bin/python3
"""A lecture hall's numbers on loopback (docs/PERFORMANCE.md, "Hosting a class"): the headless
teacher (--class-driver) serving the web build's site to STUDENTS simulated students in one Python
process (python3-websockets), then
  - change to student: from the teacher's command to each student's receipt of the state it
    published, over CHANGES slider changes (p50, p95, max over every student and change);
  - first page loads: every student fetching the page's files at once, gzip'd as a browser asks
    (the time until the last student has all of them, and each student's p95);
  - the teacher's frames: --bench-frames' temperature drag (FRAMES frames) before anyone joins and
    with every student joined, each frame's change published to all of them (p50, p95, the ratio).
Not a test: it reports, it asserts nothing. With PIN=teacher the teacher's app runs on the first
core only and the students on the others; by default the students run on the last core and the
teacher wherever the system puts it; alike in both frame runs either way.
Usage: class_bench.py SOFTMAX_LAB SITE_DIR [STUDENTS] [CHANGES] [FRAMES]
"""
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import websockets

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "classroom"))
from class_driver import Teacher  # noqa: E402


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def student(port, code, arrivals, joined):
    socket = await websockets.connect(f"ws://127.0.0.1:{port}/class/ws", open_timeout=60, ping_interval=None,
                                      max_size=1 << 20)
    await socket.send(json.dumps({"t": "join", "code": code, "token": "", "nick": ""}))
    mine = {}
    arrivals.append(mine)
    joined.release()
    try:
        async for text in socket:
            message = json.loads(text)
            if message.get("t") == "state":
                mine.setdefault(message["seq"], time.monotonic())
    except websockets.ConnectionClosed:
        pass


def page_load(port):
    started = time.monotonic()
    for name in ("class", "page.js", "softmax-lab.js", "softmax-lab.wasm", "softmax-lab.data"):
        request = urllib.request.Request(f"http://127.0.0.1:{port}/{name}", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request, timeout=120) as response:
            response.read()
    return time.monotonic() - started


async def bench(binary, site, students, changes, frames):
    with tempfile.TemporaryDirectory(prefix="class-bench-") as home:
        cores = sorted(os.sched_getaffinity(0))
        alone_core = os.environ.get("PIN") == "teacher" and len(cores) > 1
        pin = (lambda: os.sched_setaffinity(0, {cores[0]})) if alone_core else None
        teacher = Teacher(binary, site, home, size="1280x720", language=None, stderr=None, preexec_fn=pin)
        if len(cores) > 1:
            os.sched_setaffinity(0, set(cores[1:]) if alone_core else {cores[-1]})
        alone = teacher.say(f"bench {frames}")["bench"]
        arrivals, joined = [], asyncio.Semaphore(0)
        tasks = [asyncio.create_task(student(teacher.port, teacher.code, arrivals, joined)) for _ in range(students)]
        for _ in range(students):
            await joined.acquire()
        await asyncio.sleep(1.0)
        loop = asyncio.get_running_loop()
        latencies = []
        for k in range(changes):
            sent = time.monotonic()
            reply = await loop.run_in_executor(None, teacher.say, f"set temperature={0.5 + 0.01 * k}")
            seq = reply["status"]["state"]["seq"]
            deadline = time.monotonic() + 10
            while any(seq not in mine for mine in arrivals) and time.monotonic() < deadline:
                await asyncio.sleep(0.002)
            latencies += [(mine[seq] - sent) * 1000 for mine in arrivals if seq in mine]
            await asyncio.sleep(0.1)
        missing = students * changes - len(latencies)
        hosting = (await loop.run_in_executor(None, teacher.say, f"bench {frames}"))["bench"]
        with ThreadPoolExecutor(max_workers=students) as pool:
            started = time.monotonic()
            loads = list(pool.map(page_load, [teacher.port] * students))
            whole = time.monotonic() - started
        sizes = sum(os.path.getsize(os.path.join(site, n + ".gz")) for n in
                    ("index.html", "page.js", "softmax-lab.js", "softmax-lab.wasm", "softmax-lab.data"))
        teacher.say("quit")
        teacher.process.wait(timeout=60)
        for task in tasks:
            task.cancel()
        print(json.dumps({
            "students": students, "changes": changes, "load_average": os.getloadavg()[0],
            "change_to_student_ms": {"p50": round(statistics.median(latencies), 1),
                                     "p95": round(percentile(latencies, 95), 1),
                                     "max": round(max(latencies), 1), "missing": missing},
            "teacher_frame_ms": {"alone_p50": alone["median_frame_ms"], "alone_p95": alone["p95_frame_ms"],
                                 "hosting_p50": hosting["median_frame_ms"], "hosting_p95": hosting["p95_frame_ms"],
                                 "p95_ratio": round(hosting["p95_frame_ms"] / alone["p95_frame_ms"], 2)},
            "first_page_loads": {"bytes_each": sizes, "all_done_s": round(whole, 2),
                                 "p95_s": round(percentile(loads, 95), 2)}}, indent=1))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    asyncio.run(bench(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 300,
                      int(sys.argv[4]) if len(sys.argv) > 4 else 40, int(sys.argv[5]) if len(sys.argv) > 5 else 400))
