"""An answer's size is part of its work (docs/own-data.md, Limits): `_expand` and `_embed` never build an
answer thousands of times the items they read, and never hold a loop while others wait.

One 100 KB post and 10,000 comments of it make a 1 GB `GET /comments?_expand=post` (the file is 369 KB):
it is a 400 `query_too_expensive` at once, two of them at once leave a plain `GET` answering meanwhile,
and a small page of the same query, or an `_embed` whose answer is the size of what it reads, is served.
"""

import threading
import time

from livestate import CI


def big_post(data_file, comments=10_000):
    return data_file({
        "posts": [{"id": 1, "title": "big", "body": "x" * 100_000}, {"id": 2, "title": "small"}],
        "comments": [{"id": i, "postId": 1, "body": "c"} for i in range(1, comments + 1)],
    })


def expensive_while_plain_gets(server, path, requests=2, plain="/posts/2"):
    """Sends `requests` copies of `path` at once and plain GETs meanwhile; returns the expensive ones'
    (response, seconds) and the slowest plain GET's seconds."""
    results = [None] * requests

    def send(index):
        start = time.monotonic()
        r = server.request("GET", path, timeout=60)
        results[index] = (r, time.monotonic() - start)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(requests)]
    for thread in threads:
        thread.start()
    slowest = 0.0
    while any(thread.is_alive() for thread in threads):
        start = time.monotonic()
        r = server.request("GET", plain, timeout=60)
        assert r.status == 200, r
        slowest = max(slowest, time.monotonic() - start)
    for thread in threads:
        thread.join()
    return results, slowest


def test_an_expand_thousands_of_times_its_inputs_is_refused_at_once(data_file, serve):
    server = serve(big_post(data_file), data=":memory:")
    results, slowest = expensive_while_plain_gets(server, "/comments?_expand=post")
    for r, seconds in results:
        assert r.status == 400 and r.json()["error"] == "query_too_expensive", r
        assert "_expand" in r.json()["message"], r
        # A debug build on a busy machine: the refusal costs an index lookup per comment, not the answer.
        assert seconds < 3, seconds
    assert slowest < 1, f"a plain GET waited {slowest:.2f}s behind the expensive ones"
    # The same nested, and a page of it whose answer is small, is served with its posts.
    r = server.request("GET", "/posts/1/comments?_expand=post")
    assert r.status == 400 and r.json()["error"] == "query_too_expensive", r
    r = server.request("GET", "/comments?_expand=post&_limit=3")
    assert r.status == 200, r
    assert [c["post"]["title"] for c in r.json()] == ["big"] * 3
    assert r.json()[0] == {"id": 1, "postId": 1, "body": "c", "post": {"id": 1, "title": "big", "body": "x" * 100_000}}


def test_an_embed_answers_from_what_it_reads_and_never_holds_the_loop(data_file, serve):
    # Every comment under one post: the answer is the size of the file, served; repeated names count once.
    server = serve(big_post(data_file, comments=2_000), data=":memory:")
    r = server.request("GET", "/posts?_embed=comments&_embed=comments")
    assert r.status == 200, r
    posts = r.json()
    assert len(posts[0]["comments"]) == 2_000 and posts[1]["comments"] == []
    assert posts[0]["body"] == "x" * 100_000
    # An item with a member of the embedded name gets it replaced, as json-server does.
    assert server.request("PATCH", "/posts/2", body={"comments": "mine"}).status == 200
    r = server.request("GET", "/posts/2?_embed=comments")
    assert r.status == 200 and r.json() == {"id": 2, "title": "small", "comments": []}, r


def test_an_embed_whose_work_passes_the_budget_is_refused_and_never_holds_the_loop(data_file, serve):
    # 40,000 comments of 200 bytes under 100 posts: an 8 MB answer, the size of what it reads, whose
    # building takes more than the 50 ms budget on a debug build; a plain GET answers meanwhile.
    comments = 20_000 if CI else 40_000
    path = data_file({
        "posts": [{"id": i, "title": f"post {i}"} for i in range(1, 101)],
        "comments": [{"id": i, "postId": i % 100 + 1, "body": "c" * 200} for i in range(1, comments + 1)],
    })
    server = serve(path, data=":memory:")
    results, slowest = expensive_while_plain_gets(server, "/posts?_embed=comments", plain="/posts/2")
    for r, seconds in results:
        assert r.status in (200, 400), r
        if r.status == 400:
            assert r.json()["error"] == "query_too_expensive", r
    assert slowest < 1, f"a plain GET waited {slowest:.2f}s behind the embeds"
