"""`q` and `_sort` on 100,000 items answer within the work budget, as json-server answers them
(docs/own-data.md, "Limits"), against the real binary on a real file."""
import json
import random
import time

import pytest

WORDS = "alpha beta gamma delta hotel lowdb json server river stone cloud maple orange tiger quiet".split()
COUNT = 100_000


@pytest.fixture(scope="module")
def posts():
    rng = random.Random(39)
    items = []
    for i in range(1, COUNT + 1):
        title = " ".join(rng.choice(WORDS) for _ in range(3)) + (" Zebra crossing" if i % 2000 == 7 else "")
        items.append({"id": i, "title": f"{title} {i}", "author": {"name": rng.choice(WORDS)},
                      "views": rng.randint(0, 10 ** 6)})
    return items


def get(server, path, timeout=120):
    response = server.request("GET", path, timeout=timeout)
    assert response.status == 200, (path, response)
    return response.json(), response


def test_q_and_sort_on_100000_items_answer_within_the_budget(data_file, serve, posts):
    server = serve(data_file({"posts": posts}), data=":memory:")
    wait_for = time.monotonic() + 120
    while server.request("GET", "/posts?_limit=1", timeout=120).status != 200 and time.monotonic() < wait_for:
        time.sleep(0.5)
    # `q` scans the items' bytes: only those holding the text are read.
    body, _ = get(server, "/posts?q=zebra%20CROSSING")
    assert [post["id"] for post in body] == [post["id"] for post in posts if "Zebra crossing" in post["title"]]
    assert get(server, "/posts?q=nothing-like-this")[0] == []
    # `_sort` answers from the collection's sort index, built once off the loop, then reused.
    expected = sorted(posts, key=lambda post: post["title"])
    body, response = get(server, "/posts?_sort=title&_page=2&_limit=5")
    assert body == expected[5:10] and response.header("X-Total-Count") == str(COUNT)
    for _ in range(3):
        assert get(server, "/posts?_sort=title&_limit=3")[0] == expected[:3]
    # With a filter and a search on top of the sorted order.
    body, _ = get(server, "/posts?q=zebra&_sort=-title&_limit=4")
    assert body == sorted((p for p in posts if "Zebra" in p["title"]), key=lambda p: p["title"], reverse=True)[:4]
    # A write makes the order stale: the next sort sees it.
    assert server.call("PATCH", "/posts/77777", {"title": "aaa first"})[0] == 200
    body, _ = get(server, "/posts?_sort=title&_limit=1")
    assert body[0]["id"] == 77777 and body[0]["title"] == "aaa first"
