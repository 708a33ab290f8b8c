#!/usr/bin/python3
# The web page in a real browser: Debian's chromium (headless, SwiftShader WebGL 2) driven by
# chromedriver + python3-selenium loads `make web`'s folder from a local server and checks that it
# renders, logs no errors, follows a slider drag, reopens a URL state with the native build's
# numbers, and shows a bad URL value as the command line's one-line error.
# Usage: browser_test.py SITE_DIR NATIVE_BINARY WORK_DIR
import csv
import functools
import http.server
import io
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

# The canvas is the page minus its 30 px file bar: 1400x800, the live-window test's layout, so its
# coordinates hold here too (English, dark theme, nothing scrolled).
CANVAS_W, CANVAS_H = 1400, 800
TEMPERATURE_GRAB = (125, 121)
DISTRIBUTION = (390, 50, 490, 360)  # x, y, width, height: the dashboard's top-left plot
FILE_MENU, EXPORT_PNG_ITEM, RECORD_GIF_ITEM = (33, 19), (150, 135), (108, 201)

results = []


def check(name, ok, detail):
    results.append((name, ok))
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)
    return ok


class Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript", ".data": "application/octet-stream"}

    def log_message(self, *args):
        pass


def serve(site):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def browser(profile, downloads):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--no-first-run", "--no-default-browser-check", "--disable-dev-shm-usage",
                     f"--user-data-dir={profile}", f"--window-size={CANVAS_W},{CANVAS_H + 30}",
                     "--force-device-scale-factor=1"]:
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    # The viewport exactly (headless window sizes include no browser frame, but be sure).
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": CANVAS_W, "height": CANVAS_H + 30, "deviceScaleFactor": 1, "mobile": False})
    # Downloads (the page's exports) land in `downloads` without asking.
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    return driver


def wait_for(driver, script, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.2)
    raise TimeoutError(f"{what} not within {timeout} s")


def open_page(driver, url, settle=3.0):
    driver.get(url)
    wait_for(driver, "return document.body.dataset.ready === '1'", 120, "the page's runtime")
    time.sleep(settle)  # frames: fonts, first snapshot, ImGui settling


def canvas_image(driver):
    size = driver.execute_script("const c = document.getElementById('canvas'); return [c.width, c.height];")
    page = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
    return page.crop((0, 0, size[0], size[1])), size


def colours(image, box=None):
    region = image.crop((box[0], box[1], box[0] + box[2], box[1] + box[3])) if box else image
    return len(set(region.getdata()))


def changed_pixels(a, b, box):
    x, y, w, h = box
    pa, pb = a.crop((x, y, x + w, y + h)).getdata(), b.crop((x, y, x + w, y + h)).getdata()
    return sum(1 for p, q in zip(pa, pb) if sum(abs(i - j) for i, j in zip(p, q)) > 30)


def console_errors(driver):
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def drag(driver, start, end, steps=12):
    actions = ActionBuilder(driver)
    pointer = actions.pointer_action
    pointer.move_to_location(*start)
    pointer.pause(0.2)
    pointer.pointer_down()
    pointer.pause(0.2)
    for step in range(1, steps + 1):
        x = start[0] + (end[0] - start[0]) * step / steps
        y = start[1] + (end[1] - start[1]) * step / steps
        pointer.move_to_location(int(x), int(y))
        pointer.pause(0.05)
    pointer.pause(0.2)
    pointer.pointer_up()
    actions.perform()


def click(driver, point):
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(*point).pause(0.2).pointer_down().pause(0.1).pointer_up()
    actions.perform()
    time.sleep(0.8)


def press(driver, key):
    ActionChains(driver).key_down(key).pause(0.1).key_up(key).perform()
    time.sleep(1.0)


def wait_for_files(directory, suffix, count, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        names = sorted(n for n in os.listdir(directory) if n.endswith(suffix))
        if len(names) >= count:
            time.sleep(0.5)
            return names
        time.sleep(0.25)
    return sorted(n for n in os.listdir(directory) if n.endswith(suffix))


def read_csv_rows(text):
    return list(csv.reader(io.StringIO(text)))


def compare_csv(name, web_text, native_text):
    """Same header and shape; every number equal within 1e-4 relative (+1e-6 absolute): the page's
    float32 kernels run 4-lane wasm SIMD where the native build runs AVX-512/AVX2 with another sum
    order, and its shortest-text printer may pick another notation. Text cells must be equal."""
    web_rows, native_rows = read_csv_rows(web_text), read_csv_rows(native_text)
    if len(web_rows) != len(native_rows):
        return False, f"{name}: {len(web_rows)} rows on the page, {len(native_rows)} native"
    numbers = 0
    for r, (w_row, n_row) in enumerate(zip(web_rows, native_rows)):
        if len(w_row) != len(n_row):
            return False, f"{name} row {r}: {len(w_row)} cells on the page, {len(n_row)} native"
        for c, (w, n) in enumerate(zip(w_row, n_row)):
            try:
                wv, nv = float(w), float(n)
            except ValueError:
                if w != n:
                    return False, f"{name} row {r} column {c}: '{w}' on the page, '{n}' native"
                continue
            numbers += 1
            if math.isnan(wv) and math.isnan(nv):
                continue
            if not abs(wv - nv) <= 1e-6 + 1e-4 * max(abs(wv), abs(nv)):
                return False, f"{name} row {r} column {c}: {w} on the page, {n} native"
    return True, f"{name}: {len(web_rows)} rows, {numbers} numbers agree"


def main():
    site, native, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    server, base = serve(site)
    profile = tempfile.mkdtemp(prefix="profile-", dir=work)
    downloads = os.path.join(work, "downloads")
    os.makedirs(downloads, exist_ok=True)
    driver = browser(profile, downloads)
    try:
        # 1. A plain start renders the dashboard, with no errors in the console.
        started = time.time()
        open_page(driver, base + "index.html")
        first, size = canvas_image(driver)
        first.save(os.path.join(work, "first.png"))
        check("canvas size", size == [CANVAS_W, CANVAS_H], f"canvas {size[0]}x{size[1]}")
        count = colours(first)
        check("renders", count > 500, f"{count} distinct colours on the canvas (blank or a flat page has < 10); "
              f"loaded and drawn in {time.time() - started:.1f} s")
        plot_colours = colours(first, DISTRIBUTION)
        check("plot drawn", plot_colours > 50, f"{plot_colours} colours in the distribution plot")
        errors = console_errors(driver)
        check("no console errors", not errors, f"{len(errors)} errors: {errors[:3]}")
        error_line = driver.find_element(By.ID, "error").text
        check("no error line", error_line == "", f"error bar: '{error_line}'")

        # 2. Dragging the temperature slider changes the plot.
        drag(driver, TEMPERATURE_GRAB, (TEMPERATURE_GRAB[0] - 95, TEMPERATURE_GRAB[1]))
        time.sleep(1.5)
        after, _ = canvas_image(driver)
        after.save(os.path.join(work, "after-drag.png"))
        moved = changed_pixels(first, after, DISTRIBUTION)
        check("slider drag changes the plot", moved > 1500, f"{moved} pixels of the distribution plot changed")
        url = driver.current_url
        check("URL follows the state", "temperature=" in url, f"address bar: {url[len(base):]}")

        # 2b. F12 saves a PNG of the window: the page hands it to the browser as a download.
        driver.execute_script("document.getElementById('canvas').focus();")
        press(driver, Keys.F12)
        pngs = wait_for_files(downloads, ".png", 1)
        if check("F12 downloads a PNG", len(pngs) == 1, f"downloads: {pngs}"):
            with Image.open(os.path.join(downloads, pngs[0])) as png:
                check("the PNG is the canvas", png.size == (CANVAS_W, CANVAS_H) and colours(png.convert("RGB")) > 500,
                      f"{png.size[0]}x{png.size[1]}, {colours(png.convert('RGB'))} colours")

        # File → Export PNG (an offscreen framebuffer in the page's WebGL context) and File → Record
        # GIF of the sweep (an offscreen App, one frame per page frame): downloads too.
        click(driver, FILE_MENU)
        click(driver, EXPORT_PNG_ITEM)
        pngs = wait_for_files(downloads, ".png", 2)
        check("Export PNG downloads a PNG", len(pngs) == 2, f"downloads: {pngs}")
        click(driver, FILE_MENU)
        click(driver, RECORD_GIF_ITEM)
        gifs = wait_for_files(downloads, ".gif", 1, timeout=120)
        if check("Record GIF downloads a GIF", len(gifs) == 1, f"downloads: {gifs}"):
            with Image.open(os.path.join(downloads, gifs[0])) as gif:
                check("the GIF is animated", gif.n_frames > 10, f"{gif.n_frames} frames of {gif.size[0]}x{gif.size[1]}")

        # 2c. The session is kept in the browser's storage: a plain reload reopens it.
        stored = driver.execute_script("return localStorage.getItem('softmax-lab-session');") or ""
        check("session in localStorage", '"temperature"' in stored, f"{len(stored)} characters stored")
        open_page(driver, base + "index.html")
        check("reload restores the session", "temperature=" in driver.current_url,
              f"address bar after a plain reload: {driver.current_url[len(base):]}")

        # 3. A URL state: the page's numbers against the native build's --export-csv of the same state.
        query = "view=scaling&set=d_k=256&set=scaled=false&set=seq_len=64&lesson=scaling:3"
        open_page(driver, base + "index.html?" + query)
        error_line = driver.find_element(By.ID, "error").text
        check("URL state accepted", error_line == "", f"error bar: '{error_line}'")
        web_csv = driver.execute_script("return smlabCsvTexts();")
        native_dir = os.path.join(work, "native-csv")
        done = subprocess.run([native, "--lesson", "scaling:3", "--view", "scaling", "--set", "d_k=256",
                               "--set", "scaled=false", "--set", "seq_len=64", "--export-csv", native_dir,
                               "--overwrite"], capture_output=True, text=True, timeout=120)
        if check("native export", done.returncode == 0, f"exit {done.returncode} {done.stderr.strip()[:200]}"):
            native_names = sorted(n for n in os.listdir(native_dir) if n.endswith(".csv"))
            check("same CSV files", sorted(web_csv) == native_names,
                  f"page {len(web_csv)} files, native {len(native_names)}: "
                  f"{sorted(set(web_csv) ^ set(native_names))[:5]} differ")
            for name in native_names:
                if name in web_csv:
                    with open(os.path.join(native_dir, name), encoding="utf-8") as native_file:
                        check(f"numbers of {name}", *compare_csv(name, web_csv[name], native_file.read()))
        shown, _ = canvas_image(driver)
        shown.save(os.path.join(work, "url-state.png"))
        # The clicker's PageDown steps the lesson; the URL follows.
        driver.execute_script("document.getElementById('canvas').focus();")
        press(driver, Keys.PAGE_DOWN)
        check("PageDown steps the lesson", "lesson=scaling:4" in driver.current_url,
              f"address bar: {driver.current_url[len(base):]}")
        # Ctrl+Q (File > Quit) cannot close a tab: the page must keep running (it used to stop its
        # main loop and freeze), save the session, and still step the lesson.
        ActionChains(driver).key_down(Keys.CONTROL).send_keys("q").key_up(Keys.CONTROL).perform()
        time.sleep(0.5)
        press(driver, Keys.PAGE_DOWN)  # step 4 is a predict step: the first press reveals it
        press(driver, Keys.PAGE_DOWN)
        check("the page runs on after Ctrl+Q", "lesson=scaling:5" in driver.current_url,
              f"address bar: {driver.current_url[len(base):]}")
        # The Export CSV button: one .zip holding the same files.
        driver.find_element(By.ID, "export-csv").click()
        zips = wait_for_files(downloads, ".zip", 1)
        if check("Export CSV downloads a zip", len(zips) == 1, f"downloads: {zips}"):
            with zipfile.ZipFile(os.path.join(downloads, zips[0])) as archive:
                bad = archive.testzip()
                names = sorted(archive.namelist())
                check("the zip holds the CSV files", bad is None and names == sorted(web_csv),
                      f"{len(names)} files, CRC {'ok' if bad is None else 'bad in ' + bad}")

        # 4. A bad URL value: the command line's one-line error, on the page.
        open_page(driver, base + "index.html?set=temperature=abc", settle=1.0)
        error_line = driver.find_element(By.ID, "error").text
        expected = subprocess.run([native, "--set", "temperature=abc", "--export-csv", os.path.join(work, "bad")],
                                  capture_output=True, text=True, timeout=60).stderr.strip()
        check("bad URL value shows the --set error", error_line == expected and "\n" not in error_line,
              f"page: '{error_line}'; command line: '{expected}'")
        errors = console_errors(driver)
        check("no console errors after the URL runs", not errors, f"{len(errors)} errors: {errors[:3]}")
    finally:
        driver.quit()
        server.shutdown()
    failed = [name for name, ok in results if not ok]
    print(f"{len(results) - len(failed)} of {len(results)} checks passed" + (f"; failed: {failed}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
