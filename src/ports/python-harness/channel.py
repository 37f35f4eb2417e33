# The result channel of a sandboxed harness. The sandbox hands back stdout alone, so the harness keeps a private copy
# of it and points descriptors 1 and 2 at /dev/null before any untrusted code runs: whatever the program prints
# (print, sys.__stdout__, os.write(1, ...)) is lost, and only lines this module writes reach the server. Each line is
# "<nonce> <json>"; the nonce is read from a file that is removed at once. Code running in this same interpreter can
# still find the descriptor and the nonce by introspection: the channel stops a program that prints something that
# looks like a result, not one that hunts for the harness in its own memory (the harnesses never let such a program
# decide a verdict it could not also earn: see each server's README).
import json
import os

NONCE_FILE = ".channel-nonce"


class Channel:
    def __init__(self):
        with open(NONCE_FILE, "r") as f:
            self._nonce = f.read().strip()
        os.unlink(NONCE_FILE)
        self._fd = os.dup(1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.close(devnull)
        # Kept before a harness's guard replaces os functions with None.
        self._write = os.write
        self._dumps = json.dumps

    def send(self, record):
        data = (self._nonce + " " + self._dumps(record) + "\n").encode("utf-8", "surrogatepass")
        while data:
            written = self._write(self._fd, data)
            data = data[written:]
