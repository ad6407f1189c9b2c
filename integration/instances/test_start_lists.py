"""The lists an instance loads from `--upstream` at its start are shared (docs/architecture-instances.md):
the first instance to start fetches posts and photos once and journals them; an instance that starts
later takes them from the journal instead of fetching its own, so every instance shows one list.
"""

from conftest import events_until
from livestate import Server, SSEClient, fake_upstream, wait_until
from livestate import upstream_control as control


def fetched(base, resource):
    return [path for path in control(base, "/_control/log")["requests"] if path.split("?")[0] == resource]


def listed(server, path):
    status, _, body = server.call("GET", path)
    assert status == 200
    return body


def test_instances_that_start_later_take_the_first_ones_upstream_lists_from_the_journal(cluster, binary):
    with fake_upstream() as upstream:
        servers = [Server("--upstream", upstream, binary=binary, data=cluster.uri).start()]
        try:
            a = servers[0]
            wait_until(lambda: len(listed(a, "/posts")) == 3 and listed(a, "/albums"), 20, interval=0.1,
                       message="A loaded posts and photos")
            # The upstream now answers otherwise: an instance fetching its own list would show 5 posts.
            control(upstream, "/_control", {"path": "/posts", "count": 5})
            servers += [Server("--upstream", upstream, binary=binary, data=cluster.uri).start() for _ in range(2)]
            for server in servers[1:]:
                wait_until(lambda: listed(server, "/posts") == listed(a, "/posts"), 20, interval=0.1,
                           message="a later instance shows A's posts")
                assert listed(server, "/albums") == listed(a, "/albums")
                with SSEClient.of(server, "/events?topics=posts") as client:
                    assert client.read_head() == 200
                    first = events_until(client, lambda events: bool(events), topic="posts")[0]
                    assert first.json() == listed(a, "/posts")
            assert len(fetched(upstream, "/posts")) == 1 and len(fetched(upstream, "/photos")) == 1
            # A refresh fetches once and every instance shows the new list (5 posts now).
            assert a.call("POST", "/posts/refresh")[0] == 200
            for server in servers:
                wait_until(lambda: len(listed(server, "/posts")) == 5, 20, interval=0.1, message="the refresh")
            assert len(fetched(upstream, "/posts")) == 2
        finally:
            for server in servers:
                server.stop()
