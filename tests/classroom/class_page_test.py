#!/usr/bin/python3
# A class in real browsers: the teacher's app headless (--class-driver) hosts the web build's site,
# and three students open its join address in Debian's chromium (two laptops, one 390x844 phone with
# touch). Each joins from the QR code's address, one with a nickname. The teacher steps a lesson; every page follows without adding history entries; each
# student answers a predict step from the page's own answer form (the phone by a tap); the
# teacher's histogram counts them; the histograms and the reveal reach every page, which then shows
# the covered panel; a student who steps on alone is told the page is not following, stays where
# they are through the teacher's next change, and one tap follows again; a reload rejoins as the same
# student, on the current step, with the answer the teacher kept. The teacher's imported data reaches
# every page, and a slider over it does not fetch it again.
# Usage: class_page_test.py SITE_DIR SOFTMAX_LAB WORK_DIR
import csv
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "web"))
from browser_test import (browser, check, console_errors, emulate, npy_bytes, press, results,  # noqa: E402
                          session_params, touch, wait_for)
from class_driver import Teacher  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402


def applied(drivers, seq, what, timeout=30):
    """Waits until every page has applied the teacher's state `seq`; the slowest page's wait in ms."""
    started = time.time()
    for driver in drivers:
        wait_for(driver, f"return Number(document.body.dataset.classApplied || 0) >= {seq};", timeout,
                 f"{what} on a student's page")
    return (time.time() - started) * 1000


def query(driver):
    return driver.execute_script("return location.search;")


def question(driver):
    return json.loads(driver.execute_script(
        "return Module.ccall('smlab_class_question', 'string', ['number'], [page.app]);") or "null")


def tap_element(driver, selector):
    """A finger on the element's middle (DevTools touch events, as a phone's)."""
    box = driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return [r.left + r.width / 2, r.top + r.height / 2, r.bottom <= innerHeight && r.top >= 0];", selector)
    touch(driver, "touchStart", [(box[0], box[1])])
    time.sleep(0.1)
    touch(driver, "touchEnd", [])
    time.sleep(0.5)
    return box[2]


def main():
    site, binary, work = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    if not os.path.isfile(os.path.join(site, "index.html")):
        if not shutil.which("emcc", path="/usr/bin:" + os.environ.get("PATH", "")):
            print("class_page: SKIPPED: emcc is not installed, so there is no student site to open")
            return 77
        print(f"class_page: FAIL: no student site in {site} (ctest web_site builds it)")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    teacher = Teacher(binary, site, tempfile.mkdtemp(prefix="home-", dir=work))
    join = f"http://127.0.0.1:{teacher.port}/class?code={teacher.code}"
    students = []
    try:
        for name in ("laptop-a", "laptop-b", "phone"):
            profile = tempfile.mkdtemp(prefix=f"profile-{name}-", dir=work)
            students.append(browser(profile, work))
        laptop_a, laptop_b, phone = students
        emulate(phone, 390, 844, scale=1, touch=True)
        # Each student reads in their own language: laptop B asks for Chinese in its address.
        for driver, extra in zip(students, ("", "&lang=zh-CN", "")):
            driver.get(join + extra)
        for driver in students:
            wait_for(driver, "return document.body.dataset.ready === '1';", 180, "the page's runtime")
        # The QR code's address offers the optional nickname first, the code filled in: laptop A gives
        # one, the others just join (the phone with a tap).
        offered = [(d.find_element(By.ID, "class-join").is_displayed(),
                    d.find_element(By.ID, "class-code").get_attribute("value"),
                    d.execute_script("return document.activeElement.id;")) for d in students]
        check("a first visit offers the nickname, the join code filled in",
              all(shown and code == teacher.code and focus == "class-nick" for shown, code, focus in offered),
              f"(form shown, code, focus) {offered}; the code is {teacher.code}")
        laptop_a.find_element(By.ID, "class-nick").send_keys("Ada")
        laptop_a.find_element(By.CSS_SELECTOR, "#class-join button[type=submit]").click()
        laptop_b.find_element(By.CSS_SELECTOR, "#class-join button[type=submit]").click()
        tap_element(phone, "#class-join button[type=submit]")
        for driver in students:
            wait_for(driver, "return document.body.dataset.classJoined === '1';", 60, "the join")
        check("three students join with the code from the QR code's address",
              teacher.status("status")["students"] == 3, f"{teacher.status('status')['students']} students")
        entries = [d.execute_script("return history.length;") for d in students]

        # The teacher steps a lesson: every page follows, replacing its history entry.
        status = teacher.status("lesson why-softmax:2")
        waited = applied(students, status["state"]["seq"], "why-softmax:2")
        check("every page follows the teacher to a lesson step",
              all("lesson=why-softmax%3A2" in query(d) or "lesson=why-softmax:2" in query(d) for d in students),
              f"{[query(d) for d in students]}; the slowest page applied it {waited:.0f} ms after the teacher's frame")
        # why-softmax:2 holds the scores and T its text describes: another slider moves.
        status = teacher.status("set score_scale=0.5")
        applied(students, status["state"]["seq"], "score scale 0.5")
        check("a teacher's slider reaches every page", all("score_scale=0.5" in query(d) for d in students),
              f"{[query(d) for d in students]}")
        status = teacher.status("set temperature=0.5")
        applied(students, status["state"]["seq"], "T = 0.5 refused")
        check("a setting the step holds stays the step's on every page",
              not any("temperature=0.5" in query(d) for d in students), f"{[query(d) for d in students]}")
        status = teacher.status("lesson homework:4")
        applied(students, status["state"]["seq"], "homework:4")
        check("the teacher's changes add no history entry on a student's page",
              [d.execute_script("return history.length;") for d in students] == entries,
              f"history lengths {entries} → {[d.execute_script('return history.length;') for d in students]}")

        # Each student answers from the page's own form; the covered panel stays covered meanwhile.
        asked = [question(d) for d in students]
        check("every page asks the step's question, unrevealed, with its four choices",
              all(q and q["position"] == "homework:4" and not q["revealed"] and len(q["choices"]) == 4 for q in asked),
              f"{asked[0]}")
        words = [d.find_element(By.ID, "class-question").text for d in students]
        check("each page asks in its student's language, whatever the teacher's",
              words[0] == words[2] and words[1] != words[0] and any("\u4e00" <= c <= "\u9fff" for c in words[1]),
              f"{words}")
        laptop_a.find_element(By.CSS_SELECTOR, "#class-choices button[data-value='1']").click()
        laptop_b.find_element(By.CSS_SELECTOR, "#class-choices button[data-value='3']").click()
        on_screen = tap_element(phone, "#class-choices button[data-value='3']")
        check("the phone's choice buttons are on screen", on_screen, "the third choice's button is inside the viewport")
        for driver, answer in ((laptop_a, "1"), (laptop_b, "3"), (phone, "3")):
            wait_for(driver, f"return document.getElementById('class-answer').dataset.kept === '{answer}';", 30,
                     f"the answer {answer} kept")
        phone.save_screenshot(os.path.join(work, "phone-question.png"))
        status = teacher.status("status")
        check("the teacher's histogram counts each page's answer",
              status["answered"] == 3 and status["tallies"][0]["counts"] == [0, 1, 0, 2],
              f"{status['answered']} answered, counts {status['tallies'][0]['counts']}")
        check("no page reveals before the teacher", not any(question(d)["revealed"] for d in students),
              "smlab_class_question: revealed false on every page")
        teacher.say(f"csv {os.path.join(work, 'answers.csv')}")
        with open(os.path.join(work, "answers.csv"), encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        check("the answers' CSV names only the student who gave a nickname",
              sorted(r["nickname"] for r in rows) == ["", "", "Ada"] and
              [r["answer"] for r in rows if r["nickname"] == "Ada"] == ["1"], f"{rows}")

        # The histogram shown on every page; then the reveal with the truth marked.
        status = teacher.status("show")
        applied(students, status["state"]["seq"], "the histogram")
        rows = [d.execute_script("return document.querySelectorAll('#class-tallies .class-row').length;")
                for d in students]
        check("the histogram reaches every page when the teacher shows it", rows == [4, 4, 4], f"rows {rows}")
        status = teacher.status("reveal")
        applied(students, status["state"]["seq"], "the reveal")
        wait_for(laptop_b, "return document.querySelector('#class-tallies .class-row.truth') !== null;", 30,
                 "the truth marked")
        laptop_b.save_screenshot(os.path.join(work, "laptop-revealed.png"))
        phone.save_screenshot(os.path.join(work, "phone-revealed.png"))
        revealed = [question(d)["revealed"] for d in students]
        lines = [d.execute_script("return document.getElementById('class-state').textContent;") for d in students]
        check("the reveal reaches every page, the truth marked, beside the student's answer",
              all(revealed) and all("3" in line for line in lines), f"revealed {revealed}; lines {lines}")

        # A student steps on alone: the page says so, and does not follow until asked.
        # (The keys go to the canvas once it has the focus; a press before that is not the app's.)
        laptop_a.execute_script("document.getElementById('canvas').focus();")
        for _ in range(3):
            press(laptop_a, Keys.PAGE_DOWN, settle=0.5)
            try:
                wait_for(laptop_a, "return document.body.dataset.classFollowing === '0';", 5, "the page not following")
                break
            except TimeoutError:
                pass
        wait_for(laptop_a, "return document.body.dataset.classFollowing === '0';", 1, "the page not following")
        follow = laptop_a.find_element(By.ID, "class-follow")
        own = query(laptop_a)
        # The seed: homework:4 holds the scores, T and the score scale its question is about.
        status = teacher.status("set seed=7")
        applied(students, status["state"]["seq"], "seed 7")
        time.sleep(0.5)
        check("a student exploring keeps their own copy and is offered to follow",
              follow.is_displayed() and query(laptop_a) == own and "seed=7" in query(laptop_b),
              f"exploring: {query(laptop_a)}; following: {query(laptop_b)}")
        follow.click()
        wait_for(laptop_a, "return document.body.dataset.classFollowing === '1';", 20, "following again")
        check("one tap follows the teacher again", query(laptop_a) == query(phone) and not follow.is_displayed(),
              f"{query(laptop_a)} against {query(phone)}")

        # A typed answer on the phone: a real text field (the phone's keyboard opens), its range checked.
        status = teacher.status("lesson homework:1")
        applied(students, status["state"]["seq"], "homework:1")
        tap_element(phone, "#class-number")
        focused = phone.execute_script("return document.activeElement.id;")
        field = phone.find_element(By.ID, "class-number")
        field.send_keys("7")
        phone.find_element(By.ID, "class-send").click()
        time.sleep(1.0)
        refusal = phone.find_element(By.ID, "class-state").text
        field.clear()
        field.send_keys("0.665")
        tap_element(phone, "#class-send")
        wait_for(phone, "return document.getElementById('class-answer').dataset.kept === '0.665';", 30,
                 "the typed answer kept")
        check("a tap on the phone's answer field focuses a text input, and a typed answer out of range is "
              "refused in words while one in range is kept",
              focused == "class-number" and "7" in refusal and teacher.status("status")["tallies"][0]["answered"] == 1,
              f"focused {focused!r}; refusal {refusal!r}")

        # The teacher imports data: every page fetches it (with the join code) and shows the same data,
        # its tokens too; a slider over it reaches them without the files fetched again.
        data = os.path.join(work, "data")
        os.makedirs(data)
        for name, seed in (("q", 1), ("k", 2), ("v", 3)):
            with open(os.path.join(data, f"{name}.npy"), "wb") as f:
                f.write(npy_bytes(5, 4, seed))
        with open(os.path.join(data, "tokens.txt"), "w", encoding="utf-8") as f:
            f.write("the\ncat\n注意\nsat\n.\n")
        status = teacher.status("view dashboard")
        status = teacher.status(f"import {data}/q.npy {data}/k.npy {data}/v.npy tokens {data}/tokens.txt")
        shared = status["shared"]
        applied(students, status["state"]["seq"], "the teacher's data", timeout=60)
        seen = [(session_params(d).get("seq_len"), session_params(d).get("d_k"), query(d)) for d in students]
        check("the teacher's imported data (Q, K, V and tokens) reaches every page",
              len(shared) == 2 and all(L == "5" and dk == "4" and f"import={shared[0]}" in q and "tokens=" in q and
                                       "scores=" not in q for L, dk, q in seen), f"shared {shared}; pages {seen}")
        fetched = [d.execute_script("return performance.getEntriesByType('resource')"
                                    ".filter(e => e.name.includes('/class/data/')).length;") for d in students]
        status = teacher.status("set temperature=0.7")
        applied(students, status["state"]["seq"], "T = 0.7 over the data")
        refetched = [d.execute_script("return performance.getEntriesByType('resource')"
                                      ".filter(e => e.name.includes('/class/data/')).length;") for d in students]
        check("a slider over the data reaches every page without fetching the data again",
              all("0.7" in query(d) and session_params(d).get("seq_len") == "5" for d in students) and
              fetched == refetched == [2, 2, 2], f"data fetches {fetched} then {refetched}")
        status = teacher.status("lesson homework:6")
        applied(students, status["state"]["seq"], "homework:6")
        check("a lesson step after the data shows the lesson's own data again",
              all("import=" not in query(d) and session_params(d).get("seq_len") != "5" for d in students),
              f"{[query(d) for d in students]}")

        # A reload (a phone locked, a page reloaded) rejoins as the same student on the current step.
        status = teacher.status("lesson homework:6")
        applied(students, status["state"]["seq"], "homework:6")
        tap_element(phone, "#class-choices button[data-value='2']")
        wait_for(phone, "return document.getElementById('class-answer').dataset.kept === '2';", 30, "the answer 2 kept")
        phone.refresh()
        wait_for(phone, "return document.body.dataset.ready === '1';", 180, "the page's runtime after a reload")
        wait_for(phone, "return document.body.dataset.classJoined === '1';", 60, "the rejoin")
        wait_for(phone, "return document.getElementById('class-answer').dataset.kept === '2';", 30,
                 "the kept answer after a reload")
        status = teacher.status("status")
        check("a reload rejoins as the same student, on the current step, with its answer",
              status["students"] == 3 and ("homework%3A6" in query(phone) or "homework:6" in query(phone)),
              f"{status['students']} students; {query(phone)}; answer {question(phone)['answer']}")
        errors = [e for d in students for e in console_errors(d)]
        check("no console errors on the students' pages", not errors, f"{errors[:3]}")
    finally:
        for driver in students:
            driver.quit()
        try:
            teacher.status("quit")
        except (RuntimeError, BrokenPipeError, ValueError):
            pass
        teacher.process.kill()
    failed = [name for name, ok in results if not ok]
    print(f"{len(results) - len(failed)} of {len(results)} checks passed" + (f"; failed: {failed}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
