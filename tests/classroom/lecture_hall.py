#!/usr/bin/env python3
"""A lecture hall on loopback: the teacher's app headless (--class-driver) and hundreds of simulated
students (python3-websockets). It counts, not times: every state change the teacher makes reaches
every student, a whole hall's answers sent at once are all counted in the teacher's histogram, the
second vote and the reveal reach every page with the truth marked, a reconnect is the same student,
the answers' CSV has one row per answer, and after quit nothing listens on the port. The class
saved in a session and opened in a new teacher's app is the same class: its code, port, histograms
and answers, and each student who reconnects is the student they were.

Usage: lecture_hall.py SOFTMAX_LAB [STUDENTS]   (exit 77: python3-websockets is missing)
"""
import asyncio
import csv
import json
import os
import socket
import sys
import tempfile

from class_driver import Teacher

try:
    import websockets
except ImportError:
    print("lecture_hall: SKIP: python3-websockets is missing (third_party/install-deps.sh --test)")
    sys.exit(77)

# A change must reach every student within this; a loaded CI machine with 300 clients in one Python
# process takes well under a second, so 30 s only separates "arrives" from "never arrives".
ARRIVAL_LIMIT_S = 30.0


def fail(message):
    print("lecture_hall: FAIL: " + message, flush=True)
    sys.exit(1)


async def say(teacher, command):
    """The teacher's reply to `command`, read beside the students' event loop."""
    return await asyncio.get_running_loop().run_in_executor(None, teacher.say, command)


HOSTILE_NICK = '=HYPERLINK("http://x.io","x")'


class Student:
    def __init__(self, number):
        self.number = number
        # One student's nickname is a spreadsheet formula: the CSV must keep it text.
        self.nick = HOSTILE_NICK if number == 1 else ""
        self.socket = None
        self.token = ""
        self.state = None
        self.seq = 0
        self.kept = {}      # vote -> the answer the teacher kept
        self.refused = []   # why answers were not kept
        self.task = None

    async def join(self, port, code):
        self.socket = await websockets.connect(f"ws://127.0.0.1:{port}/class/ws", max_size=1 << 20,
                                               open_timeout=30, ping_interval=None)
        await self.socket.send(json.dumps({"t": "join", "code": code, "token": self.token, "nick": self.nick}))
        welcome = json.loads(await asyncio.wait_for(self.socket.recv(), 30))
        if welcome.get("t") != "welcome":
            fail(f"student {self.number} was not welcomed: {welcome}")
        self.token = welcome["token"]
        self.task = asyncio.create_task(self.listen())

    async def listen(self):
        try:
            async for text in self.socket:
                message = json.loads(text)
                if message["t"] == "state":
                    if message["seq"] < self.seq:
                        fail(f"student {self.number} got state {message['seq']} after {self.seq}")
                    self.seq, self.state = message["seq"], message
                elif message["t"] == "answer":
                    if message["kept"]:
                        self.kept[message["vote"]] = message["answer"]
                    else:
                        self.refused.append(message["why"])
        except websockets.ConnectionClosed:
            pass

    async def answer(self, vote, answer):
        await self.socket.send(json.dumps({"t": "answer", "vote": vote, "answer": answer}))

    async def leave(self):
        await self.socket.close()
        await self.task


async def everyone_sees(students, what, check):
    """Waits until check(student) holds for every student; fails naming how many never got there."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + ARRIVAL_LIMIT_S
    while True:
        behind = [s for s in students if not check(s)]
        if not behind:
            return
        if loop.time() > deadline:
            fail(f"{len(behind)} of {len(students)} students never saw {what} (first: student {behind[0].number}, "
                 f"seq {behind[0].seq}, state {json.dumps(behind[0].state)[:300]})")
        await asyncio.sleep(0.02)


async def change(teacher, students, command):
    """One change by the teacher; every student must get the state published for it."""
    reply = await say(teacher, command)
    seq = reply["status"]["state"]["seq"]
    await everyone_sees(students, f"'{command}' (state {seq})", lambda s: s.seq >= seq)
    return reply["status"]


async def hall(binary, count, site):
    with open(os.path.join(site, "index.html"), "w") as page:
        page.write("<!doctype html><title>class</title>")
    teacher = Teacher(binary, site, os.path.join(site, "home"))
    students = [Student(k) for k in range(count)]
    await asyncio.gather(*(s.join(teacher.port, teacher.code) for s in students))
    status = (await say(teacher, "status"))["status"]
    if status["students"] != count:
        fail(f"the teacher counts {status['students']} students, {count} joined")
    await everyone_sees(students, "the first state", lambda s: s.state is not None)

    # Settings, a view and a lesson's steps: each change reaches every page as the page's address.
    await change(teacher, students, "set temperature=2.5")
    if not all("T=2.5" in s.state["query"] or "temperature=2.5" in s.state["query"] for s in students):
        fail(f"a student's state lacks the temperature: {students[0].state['query']}")
    await change(teacher, students, "view scaling")
    await change(teacher, students, "lesson why-softmax:2")
    await change(teacher, students, "next")

    # A predict step with four choices: the whole hall answers at once.
    status = await change(teacher, students, "lesson homework:4")
    question = status["state"]["question"]
    if question != {"position": "homework:4", "vote": 1, "open": True}:
        fail(f"homework:4 asks {question}")
    await asyncio.gather(*(s.answer(1, f"homework:4:{s.number % 4}") for s in students))
    await everyone_sees(students, "their first answer kept", lambda s: 1 in s.kept)
    status = (await say(teacher, "status"))["status"]
    expected = [sum(1 for s in students if s.number % 4 == k) for k in range(4)]
    if status["answered"] != count or status["tallies"][0]["counts"] != expected:
        fail(f"the teacher counted {status['answered']} answers {status['tallies'][0]['counts']}, sent {expected}")
    if any(s.kept[1] != f"homework:4:{s.number % 4}" for s in students):
        fail("a student's kept answer is not the one sent")

    # Histograms shown, answering closed: a late answer is refused and changes nothing.
    status = await change(teacher, students, "show")
    await everyone_sees(students, "the histogram", lambda s: s.state.get("tallies", [{}])[0].get("counts") == expected)
    await change(teacher, students, "close")
    await students[0].answer(1, "homework:4:3")
    await everyone_sees(students[:1], "the refusal of a late answer", lambda s: "closed" in s.refused)
    if (await say(teacher, "status"))["status"]["tallies"][0]["counts"] != expected:
        fail("an answer after closing was counted")

    # A student drops (Wi-Fi, a locked phone) and comes back with the same token: the same student.
    dropped = students[7]
    await dropped.leave()
    dropped.kept.clear()
    await dropped.join(teacher.port, teacher.code)
    await everyone_sees([dropped], "the state and its kept answer after a reconnect",
                        lambda s: s.state is not None and s.kept.get(1) == "homework:4:3")
    if (await say(teacher, "status"))["status"]["students"] != count:
        fail("a reconnect counted as a new student")

    # The second vote after discussion: everyone moves to choice 3; both histograms side by side.
    await change(teacher, students, "vote2")
    await asyncio.gather(*(s.answer(2, "homework:4:3") for s in students))
    await everyone_sees(students, "their second answer kept", lambda s: 2 in s.kept)
    status = await change(teacher, students, "reveal")
    tallies = status["tallies"]
    if [t["counts"] for t in tallies] != [expected, [0, 0, 0, count]]:
        fail(f"the two votes are {[t['counts'] for t in tallies]}")
    if status["truth"] != "3" or any(t["truth"] != 3 for t in tallies):
        fail(f"the reveal marks {status['truth']!r}, {[t['truth'] for t in tallies]}; the truth is 3")
    await everyone_sees(students, "the reveal with the truth marked",
                        lambda s: s.state.get("revealed") == "homework:4" and s.state.get("truth") == "3"
                        and [t.get("truth") for t in s.state.get("tallies", [])] == [3, 3])

    # After class: one CSV row per answer kept, a name only where one was given.
    answers = os.path.join(site, "answers.csv")
    await say(teacher, "csv " + answers)
    with open(answers, newline="") as file:
        rows = list(csv.DictReader(file))
    if len(rows) != 2 * count or {r["step"] for r in rows} != {"homework:4"}:
        fail(f"the CSV has {len(rows)} rows for {2 * count} answers")
    named = [r["nickname"] for r in rows if r["nickname"]]
    if named != ["'" + HOSTILE_NICK] * 2:
        fail(f"the CSV's nicknames are {named}: only student 1's, once a vote, after an apostrophe "
             "(a spreadsheet must not run it)")
    if sorted(r["answer"] for r in rows if r["vote"] == "1") != sorted(str(s.number % 4) for s in students):
        fail("the CSV's first-vote answers are not the ones sent")

    # The class kept in a session: saved, the teacher's app closed, then the session opened in a new
    # one, which hosts that class again: its code and port, its answers and histograms, and every
    # student who reconnects with their token is the same student (their own answer comes back).
    session = os.path.join(site, "class-session.json")
    await say(teacher, "save " + session)
    before = (await say(teacher, "status"))["status"]
    await quit_teacher(teacher, students)
    second = Teacher(binary, site, os.path.join(site, "home-2"))
    again = (await say(second, "open " + session))["status"]
    if (again["code"], again["port"]) != (teacher.code, teacher.port):
        fail(f"the reopened class is at port {again['port']} with code {again['code']}, "
             f"not {teacher.port} and {teacher.code}")
    if (again["question"], again["vote"], again["phase"], again["tallies"]) != \
            (before["question"], before["vote"], before["phase"], before["tallies"]):
        fail(f"the reopened class's question is {again['question']} vote {again['vote']} {again['phase']} "
             f"{[t['counts'] for t in again['tallies']]}; it was {before['question']} vote {before['vote']} "
             f"{before['phase']} {[t['counts'] for t in before['tallies']]}")
    for s in students:
        s.kept.clear()
        s.seq = 0  # a new teacher's app counts its states from 1
    await asyncio.gather(*(s.join(teacher.port, teacher.code) for s in students))
    await everyone_sees(students, "their own second answer after the class reopened",
                        lambda s: s.kept.get(2) == "homework:4:3")
    await say(second, "csv " + answers)
    with open(answers, newline="") as file:
        reopened_rows = list(csv.DictReader(file))
    if (await say(second, "status"))["status"]["students"] != count or reopened_rows != rows:
        fail(f"after reopening, {len(reopened_rows)} answers in the CSV (were {len(rows)}): the reconnected "
             "students are not the students they were")
    await quit_teacher(second, students)
    print(f"lecture_hall: PASS: {count} students, {len(rows)} answers, every change reached every student; "
          "the class saved in a session and reopened with its students and answers")


async def quit_teacher(teacher, students):
    """Quits the teacher's app: it exits cleanly, every student's channel ends and the port is free."""
    await say(teacher, "quit")
    teacher.process.wait(timeout=60)
    if teacher.process.returncode != 0:
        fail(f"the teacher's app exited with {teacher.process.returncode}: {teacher.process.stderr.read()[-2000:]}")
    await asyncio.gather(*(s.task for s in students))
    probe = socket.socket()
    if probe.connect_ex(("127.0.0.1", teacher.port)) == 0:
        fail(f"port {teacher.port} still listens after the teacher quit")
    probe.close()


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    with tempfile.TemporaryDirectory(prefix="smlab-hall-") as site:
        try:
            asyncio.run(hall(sys.argv[1], count, site))
        except RuntimeError as error:  # the teacher ended or refused a command
            fail(str(error))


if __name__ == "__main__":
    main()
