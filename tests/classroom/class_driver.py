"""The headless teacher for the class's tests and bench: softmax-lab --class-driver hosting on
loopback (app/modes/class_driver.cpp), one command a line in, one JSON line out."""
import json
import os
import subprocess


class Teacher:
    def __init__(self, binary, site, home, size="800x600", language="en", stderr=subprocess.PIPE,
                 preexec_fn=None):
        """Starts the app serving `site` with HOME at `home`; raises RuntimeError if it does not say
        where the class is."""
        command = [binary, "--class", "127.0.0.1:0", "--class-driver", "--size", size]
        if language:
            command += ["--lang", language]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                        text=True, env=dict(os.environ, SOFTMAX_LAB_SITE=site, HOME=home),
                                        preexec_fn=preexec_fn)
        ready = self.read()
        if not ready.get("ready"):
            raise RuntimeError(f"the teacher did not start: {ready}")
        self.port, self.code = ready["port"], ready["code"]

    def read(self):
        line = self.process.stdout.readline()
        if not line:
            problem = self.process.stderr.read()[-2000:] if self.process.stderr else ""
            raise RuntimeError("the teacher's app ended: " + problem)
        return json.loads(line)

    def say(self, command):
        """Sends one command; its reply once the frame after it has published the state (the
        published state's seq in reply["status"]["state"]["seq"]). RuntimeError on a refusal."""
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        reply = self.read()
        if "error" in reply:
            raise RuntimeError(f"'{command}': {reply['error']}")
        return reply

    def status(self, command):
        """say(), then the teacher's status: students, answers, the question and its histograms."""
        return self.say(command)["status"]
