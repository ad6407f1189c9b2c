"""A large file's items, read many at a time at start, are served byte for byte as JSON.stringify writes
them, and a fault deep inside one is refused with its line and column (docs/own-data.md, Limits)."""
import subprocess

import pytest

from livestate import binary_path

# Each item as the file writes it, and as the server (and JSON.stringify) writes it back.
ITEMS = [
    ('{"id": %d, "title": "plain text", "done": false, "tags": ["a", "b"], "n": null}',
     '{"id":%d,"title":"plain text","done":false,"tags":["a","b"],"n":null}'),
    ('{"id": %d, "escaped": "\\u00e9\\/\\"\\\\\\u001F", "pair": "\\ud83d\\ude00", "nul": "a\\u0000b"}',
     '{"id":%d,"escaped":"é/\\"\\\\\\u001f","pair":"😀","nul":"a\\u0000b"}'),
    ('{"id": %d, "price": 19.99, "e": 1E5, "one": 1.0, "tiny": 1e-7, "huge": 1.5e300, "zero": -0}',
     '{"id":%d,"price":19.99,"e":100000,"one":1,"tiny":1e-7,"huge":1.5e+300,"zero":0}'),
    ('{"id": %d, "big": 9007199254740993, "max": 9223372036854775807, "min": -9223372036854775808}',
     '{"id":%d,"big":9007199254740993,"max":9223372036854775807,"min":-9223372036854775808}'),
    ('{\n      "id": %d,\n      "deep": {"a": [1, [2, [{}]], []], "b": {"c": "\\t\\n"}},\n      "é": "漢字"\n    }',
     '{"id":%d,"deep":{"a":[1,[2,[{}]],[]],"b":{"c":"\\t\\n"}},"é":"漢字"}'),
]

# Enough items for several reads and several 4 MB parts of the file.
COUNT = 60_000


def large_file(extra=""):
    """The file's text: COUNT posts taking the ITEMS in turn, then `extra` items."""
    lines = [ITEMS[index % len(ITEMS)][0] % (index + 1) for index in range(COUNT)]
    return '{\n  "posts": [\n    ' + ",\n    ".join(lines + ([extra] if extra else [])) + '\n  ],\n  "profile": {}\n}\n'


def test_every_kind_of_value_is_served_as_json_stringify_writes_it(data_file, serve):
    server = serve(data_file(large_file()), data=":memory:")
    for index in [0, 1, 2, 3, 4, 29_998, 31_337, COUNT - 1]:
        answer = server.request("GET", f"/posts/{index + 1}")
        assert answer.status == 200
        assert answer.body.decode() == ITEMS[index % len(ITEMS)][1] % (index + 1)


@pytest.mark.parametrize(
    "item, words",
    [
        ('{"id": 0, "title": "a", "title": "b"}', "column 35: duplicate object key"),
        ('{"id": 0, "s": "\\ud800"}', "column 27: invalid Unicode"),
        ('{"id": 0, "s": "a\tb"}', "column 21: control character"),
        ('{"id": 0, "n": 01}', "column 20: invalid token"),
    ],
)
def test_a_fault_in_a_late_item_is_refused_with_its_line_and_column(data_file, item, words):
    text = large_file(item)
    line = text[: text.index(item)].count("\n") + 1
    assert f"line {line}, {words}" in start_fails(data_file(text))


def test_a_number_past_64_bits_in_a_late_item_is_refused_naming_where_it_is(data_file):
    stderr = start_fails(data_file(large_file('{"id": 0, "n": 92233720368547758070}')))
    assert f"92233720368547758070 at posts[{COUNT}].n does not fit 64 bits" in stderr


def start_fails(path):
    """The one line the binary prints when it refuses to start on `path`."""
    run = subprocess.run(
        [binary_path(), "--port", "0", "--data", ":memory:", str(path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    return run.stderr
