#!/usr/bin/env python3
"""Writes a json-server style data file for Benchmarks/documents/run.sh.

usage: generate.py OUT POSTS [USERS]

A `posts` collection of POSTS items shaped like jsonplaceholder's ({"userId", "id", "title", "body"}, about
200 bytes each as written), USERS authors taking turns (default 100, so `?userId=3` matches POSTS/USERS
items), a `comments` collection of one comment per 10 posts, and a `profile`, written with a 2-space
indent as json-server writes its file. The text is drawn from a fixed seed: the same arguments give the
same bytes.
"""
import json
import random
import sys

WORDS = (
    "sunt aut facere repellat provident occaecati excepturi optio reprehenderit qui est esse "
    "ea molestias quasi exercitationem omnis voluptatem eum et ut nesciunt dolorem magnam "
    "veritatis quis sequi libero dolor beatae ad iusto"
).split()


def sentence(rng, length):
    """Words drawn from WORDS up to `length` characters."""
    text = ""
    while len(text) < length:
        text += (" " if text else "") + rng.choice(WORDS)
    return text[:length]


def main():
    out, posts = sys.argv[1], int(sys.argv[2])
    users = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    rng = random.Random(7)
    data = {
        "posts": [
            {
                "userId": index % users + 1,
                "id": index + 1,
                "title": sentence(rng, 40),
                "body": sentence(rng, 75),
            }
            for index in range(posts)
        ],
        "comments": [
            {"id": index + 1, "postId": index * 10 + 1, "body": sentence(rng, 60)} for index in range(posts // 10)
        ],
        "profile": {"name": "typicode"},
    }
    with open(out, "w") as file:
        json.dump(data, file, indent=2)
        file.write("\n")


if __name__ == "__main__":
    main()
