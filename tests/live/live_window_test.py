#!/usr/bin/python3
# Live-window tests: the real GLFW window of softmax-lab under Xvfb, driven with xdotool as a person
# would (clicks, a slider drag, key taps, Ctrl+S/Ctrl+Q, signals), checked by its pixels and files.
"""Usage: live_window_test.py BINARY [--keep DIR] [--only CHECK,...]

Starts its own Xvfb (a free display via -displayfd), gives every app run a fresh HOME in a
temporary folder, and prints one line per check: PASS/FAIL, the check's name and what it saw.
Exit status 0 when every check passed, 1 when one failed, 2 when the tools are missing.
Only Debian packages: xvfb, xdotool, imagemagick (import, convert, compare), python3.
Screen coordinates below are those of a 1400x800 window at font scale 1 (English, dark theme
unless said): the control column's widgets sit at fixed places there (see the captures with --keep).
"""

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

WIDTH, HEIGHT = 1400, 800
# The distribution plot (top left of the dashboard) and the whole plot area, window coordinates.
DISTRIBUTION = (390, 50, 318, 372)  # x, y, width, height
PLOTS = (390, 50, 1000, 740)
CONTROLS = (8, 8, 370, 780)
TOAST_STRIP = (390, 40, 1000, 80)  # just below the view tabs, where toasts appear
TOAST_OK = "rgb(51,166,77)"        # the border of a success toast (panels/toast.cpp: 0.2, 0.65, 0.3)
TOAST_ERROR = "rgb(230,64,51)"     # the border of an error toast (0.9, 0.25, 0.2)

# Where things are (English, dark, 1400x800, nothing scrolled).
TEMPERATURE_GRAB = (125, 121)
LESSON_START = (330, 507)
LESSONS_COMBO = (150, 507)
FILE_MENU, EXPORT_PNG_ITEM = (30, 20), (150, 135)
COLUMN_TOGGLE = (402, 20)  # the << button left of the view tabs
MENU_RIGHT = (240, 40, 130, 150)  # the right part of an open File menu (shortcuts), over plain labels
# The lesson panel of homework:1 (a typed question): the guess field and its Commit button (the
# lesson view: the text block at the top left, the column hidden).
GUESS_FIELD, GUESS_COMMIT = (117, 305), (284, 305)
LANGUAGE_COMBO, LANGUAGE_CHINESE = (120, 772), (60, 745)
# After switching to Chinese the column is one line shorter above the Look section.
THEME_COMBO_ZH, THEME_PROJECTOR_ZH = (120, 697), (60, 768)
NEUTRAL = (700, 600)  # over a plot: no slider under the mouse
SCORES_FIELD = (185, 368)

results = []


def log(message):
    print(message, flush=True)


def check(name, ok, detail):
    results.append((name, ok))
    log(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
    return ok


def run(args, timeout=20, check_rc=False):
    """Runs a tool; returns (rc, stdout, stderr). A tool that hangs counts as failed, never blocks."""
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "", f"{args[0]} timed out after {timeout} s"
    if check_rc and done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {done.stderr.strip()}")
    return done.returncode, done.stdout, done.stderr


class Xvfb:
    def __init__(self, tmp):
        read_end, write_end = os.pipe()
        self.process = subprocess.Popen(
            # -noreset: when its last client leaves, a resetting Xvfb writes its display number to
            # -displayfd again and dies if that pipe is closed.
            ["Xvfb", "-displayfd", str(write_end), "-noreset", "-screen", "0", "1600x900x24", "-nolisten", "tcp"],
            pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "xvfb.log"), "w"))
        os.close(write_end)
        # Xvfb writes the number, then a newline in a second write(): read up to the newline, or it
        # dies of the closed pipe.
        text, deadline = b"", time.time() + 30
        while not text.endswith(b"\n") and time.time() < deadline:
            ready, _, _ = select.select([read_end], [], [], max(deadline - time.time(), 0))
            chunk = os.read(read_end, 64) if ready else b""
            if not chunk:
                break
            text += chunk
        os.close(read_end)
        number = text.decode().strip() if text.endswith(b"\n") else ""
        if not number:
            self.stop()
            raise RuntimeError("Xvfb did not report a display within 30 s (see xvfb.log)")
        self.display = ":" + number

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


class App:
    """One run of softmax-lab in the window, with its own HOME."""

    def __init__(self, binary, display, home, captures, label, args=(), extra_env=None):
        self.captures, self.label, self.home = captures, label, home
        os.makedirs(home, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
        env.update(DISPLAY=display, HOME=home, MESA_DEBUG="1", XDG_RUNTIME_DIR=home)
        env.update(extra_env or {})
        self.env = env
        self.stderr_path = os.path.join(captures, f"{label}.stderr")
        self.process = subprocess.Popen([binary, "--size", f"{WIDTH}x{HEIGHT}", *args], env=env,
                                        stdout=subprocess.DEVNULL, stderr=open(self.stderr_path, "w"))
        self.window, self.x, self.y = None, 0, 0
        self.shots = 0

    def xdo(self, *args, timeout=20):
        return run(["xdotool", *args], timeout=timeout)

    def find_window(self, timeout=40):
        """The window's id once it is mapped; None if it never appears (or the app exited)."""
        deadline = time.time() + timeout
        while time.time() < deadline and self.process.poll() is None:
            rc, out, _ = run(["xdotool", "search", "--onlyvisible", "--pid", str(self.process.pid)], timeout=10)
            ids = out.split()
            if rc == 0 and ids:
                self.window = ids[-1]
                _, geometry, _ = self.xdo("getwindowgeometry", "--shell", self.window)
                values = dict(line.split("=", 1) for line in geometry.split() if "=" in line)
                self.x, self.y = int(values.get("X", 0)), int(values.get("Y", 0))
                self.xdo("windowfocus", "--sync", self.window, timeout=10)
                return self.window
            time.sleep(0.3)
        return None

    def capture(self, name):
        """The window's pixels as a PNG (import reads the root window: no window manager here)."""
        self.shots += 1
        path = os.path.join(self.captures, f"{self.label}-{self.shots:02d}-{name}.png")
        run(["import", "-window", "root", "-crop", f"{WIDTH}x{HEIGHT}+{self.x}+{self.y}", "+repage", path],
            timeout=30)
        return path

    def wait_until_drawn(self, timeout=40):
        """Captures until the distribution plot shows content; the last capture, or None."""
        deadline = time.time() + timeout
        while time.time() < deadline and self.process.poll() is None:
            path = self.capture("start")
            if os.path.exists(path) and colours(path, DISTRIBUTION) >= 40:
                return path
            time.sleep(0.5)
        return None

    def move(self, point):
        self.xdo("mousemove", "--sync", str(self.x + point[0]), str(self.y + point[1]))

    def click(self, point, settle=0.6):
        self.move(point)
        time.sleep(0.15)
        self.xdo("mousedown", "1")
        time.sleep(0.08)
        self.xdo("mouseup", "1")
        time.sleep(settle)

    def click_and_hold_still(self, point):
        """A click, then the mouse left where it is: returns the time of the release."""
        self.move(point)
        time.sleep(0.4)  # the window settles and sleeps before the click
        self.xdo("mousedown", "1")
        time.sleep(0.08)
        self.xdo("mouseup", "1")
        return time.time()

    def drag(self, start, end, steps=12):
        self.move(start)
        time.sleep(0.15)
        self.xdo("mousedown", "1")
        for step in range(1, steps + 1):
            t = step / steps
            self.move((round(start[0] + t * (end[0] - start[0])), round(start[1] + t * (end[1] - start[1]))))
            time.sleep(0.04)
        self.xdo("mouseup", "1")
        time.sleep(0.8)

    def press(self, *keys, hold=0.08, settle=0.6):
        """Keys pressed in order, held briefly, released in reverse (a chord such as ctrl+q)."""
        self.xdo("keydown", *keys)
        time.sleep(hold)
        self.xdo("keyup", *reversed(keys))
        time.sleep(settle)

    def quick_taps(self, key, count):
        """Press and release with almost no pause (xdotool waits 12 ms after each by default), as a
        presentation clicker does: without a key queue most of these land within one frame."""
        # 2 ms apart, not 0: GLFW drops a second press with the same X server timestamp (ms) as the
        # first (its XIM duplicate filter), which no clicker sends.
        self.xdo(*[word for _ in range(count) for word in ("keydown", "--delay", "2", key, "keyup", "--delay", "2", key)])

    def type_text(self, text):
        self.xdo("type", "--delay", "2", text)

    def save_session(self):
        """Ctrl+S, Enter: the session popup's default path; returns the JSON written, or None."""
        path = os.path.join(self.home, "softmax-lab-session.json")
        if os.path.exists(path):
            os.remove(path)
        self.press("ctrl", "s", settle=0.8)
        self.press("Return", settle=0.2)
        return wait_for_json(path)

    def wait_exit(self, timeout=20):
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stderr(self):
        with open(self.stderr_path, errors="replace") as file:
            return file.read()

    def cpu_seconds(self):
        with open(f"/proc/{self.process.pid}/stat") as file:
            fields = file.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def wait_for_json(path, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if os.path.exists(path):
            try:
                with open(path) as file:
                    return json.load(file)
            except (OSError, ValueError):
                pass  # not complete yet (it is written atomically, so only while absent)
        time.sleep(0.2)
    return None


def crop_args(region):
    x, y, w, h = region
    return ["-crop", f"{w}x{h}+{x}+{y}", "+repage"]


def colours(path, region):
    """Distinct colours in a region: a blank (cleared-only) frame has one or two."""
    rc, out, _ = run(["/usr/bin/convert", path, *crop_args(region), "-format", "%k", "info:"])
    return int(out) if rc == 0 and out.strip().isdigit() else 0


def brightness(path, region):
    rc, out, _ = run(["/usr/bin/convert", path, *crop_args(region), "-colorspace", "Gray", "-format", "%[fx:mean]",
                      "info:"])
    return float(out) if rc == 0 and out else -1.0


def changed_pixels(path_a, path_b, region):
    """Pixels that differ by more than 10% between two captures, inside a region."""
    a, b = path_a + ".crop.png", path_b + ".crop.png"
    run(["/usr/bin/convert", path_a, *crop_args(region), a])
    run(["/usr/bin/convert", path_b, *crop_args(region), b])
    _, _, err = run(["compare", "-metric", "AE", "-fuzz", "10%", a, b, "null:"])
    try:
        return int(float(err.split()[0]))
    except (IndexError, ValueError):
        return -1


def pixels_of(path, region, colour):
    """How many pixels of a region are (within 6%) the given colour."""
    rc, out, _ = run(["/usr/bin/convert", path, *crop_args(region), "-fuzz", "6%", "-fill", "black", "+opaque", colour,
                      "-fill", "white", "-opaque", colour, "-format", "%[fx:round(mean*w*h)]", "info:"])
    return int(out) if rc == 0 and out.strip().isdigit() else -1


def not_blank(path):
    """(ok, detail): the plots show content, not only the clear colour."""
    plot_colours, window_colours = colours(path, DISTRIBUTION), colours(path, (0, 0, WIDTH, HEIGHT))
    return plot_colours >= 40 and window_colours >= 200, f"{plot_colours} colours in the distribution plot, " \
                                                         f"{window_colours} in the window ({os.path.basename(path)})"


def gl_errors(app):
    return [line for line in app.stderr().splitlines() if "GL_INVALID" in line or "Mesa: User error" in line]


def scores_of(session):
    text = session.get("params", {}).get("scores", "") if session else ""
    return [float(value) for value in text.replace(" ", "").split(",") if value]


# [SECTION] Runs: each a fresh process, as a person starting the app again


def run_look_and_quit(binary, display, tmp, captures):
    """Plain start: drag, font size, language, theme, save (toast), F12, idle, Ctrl+Q (autosave)."""
    home = os.path.join(tmp, "home-a")
    app = App(binary, display, home, captures, "a")
    try:
        if not check("starts", app.find_window() is not None, f"window of pid {app.process.pid} mapped"):
            return None
        first = app.wait_until_drawn()
        ok, detail = not_blank(first) if first else (False, "never drew the plots within 40 s")
        if not check("first frame not blank", ok, detail):
            return None

        app.move(NEUTRAL)
        time.sleep(1.0)
        start_cpu = app.cpu_seconds()
        time.sleep(4.0)
        used = app.cpu_seconds() - start_cpu
        check("sleeps at rest", used < 0.4, f"{used:.2f} s of CPU in 4 s with nothing happening (allowed < 0.4)")

        before = app.capture("before-drag")
        app.drag(TEMPERATURE_GRAB, (TEMPERATURE_GRAB[0] - 95, TEMPERATURE_GRAB[1]))
        after = app.capture("after-drag")
        moved = changed_pixels(before, after, DISTRIBUTION)
        check("slider drag changes the plot", moved > 1500,
              f"{moved} pixels of the distribution plot changed after dragging the temperature slider")

        app.press("ctrl", "equal", settle=1.5)
        bigger = app.capture("ctrl-plus")
        ok, detail = not_blank(bigger)
        grew = changed_pixels(after, bigger, CONTROLS)
        check("Ctrl+= redraws a non-blank frame", ok and grew > 2000, f"{detail}; {grew} control-column pixels changed")
        app.press("ctrl", "minus", settle=1.5)
        ok, detail = not_blank(app.capture("ctrl-minus"))
        check("Ctrl+- redraws a non-blank frame", ok, detail)

        english = app.capture("english")
        app.click(LANGUAGE_COMBO)
        app.click(LANGUAGE_CHINESE, settle=1.5)
        app.move(NEUTRAL)
        time.sleep(0.5)
        chinese = app.capture("chinese")
        ok, detail = not_blank(chinese)
        switched = changed_pixels(english, chinese, CONTROLS)
        check("language 简体中文 redraws a non-blank frame", ok and switched > 3000,
              f"{detail}; {switched} control-column pixels changed")

        dark = brightness(chinese, PLOTS)
        app.click(THEME_COMBO_ZH)
        app.click(THEME_PROJECTOR_ZH, settle=1.5)
        app.move(NEUTRAL)
        time.sleep(0.5)
        projector = app.capture("projector")
        ok, detail = not_blank(projector)
        light = brightness(projector, PLOTS)
        check("projector theme redraws a non-blank frame", ok and dark < 0.35 and light > 0.6,
              f"{detail}; plot area brightness {dark:.2f} -> {light:.2f}")

        saved = app.save_session()
        toast = app.capture("toast")
        check("Ctrl+S saves the session", saved is not None and saved.get("lang") == "zh-CN" and
              saved.get("theme") == "projector" and float(saved["params"]["temperature"]) < 0.5,
              f"saved {json.dumps({k: saved.get(k) for k in ('lang', 'theme')}) if saved else None}, "
              f"temperature {saved['params']['temperature'] if saved else None}")
        shown = pixels_of(toast, TOAST_STRIP, TOAST_OK)
        time.sleep(5.5)
        faded = pixels_of(app.capture("toast-gone"), TOAST_STRIP, TOAST_OK)
        check("saving shows a toast at the top that fades", shown > 150 and faded == 0,
              f"{shown} toast-border pixels just after saving, {faded} 5.5 s later")

        shots = os.path.join(home, "Pictures", "softmax-lab")
        app.press("F12", settle=0.5)
        # The PNG is encoded and written on a thread of its own, the toast follows: wait for both.
        deadline, pngs, shown = time.time() + 15, [], 0
        while time.time() < deadline and (len(pngs) != 1 or shown <= 150):
            pngs = [name for name in os.listdir(shots)] if os.path.isdir(shots) else []
            shown = pixels_of(app.capture("f12-toast"), TOAST_STRIP, TOAST_OK) if pngs else 0
            time.sleep(0.2)
        check("F12 saves a PNG and says so in a toast", len(pngs) == 1 and shown > 150,
              f"{pngs} in {shots}; {shown} toast-border pixels")

        errors = gl_errors(app)
        check("no GL errors (MESA_DEBUG=1)", not errors, errors[0] if errors else "none on stderr")

        app.press("ctrl", "q", settle=0.2)
        code = app.wait_exit()
        autosave = wait_for_json(os.path.join(home, ".config", "softmax-lab", "session.json"), timeout=2)
        check("Ctrl+Q quits and saves the session", code == 0 and autosave is not None and
              autosave.get("params") == (saved or {}).get("params") and autosave.get("theme") == "projector",
              f"exit code {code}; autosave {'matches' if autosave and saved and autosave.get('params') == saved.get('params') else 'differs from'} the Ctrl+S session")
        return saved
    finally:
        app.kill()


def run_restore_and_sigterm(binary, display, tmp, captures, saved):
    """Plain start again: the autosave comes back; SIGTERM closes normally and saves."""
    home = os.path.join(tmp, "home-a")
    app = App(binary, display, home, captures, "b")
    try:
        if app.find_window() is None or app.wait_until_drawn() is None:
            return check("restores the session", False, "the window never drew")
        restored = app.save_session()
        check("restores the session", restored is not None and saved is not None and
              restored.get("params") == saved.get("params") and restored.get("lang") == "zh-CN",
              f"temperature {restored['params']['temperature'] if restored else None}, lang "
              f"{restored.get('lang') if restored else None}")
        autosave = os.path.join(home, ".config", "softmax-lab", "session.json")
        if os.path.lexists(autosave):
            os.remove(autosave)  # so only a save at exit can bring it back
        app.process.send_signal(signal.SIGTERM)
        code = app.wait_exit()
        written = wait_for_json(autosave, timeout=2)
        check("SIGTERM closes normally and saves the session",
              code == 0 and written is not None and written.get("params") == (restored or {}).get("params"),
              f"exit code {code}; session.json {'written' if written else 'missing'}")
    finally:
        app.kill()


def run_lesson(binary, display, tmp, captures):
    """Lesson Start shows step 1's data; five quick taps are five steps; Ctrl+C (SIGINT) saves."""
    home = os.path.join(tmp, "home-c")
    app = App(binary, display, home, captures, "c")
    try:
        if app.find_window() is None or app.wait_until_drawn() is None:
            return check("lesson Start opens step 1 with its data", False, "the window never drew")
        app.click(LESSON_START, settle=1.5)
        app.move(NEUTRAL)
        time.sleep(0.3)
        step_one = app.capture("lesson-step-1")
        session = app.save_session()
        lesson = (session or {}).get("lesson")
        check("lesson Start opens step 1 with its data",
              lesson == {"name": "why-softmax", "step": 1} and scores_of(session) == [1.0, 2.0, 3.0],
              f"lesson {lesson}, scores {scores_of(session)} ({os.path.basename(step_one)})")

        time.sleep(0.8)  # the save toast's frames
        app.quick_taps("Next", 5)  # PageDown, as a clicker sends it
        time.sleep(2.5)
        app.capture("lesson-after-taps")
        session = app.save_session()
        lesson = (session or {}).get("lesson")
        check("five quick PageDown taps are five steps", lesson == {"name": "why-softmax", "step": 6},
              f"lesson {lesson} after 5 taps from step 1")
        app.quick_taps("Prior", 2)
        time.sleep(2.0)

        app.process.send_signal(signal.SIGINT)
        code = app.wait_exit()
        autosave = wait_for_json(os.path.join(home, ".config", "softmax-lab", "session.json"), timeout=2)
        check("SIGINT (Ctrl+C) closes normally and saves the session",
              code == 0 and autosave is not None and autosave.get("lesson") == {"name": "why-softmax", "step": 4},
              f"exit code {code}; saved lesson {autosave.get('lesson') if autosave else None} (after 2 PageUp taps)")
    finally:
        app.kill()


def run_refused_autosave(binary, display, tmp, captures):
    """A garbage autosave behind a symlink: backed up, the user told, the link written through; a
    --set start then leaves the autosave alone."""
    home = os.path.join(tmp, "home-d")
    config = os.path.join(home, ".config", "softmax-lab")
    dotfiles = os.path.join(home, "dotfiles")
    os.makedirs(config)
    os.makedirs(dotfiles)
    target = os.path.join(dotfiles, "softmax-session.json")
    garbage = '{"version": 99, "params": "from a newer softmax-lab"}\n'
    with open(target, "w") as file:
        file.write(garbage)
    link = os.path.join(config, "session.json")
    os.symlink("../../dotfiles/softmax-session.json", link)

    app = App(binary, display, home, captures, "d")
    try:
        if app.find_window() is None or app.wait_until_drawn() is None:
            return check("a refused autosave is backed up and the user told", False, "the window never drew")
        shot = app.capture("refused-toast")
        backups = [name for name in os.listdir(config) if name.startswith("session.json.bad-")]
        kept = open(os.path.join(config, backups[0])).read() if len(backups) == 1 else None
        told = "not restoring the last session" in app.stderr()
        red = pixels_of(shot, TOAST_STRIP, TOAST_ERROR)
        check("a refused autosave is backed up and the user told", kept == garbage and told and red > 150,
              f"backups {backups}, content kept: {kept == garbage}, stderr says so: {told}, "
              f"{red} error-toast pixels")
        # Typing: characters and Backspace reach the field in the order they were typed.
        app.click(SCORES_FIELD, settle=0.3)
        app.type_text("1, 2, 5")
        app.press("BackSpace", hold=0.01, settle=0.0)
        app.type_text("4")
        app.press("Return", settle=0.8)
        app.press("ctrl", "q", settle=0.2)
        code = app.wait_exit()
        written = wait_for_json(target, timeout=2)
        check("typed scores keep their order with Backspace", scores_of(written) == [1.0, 2.0, 4.0],
              f"typed '1, 2, 5', Backspace, '4', Enter: the session has scores {scores_of(written)}")
        check("a symlinked session.json is written through", code == 0 and os.path.islink(link) and
              written is not None and written.get("version") == 1,
              f"exit code {code}; link kept: {os.path.islink(link)}; target now version "
              f"{written.get('version') if written else None}")
    finally:
        app.kill()

    with open(target, "rb") as file:
        before = file.read()
    app = App(binary, display, home, captures, "e", ["--set", "seq_len=64"])
    try:
        if app.find_window() is None or app.wait_until_drawn() is None:
            return check("a --set start leaves the autosave alone", False, "the window never drew")
        app.press("F11", settle=1.5)  # full screen: no close button, Ctrl+Q is the way out
        _, geometry, _ = app.xdo("getwindowgeometry", "--shell", app.window)
        size = dict(line.split("=", 1) for line in geometry.split() if "=" in line)
        full = (size.get("WIDTH"), size.get("HEIGHT")) == ("1600", "900")
        app.press("ctrl", "q", settle=0.2)
        code = app.wait_exit()
        check("Ctrl+Q quits from F11 full screen", full and code == 0,
              f"window {size.get('WIDTH')}x{size.get('HEIGHT')} after F11 (the screen is 1600x900), exit code {code}")
        with open(target, "rb") as file:
            after = file.read()
        check("a --set start leaves the autosave alone", code == 0 and after == before and b'"seq_len": "16"' in after
              and b'"scores": "1, 2, 4"' in after,
              f"exit code {code}; autosave {'unchanged' if after == before else 'replaced'}")
    finally:
        app.kill()


def run_drop(binary, display, tmp, captures):
    """A file dropped onto the live window (XDND, as a file manager sends it) is imported: the maps
    change to the file's data, the toast names the file, and the session remembers it."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        from xdnd_drop import drop_file
    except ImportError as error:  # python3-xlib missing: say so, as a failed check
        return check("a file dropped onto the window is imported", False, f"no XDND client: {error}")
    example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "assets", "examples", "qkv.npz")
    example = os.path.abspath(example)
    home = os.path.join(tmp, "home-e")
    app = App(binary, display, home, captures, "e", extra_env={"SMLAB_LOG_TOASTS": "1"})
    try:
        if app.find_window() is None or app.wait_until_drawn() is None:
            return check("a file dropped onto the window is imported", False, "the window never drew")
        app.move(NEUTRAL)
        time.sleep(0.5)
        before = app.capture("before-drop")
        accepted, finished, sent = drop_file(app.window, example, app.x + WIDTH // 2, app.y + HEIGHT // 2,
                                             display_name=display)
        time.sleep(2.0)  # the import, the new maps and the toast's first frames
        after = app.capture("after-drop")
        changed = changed_pixels(before, after, PLOTS)
        toast = pixels_of(after, TOAST_STRIP, TOAST_OK)
        said = [line for line in app.stderr().splitlines() if "toast:" in line]
        check("XDND: the window accepts the drop, asks for the file and finishes", accepted and sent and finished,
              f"XdndStatus accepted={accepted}, data requested={sent}, XdndFinished={finished}")
        check("a dropped qkv.npz changes the maps and the toast names the file",
              changed > 2000 and toast > 150 and any("qkv.npz" in line for line in said),
              f"{changed} plot pixels changed, {toast} toast-border pixels, toasts said {said}")
        session = app.save_session() or {}
        files = (session.get("import") or {}).get("files", [])
        check("the session remembers the dropped file", any(f.endswith("qkv.npz") for f in files),
              f"session import files {files}")
    finally:
        app.kill()


def run_click_acts_with_the_mouse_still(binary, display, tmp, captures):
    """A click acts, and its effect is drawn, with the mouse held still: File → Export
    PNG writes its file and shows its toast and the menu closes; a combo opens its list; the <<
    button hides the column. Before, each waited for the next mouse move. Then a resize."""
    home = os.path.join(tmp, "home-f")
    app = App(binary, display, home, captures, "f", extra_env={"SMLAB_LOG_TOASTS": "1"})
    try:
        if app.find_window() is None or app.wait_until_drawn() is None:
            return check("a click acts with the mouse still", False, "the window never drew")
        app.move(NEUTRAL)
        time.sleep(0.5)
        before = app.capture("before-menu")
        app.click_and_hold_still(FILE_MENU)
        time.sleep(0.4)
        opened = changed_pixels(before, app.capture("file-menu-open"), MENU_RIGHT)
        released = app.click_and_hold_still(EXPORT_PNG_ITEM)
        shots = os.path.join(home, "Pictures", "softmax-lab")
        written = None
        # The fault this catches is a click that acts only once the mouse moves: with the mouse still
        # the file would never come. How soon it comes is speed (bench/), not this check's business,
        # so it waits generously (a loaded 2-core CI machine took 2.4 s once).
        while time.time() - released < 15.0 and written is None:
            if os.path.isdir(shots) and any(name.endswith(".png") for name in os.listdir(shots)):
                written = time.time() - released
            time.sleep(0.02)
        time.sleep(0.3)
        after = app.capture("export-png-mouse-still")
        toast = pixels_of(after, TOAST_STRIP, TOAST_OK)
        menu_left = changed_pixels(before, after, MENU_RIGHT)
        check("File → Export PNG with the mouse still: file, toast, menu closed",
              opened > 1500 and written is not None and toast > 150 and menu_left < 300,
              f"menu opened ({opened} px changed); PNG after {written if written is None else round(written, 2)} s; "
              f"{toast} toast-border pixels; {menu_left} px of the menu's area still differ")

        app.move(NEUTRAL)
        time.sleep(0.5)
        before = app.capture("before-combo")
        app.click_and_hold_still(LESSONS_COMBO)
        time.sleep(0.4)
        listed = changed_pixels(before, app.capture("combo-open"), (20, 520, 280, 60))
        app.press("Escape", settle=0.4)
        check("a combo opens its list with the mouse still", listed > 1500,
              f"{listed} px below the Lessons combo changed 0.4 s after the click")

        app.move(NEUTRAL)
        time.sleep(0.3)
        app.move((NEUTRAL[0] + 5, NEUTRAL[1]))  # moves redraw: the picture before is the settled one
        time.sleep(0.5)
        before = app.capture("before-toggle")
        app.click_and_hold_still(COLUMN_TOGGLE)
        time.sleep(0.4)
        hidden = app.capture("column-hidden")
        gone = changed_pixels(before, hidden, CONTROLS)
        app.click_and_hold_still(FILE_MENU)  # the menus stay, at the top left
        time.sleep(0.4)
        app.move((700, 700))  # a move redraws whatever the click did, menu or column
        time.sleep(0.4)
        menu_open = app.capture("menu-with-column-hidden")
        strip_menu = changed_pixels(hidden, menu_open, (10, 40, 300, 150))
        # Below the menu the column must still be gone: there the picture differs from the one before.
        still_hidden = changed_pixels(before, menu_open, (10, 300, 350, 400))
        app.press("Escape", settle=0.3)
        check("the << button hides the column with the mouse still; the menus stay",
              gone > 20000 and strip_menu > 3000 and still_hidden > 8000,
              f"{gone} px of the column changed; the File menu drew {strip_menu} px with the column hidden, "
              f"{still_hidden} px below it differ from the column (few: the column came back)")

        app.xdo("windowsize", "--sync", app.window, "1024", "768")
        time.sleep(1.5)
        run(["import", "-window", "root", "-crop", f"1024x768+{app.x}+{app.y}", "+repage",
             os.path.join(captures, "f-resized.png")], timeout=30)
        resized = os.path.join(captures, "f-resized.png")
        colours_seen = colours(resized, (0, 0, 1024, 768))
        check("resized to 1024x768 it draws the new size", colours_seen >= 200,
              f"{colours_seen} colours in the 1024x768 capture")
    finally:
        app.kill()


def expected_position(presses, predict_steps, last_step):
    """Where a clicker's presses lead from step 1, unrevealed: each press reveals an unanswered
    question or moves on one step."""
    step, revealed = 1, False
    for _ in range(presses):
        if step in predict_steps and not revealed:
            revealed = True
        elif step < last_step:
            step, revealed = step + 1, False
    return step, revealed


def run_presenter_taps_and_typed_guess(binary, display, tmp, captures):
    """In presenter mode PageDown sometimes skipped steps to questions already answered
    (a press held past the key-repeat delay stepped again). Fast taps, a long press: one step or
    reveal each. Then, outside presenter mode, a typed guess committed by a click is the number typed."""
    home = os.path.join(tmp, "home-g")
    app = App(binary, display, home, captures, "g", ["--lesson", "homework:1", "--presenter"])
    try:
        if app.find_window() is None:
            return check("presenter mode: one PageDown, one step or reveal", False, "no window")
        time.sleep(3.0)
        app.move(NEUTRAL)
        time.sleep(0.3)
        every_step = set(range(1, 10))  # each homework step asks a question
        presses = 0
        for burst in (3, 2, 4):
            app.quick_taps("Next", burst)
            presses += burst
            time.sleep(0.6)
        app.press("Next", hold=0.6, settle=0.8)  # a clicker button held for 0.6 s: one press
        presses += 1
        app.capture("presenter-after-taps")
        session = app.save_session()
        lesson = (session or {}).get("lesson")
        step, _ = expected_position(presses, every_step, 9)
        check("presenter mode: fast PageDown taps and a long press are one step or reveal each",
              lesson == {"name": "homework", "step": step},
              f"{presses} presses from homework:1: expected step {step}, the session says {lesson}")
    finally:
        app.kill()

    app = App(binary, display, home, captures, "h", ["--lesson", "homework:1"], extra_env={"SMLAB_LOG_TOASTS": "1"})
    try:
        if app.find_window() is None or app.wait_until_drawn() is None:
            return check("a typed guess committed by a click is the number typed", False, "the window never drew")
        app.click(GUESS_FIELD, settle=0.3)
        app.type_text("0.665")
        time.sleep(0.3)
        app.click_and_hold_still(GUESS_COMMIT)
        time.sleep(1.0)
        app.capture("guess-committed")
        said = [line for line in app.stderr().splitlines() if "guess:" in line]
        check("a typed guess committed by a click is the number typed", said == ["softmax-lab: guess: 0.665 on homework:1"],
              f"typed 0.665, clicked Commit guess: stderr says {said}")
    finally:
        app.kill()


def run_two_windows_on_one_home(binary, display, tmp, captures):
    """Two windows on the same home silently overwrote each other's session. The second
    is told, and its exit leaves the first's session file alone."""
    home = os.path.join(tmp, "home-i")
    first = App(binary, display, home, captures, "i1")
    second = None
    try:
        if first.find_window() is None or first.wait_until_drawn() is None:
            return check("a second window on the same session file is told and leaves it alone", False, "no window")
        second = App(binary, display, home, captures, "i2", extra_env={"SMLAB_LOG_TOASTS": "1"})
        if second.find_window() is None or second.wait_until_drawn() is None:
            return check("a second window on the same session file is told and leaves it alone", False,
                         "the second window never drew")
        second.press("ctrl", "equal", settle=1.0)  # a change the second window would save
        second.press("ctrl", "q", settle=0.2)
        second_code = second.wait_exit()
        autosave = os.path.join(home, ".config", "softmax-lab", "session.json")
        after_second = os.path.exists(autosave)
        told = [line for line in second.stderr().splitlines() if "another Softmax Lab window" in line or "toast: Another" in line]
        first.press("ctrl", "q", settle=0.2)
        first_code = first.wait_exit()
        saved = wait_for_json(autosave, timeout=3)
        check("a second window on the same session file is told and leaves it alone",
              second_code == 0 and not after_second and len(told) >= 2 and first_code == 0 and saved is not None and
              float(saved.get("font_scale", 1)) == 1.0,
              f"second exited {second_code}, autosave after it: {after_second}, told: {len(told)} lines; first exited "
              f"{first_code}, its autosave font_scale {saved.get('font_scale') if saved else None}")
    finally:
        first.kill()
        if second is not None:
            second.kill()


def run_touch_the_plots(binary, display, tmp, captures):
    """The picture can be touched. Dragging key 5's bar of the distribution (window
    coordinates of a 1400x800 dashboard, its six plots at once: the bar at x = 528-538 from y = 341 (its top, under the
    argmax diamond) to 375 (weight 0), weight 1 at y = 84) up raises its weight through its score; Ctrl+Z takes the
    drag back."""
    import math
    home = os.path.join(tmp, "home-j")
    app = App(binary, display, home, captures, "j")
    try:
        if app.find_window() is None or app.wait_until_drawn() is None:
            return check("dragging a distribution bar sets its weight", False, "the window never drew")
        app.drag((533, 365), (533, 100), steps=10)  # key 5's bar (weight 0.116) up to about 0.9
        app.capture("bar-dragged")
        session = app.save_session() or {}
        scores = scores_of(session)
        weight = 0.0
        if len(scores) == 16:
            top = max(scores)
            exps = [math.exp(score - top) for score in scores]
            weight = exps[5] / sum(exps)
        time.sleep(0.5)
        app.press("ctrl", "z", settle=0.8)
        undone = scores_of(app.save_session() or {})
        check("dragging a distribution bar sets its weight through its score; one undo takes it back",
              len(scores) == 16 and weight > 0.7 and undone == [],
              f"scores after the drag {len(scores)} values, key 5's weight {weight:.3f}; after Ctrl+Z {undone}")
    finally:
        app.kill()


def run_chords_sent_at_once(binary, display, tmp, captures):
    """`xdotool key ctrl+z` sends Ctrl down, Z down, Ctrl up, Z up at once, as remote desktops and
    macro keys do: the Ctrl release often reached the letter's frame, and the chord was lost (a plain
    Z). Each chord acts once: four nudges of T undone one by one, one redone; Ctrl+B hides and shows
    the control column each time."""
    home = os.path.join(tmp, "home-k")
    hold = os.path.join(tmp, "release-autosave")
    app = App(binary, display, home, captures, "k", extra_env={"SMLAB_TEST_HOLD_AUTOSAVE_UNTIL": hold})
    try:
        if app.find_window() is None or app.wait_until_drawn() is None:
            return check("Ctrl+Z sent at once (xdotool key) undoes one step each time", False, "the window never drew")

        def temperature():
            saved = app.save_session()
            return float(saved["params"]["temperature"]) if saved else None

        shown = [temperature()]
        for _ in range(4):
            app.move(TEMPERATURE_GRAB)  # Right nudges the slider under the mouse: one undo step each
            time.sleep(0.3)
            app.xdo("key", "Right")
            time.sleep(0.5)
            app.move(NEUTRAL)
            shown.append(temperature())
        seen = []
        for _ in range(4):
            app.xdo("key", "ctrl+z")
            time.sleep(0.8)
            seen.append(temperature())
        app.xdo("key", "ctrl+y")
        time.sleep(0.8)
        redone = temperature()
        check("Ctrl+Z sent at once (xdotool key) undoes one step each time; Ctrl+Y redoes one",
              len(set(shown)) == 5 and seen == shown[3::-1] and redone == shown[1],
              f"T after each nudge {shown}; after each Ctrl+Z {seen} (expected {shown[3::-1]}); "
              f"after Ctrl+Y {redone} (expected {shown[1]})")

        toggled = []
        before = app.capture("column-shown")
        for press in range(4):
            app.xdo("key", "ctrl+b")
            time.sleep(0.8)
            now = app.capture(f"ctrl-b-{press + 1}")
            toggled.append(changed_pixels(before, now, CONTROLS))
        # Hidden after presses 1 and 3 (the column's area differs a lot), shown after 2 and 4.
        check("Ctrl+B sent at once hides and shows the control column each time",
              toggled[0] > 20000 and toggled[2] > 20000 and toggled[1] < 2000 and toggled[3] < 2000,
              f"control-column pixels changed from the shown column after each press: {toggled}")

        # Ctrl+Q: the window leaves the screen before the closing work (held here: the autosave
        # waits for the `hold` file), not after it.
        autosave = os.path.join(home, ".config", "softmax-lab", "session.json")
        os.remove(autosave) if os.path.exists(autosave) else None
        app.xdo("key", "ctrl+q")
        deadline, unmapped = time.time() + 15, False
        while time.time() < deadline and not unmapped and app.process.poll() is None:
            rc, out, _ = run(["xdotool", "search", "--onlyvisible", "--pid", str(app.process.pid)], timeout=10)
            unmapped = rc != 0 or not out.split()
            time.sleep(0.1)
        waiting = app.process.poll() is None and not os.path.exists(autosave)
        open(hold, "w").close()
        code = app.wait_exit()
        check("Ctrl+Q takes the window off the screen before saving the session, then saves and exits",
              unmapped and waiting and code == 0 and wait_for_json(autosave, timeout=2) is not None,
              f"window unmapped while the save was held: {unmapped and waiting}; exit code {code}; "
              f"session.json {'written' if os.path.exists(autosave) else 'missing'}")
    finally:
        app.kill()


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    binary = os.path.abspath(sys.argv[1])
    keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    missing = [tool for tool in ("Xvfb", "xdotool", "import", "compare") if shutil.which(tool) is None]
    if missing or not os.path.exists("/usr/bin/convert"):
        print(f"live_window_test: missing {missing or ['/usr/bin/convert']}: install xvfb, xdotool, imagemagick "
              "(third_party/install-deps.sh)")
        return 2
    # ctest's timeout sends SIGTERM: leave through the finally blocks (apps and Xvfb stopped).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
    tmp = tempfile.mkdtemp(prefix="smlab-live-")
    captures = keep or os.path.join(tmp, "captures")
    os.makedirs(captures, exist_ok=True)
    started = time.time()
    xvfb = None
    try:
        xvfb = Xvfb(tmp)
        os.environ["DISPLAY"] = xvfb.display  # for xdotool and import
        log(f"Xvfb on {xvfb.display}; captures in {captures}")
        if only is None or "look" in only or "restore" in only:
            saved = run_look_and_quit(binary, xvfb.display, tmp, captures)
            if only is None or "restore" in only:
                run_restore_and_sigterm(binary, xvfb.display, tmp, captures, saved)
        if only is None or "lesson" in only:
            run_lesson(binary, xvfb.display, tmp, captures)
        if only is None or "autosave" in only:
            run_refused_autosave(binary, xvfb.display, tmp, captures)
        if only is None or "drop" in only:
            run_drop(binary, xvfb.display, tmp, captures)
        if only is None or "click" in only:
            run_click_acts_with_the_mouse_still(binary, xvfb.display, tmp, captures)
        if only is None or "presenter" in only:
            run_presenter_taps_and_typed_guess(binary, xvfb.display, tmp, captures)
        if only is None or "touch" in only:
            run_touch_the_plots(binary, xvfb.display, tmp, captures)
        if only is None or "windows" in only:
            run_two_windows_on_one_home(binary, xvfb.display, tmp, captures)
        if only is None or "chords" in only:
            run_chords_sent_at_once(binary, xvfb.display, tmp, captures)
    finally:
        if xvfb is not None:
            xvfb.stop()
        if keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    failed = [name for name, ok in results if not ok]
    log(f"{len(results) - len(failed)} of {len(results)} checks passed in {time.time() - started:.0f} s")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
