"""Form bodies (application/x-www-form-urlencoded, jQuery's default) on a data file's resources, taken as
json-server takes them, under the Origin rule (docs/own-data.md, docs/security.md)."""
import urllib.parse

DATA = {"employees": [{"id": 1, "name": "Ann", "age": 30}], "profile": {"name": "me"}}
FORM = {"Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"}


def form(pairs):
    return urllib.parse.urlencode(pairs).encode()


def test_a_form_post_put_and_patch_are_taken_with_string_values(data_file, serve):
    server = serve(data_file(DATA))
    # jQuery's $.post with an empty hidden id: the id is assigned, every value is a string.
    response = server.request("POST", "/employees", form([("id", ""), ("name", "Bob Lee & co"), ("age", "41"),
                                                          ("skill", "go"), ("skill", "sql"), ("nick", "")]),
                              headers=FORM)
    assert response.status == 201, response
    created = response.json()
    assert created == {"name": "Bob Lee & co", "age": "41", "skill": ["go", "sql"], "nick": "", "id": 2}
    assert server.call("GET", "/employees/2")[2] == created
    response = server.request("PATCH", "/employees/1", form([("age", "31"), ("a[b]", "1")]), headers=FORM)
    assert response.status == 200 and response.json() == {"id": 1, "name": "Ann", "age": "31", "a[b]": "1"}
    response = server.request("PUT", "/employees/1", form([("name", "Ann")]), headers=FORM)
    assert response.status == 200 and response.json() == {"name": "Ann", "id": 1}
    response = server.request("PUT", "/profile", form([("name", "é ü")]), headers=FORM)
    assert response.status == 200 and server.call("GET", "/profile")[2] == {"name": "é ü"}
    # Another body type is still a 415, and nothing changed.
    response = server.request("POST", "/employees", b"name=x", headers={"Content-Type": "text/plain"})
    assert response.status == 415
    assert len(server.call("GET", "/employees")[2]) == 2


def test_a_form_from_a_foreign_page_changes_nothing(data_file, serve):
    server = serve(data_file(DATA))
    headers = FORM | {"Origin": "http://evil.example"}
    response = server.request("POST", "/employees", form([("name", "Mallory")]), headers=headers)
    assert response.status == 403 and response.json()["error"] == "origin_not_allowed"
    response = server.request("POST", "/employees", form([("name", "Dev")]),
                              headers=FORM | {"Origin": "http://localhost:8080"})
    assert response.status == 201 and response.header("Access-Control-Allow-Origin") == "http://localhost:8080"
    assert [e["name"] for e in server.call("GET", "/employees")[2]] == ["Ann", "Dev"]
