"""Many concurrent HTTP writes to one instance, each on its own connection (asyncio), bounded in time."""

import asyncio
import json
import threading
import time


class Answer:
    """One write's answer: status, headers (lower-case names), decoded body, seconds from send to answer."""

    def __init__(self, title, status, headers, body, sent, answered):
        self.title = title
        self.status = status
        self.headers = headers
        self.body = body
        self.sent = sent
        self.answered = answered

    @property
    def code(self):
        return self.body.get("error") if isinstance(self.body, dict) else None

    @property
    def seconds(self):
        return self.answered - self.sent

    def __repr__(self):
        return f"<{self.title}: {self.status} {self.code or ''} after {self.seconds:.2f} s>"


async def post(port, title, headers=None, timeout=15, method="POST", path="/todos", body=None):
    """One request on a fresh connection; an Answer (status 0 when the connection failed)."""
    sent = time.monotonic()
    data = json.dumps({"title": title} if body is None else body).encode()
    fields = {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json",
              "Content-Length": str(len(data)), "Connection": "close", **(headers or {})}
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items()) + "\r\n"
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        writer.write(head.encode() + data)
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout)
        writer.close()
    except (OSError, asyncio.TimeoutError):
        return Answer(title, 0, {}, None, sent, time.monotonic())
    answered = time.monotonic()
    head, _, payload = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    names = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        names[name.strip().lower()] = value.strip()
    try:
        decoded = json.loads(payload) if payload else None
    except ValueError:
        decoded = payload
    return Answer(title, status, names, decoded, sent, answered)


def post_all(port, titles, keys=None, watch=None, timeout=15):
    """Sends a POST /todos per title at once; `watch(answers_so_far)` runs after each answer. The Answers,
    in the order of `titles`."""
    answers = []

    async def one(index, title):
        headers = {"Idempotency-Key": keys[index]} if keys else None
        answer = await post(port, title, headers=headers, timeout=timeout)
        answers.append(answer)
        if watch:
            watch(answers)
        return answer

    async def run():
        return await asyncio.gather(*(one(i, t) for i, t in enumerate(titles)))

    return asyncio.run(run())


def in_thread(call):
    """Runs `call` on a thread; returns a function that joins it (bounded) and gives its result."""
    box = {}
    thread = threading.Thread(target=lambda: box.update(result=call()))
    thread.start()

    def result(timeout=20):
        thread.join(timeout)
        assert not thread.is_alive(), "no answer"
        return box["result"]

    return result


def listed(server, prefix):
    """The titles of `server`'s todos that start with `prefix`, in its order."""
    status, _, body = server.call("GET", "/todos")
    assert status == 200
    return [todo["title"] for todo in body if todo["title"].startswith(prefix)]
