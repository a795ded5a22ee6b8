"""A minimal UCCI client for the measurement scripts in tools/."""
import subprocess


class Engine:
    """An engine process after the `ucci` handshake."""

    def __init__(self, exe):
        self.proc = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("ucci")
        self.until("ucciok")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix):
        """Reads lines until one starts with `prefix` and returns it."""
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("engine exited")
            if line.startswith(prefix):
                return line

    def quit(self):
        self.send("quit")
        self.proc.wait(timeout=10)
