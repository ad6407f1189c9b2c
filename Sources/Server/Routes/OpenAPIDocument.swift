/// The contract (../shared/spec/API.md) as an OpenAPI 3.1 document, served at `GET /openapi.json`.
///
/// NB: kept true by tests: `OpenAPIDocumentTests` compares its paths and methods with `buildRouter`'s
/// table, and the schemathesis stage (scripts/test.d/50-openapi-schemathesis) checks every response
/// of the live server against it. Change it together with the routes.
enum OpenAPIDocument {
    /// The document as JSON text.
    static let json = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "LiveState",
            "version": "1.0.0",
            "description": "The state of the seed apps' Combine view models over HTTP. GET reads a subject's current value, a mutation is an input sent into the view model, and every emission reaches browsers through GET /events (Server-Sent Events). With --token, every mutating request needs `Authorization: Bearer SECRET`; reads and /events stay open."
          },
          "servers": [
            {
              "url": "http://127.0.0.1:8080"
            }
          ],
          "tags": [
            {
              "name": "system"
            },
            {
              "name": "todos"
            },
            {
              "name": "posts"
            },
            {
              "name": "albums"
            },
            {
              "name": "frameworks"
            },
            {
              "name": "movies"
            },
            {
              "name": "events"
            }
          ],
          "paths": {
            "/healthz": {
              "get": {
                "operationId": "getHealth",
                "summary": "Liveness",
                "tags": [
                  "system"
                ],
                "responses": {
                  "200": {
                    "description": "Alive",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object",
                          "properties": {
                            "status": {
                              "const": "ok"
                            }
                          },
                          "required": [
                            "status"
                          ],
                          "additionalProperties": false
                        }
                      }
                    }
                  }
                }
              }
            },
            "/openapi.json": {
              "get": {
                "operationId": "getOpenAPI",
                "summary": "This document",
                "tags": [
                  "system"
                ],
                "responses": {
                  "200": {
                    "description": "The OpenAPI 3.1 document",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/todos": {
              "get": {
                "operationId": "listTodos",
                "summary": "All todos (query language)",
                "tags": [
                  "todos"
                ],
                "responses": {
                  "200": {
                    "description": "Todos",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "array",
                          "items": {
                            "$ref": "#/components/schemas/Todo"
                          }
                        }
                      }
                    },
                    "headers": {
                      "X-Total-Count": {
                        "description": "Items matching the filters, before paging.",
                        "schema": {
                          "type": "string",
                          "pattern": "^[0-9]+$"
                        }
                      },
                      "Link": {
                        "description": "RFC 8288 first/prev/next/last links when paging.",
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  }
                },
                "parameters": [
                  {
                    "name": "id",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `id` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "title",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `title` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "completed",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `completed` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "q",
                    "in": "query",
                    "required": false,
                    "description": "Case-insensitive substring over the string fields.",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "_sort",
                    "in": "query",
                    "required": false,
                    "description": "Fields to sort by, comma-separated; `-field` sorts descending. Empty means unsorted.",
                    "schema": {
                      "type": "string",
                      "pattern": "^(-?(id|title|completed)(,-?(id|title|completed))*)?$"
                    }
                  },
                  {
                    "name": "_order",
                    "in": "query",
                    "required": false,
                    "description": "`asc` or `desc`, one for all `_sort` fields or one each; needs `_sort`.",
                    "schema": {
                      "type": "string",
                      "pattern": "^([aA][sS][cC]|[dD][eE][sS][cC])(,([aA][sS][cC]|[dD][eE][sS][cC]))*$"
                    }
                  },
                  {
                    "name": "_page",
                    "in": "query",
                    "required": false,
                    "description": "1-based page of `_limit` items (10 without it); not with `_start`/`_end`.",
                    "schema": {
                      "type": "integer",
                      "minimum": 1,
                      "maximum": 9223372036854775807
                    }
                  },
                  {
                    "name": "_limit",
                    "in": "query",
                    "required": false,
                    "description": "Page size with `_page` (at least 1 then), else the first M items; not with `_end`.",
                    "schema": {
                      "type": "integer",
                      "minimum": 0,
                      "maximum": 9223372036854775807
                    }
                  },
                  {
                    "name": "_start",
                    "in": "query",
                    "required": false,
                    "description": "Zero-based start, as `Array.slice`.",
                    "schema": {
                      "type": "integer",
                      "minimum": 0,
                      "maximum": 9223372036854775807
                    }
                  },
                  {
                    "name": "_end",
                    "in": "query",
                    "required": false,
                    "description": "Zero-based end, excluded.",
                    "schema": {
                      "type": "integer",
                      "minimum": 0,
                      "maximum": 9223372036854775807
                    }
                  }
                ]
              },
              "post": {
                "operationId": "createTodo",
                "summary": "Send a title into addNewTask",
                "tags": [
                  "todos"
                ],
                "responses": {
                  "201": {
                    "description": "Kept and stored",
                    "headers": {
                      "Location": {
                        "required": true,
                        "schema": {
                          "type": "string",
                          "pattern": "^/todos/[0-9]+$"
                        }
                      }
                    },
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Todo"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "413": {
                    "$ref": "#/components/responses/TooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "422": {
                    "$ref": "#/components/responses/Unprocessable"
                  },
                  "503": {
                    "$ref": "#/components/responses/StorageUnavailable"
                  }
                },
                "description": "Titles are trimmed; 4 to 500 characters are kept, shorter ones are `title_too_short`, longer `title_too_long`.",
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/NewTodo"
                      }
                    }
                  }
                },
                "security": [
                  {},
                  {
                    "bearer": []
                  }
                ]
              }
            },
            "/todos/{id}": {
              "get": {
                "operationId": "getTodo",
                "summary": "One todo",
                "tags": [
                  "todos"
                ],
                "responses": {
                  "200": {
                    "description": "The todo",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Todo"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  }
                },
                "parameters": [
                  {
                    "name": "id",
                    "in": "path",
                    "required": true,
                    "description": "The item's id.",
                    "schema": {
                      "type": "integer",
                      "minimum": -9223372036854775808,
                      "maximum": 9223372036854775807
                    }
                  }
                ]
              },
              "patch": {
                "operationId": "updateTodo",
                "summary": "Change title and/or completed",
                "tags": [
                  "todos"
                ],
                "responses": {
                  "200": {
                    "description": "The changed todo",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Todo"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "413": {
                    "$ref": "#/components/responses/TooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "422": {
                    "$ref": "#/components/responses/Unprocessable"
                  },
                  "503": {
                    "$ref": "#/components/responses/StorageUnavailable"
                  }
                },
                "parameters": [
                  {
                    "name": "id",
                    "in": "path",
                    "required": true,
                    "description": "The item's id.",
                    "schema": {
                      "type": "integer",
                      "minimum": -9223372036854775808,
                      "maximum": 9223372036854775807
                    }
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/TodoPatch"
                      }
                    }
                  }
                },
                "security": [
                  {},
                  {
                    "bearer": []
                  }
                ]
              },
              "delete": {
                "operationId": "deleteTodo",
                "summary": "Remove a todo",
                "tags": [
                  "todos"
                ],
                "responses": {
                  "204": {
                    "description": "Removed"
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "503": {
                    "$ref": "#/components/responses/StorageUnavailable"
                  }
                },
                "parameters": [
                  {
                    "name": "id",
                    "in": "path",
                    "required": true,
                    "description": "The item's id.",
                    "schema": {
                      "type": "integer",
                      "minimum": -9223372036854775808,
                      "maximum": 9223372036854775807
                    }
                  }
                ],
                "security": [
                  {},
                  {
                    "bearer": []
                  }
                ]
              }
            },
            "/posts": {
              "get": {
                "operationId": "listPosts",
                "summary": "The view model's posts (query language)",
                "tags": [
                  "posts"
                ],
                "responses": {
                  "200": {
                    "description": "Posts",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "array",
                          "items": {
                            "$ref": "#/components/schemas/Post"
                          }
                        }
                      }
                    },
                    "headers": {
                      "X-Total-Count": {
                        "description": "Items matching the filters, before paging.",
                        "schema": {
                          "type": "string",
                          "pattern": "^[0-9]+$"
                        }
                      },
                      "Link": {
                        "description": "RFC 8288 first/prev/next/last links when paging.",
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  }
                },
                "parameters": [
                  {
                    "name": "userId",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `userId` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "id",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `id` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "title",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `title` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "body",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `body` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "q",
                    "in": "query",
                    "required": false,
                    "description": "Case-insensitive substring over the string fields.",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "_sort",
                    "in": "query",
                    "required": false,
                    "description": "Fields to sort by, comma-separated; `-field` sorts descending. Empty means unsorted.",
                    "schema": {
                      "type": "string",
                      "pattern": "^(-?(userId|id|title|body)(,-?(userId|id|title|body))*)?$"
                    }
                  },
                  {
                    "name": "_order",
                    "in": "query",
                    "required": false,
                    "description": "`asc` or `desc`, one for all `_sort` fields or one each; needs `_sort`.",
                    "schema": {
                      "type": "string",
                      "pattern": "^([aA][sS][cC]|[dD][eE][sS][cC])(,([aA][sS][cC]|[dD][eE][sS][cC]))*$"
                    }
                  },
                  {
                    "name": "_page",
                    "in": "query",
                    "required": false,
                    "description": "1-based page of `_limit` items (10 without it); not with `_start`/`_end`.",
                    "schema": {
                      "type": "integer",
                      "minimum": 1,
                      "maximum": 9223372036854775807
                    }
                  },
                  {
                    "name": "_limit",
                    "in": "query",
                    "required": false,
                    "description": "Page size with `_page` (at least 1 then), else the first M items; not with `_end`.",
                    "schema": {
                      "type": "integer",
                      "minimum": 0,
                      "maximum": 9223372036854775807
                    }
                  },
                  {
                    "name": "_start",
                    "in": "query",
                    "required": false,
                    "description": "Zero-based start, as `Array.slice`.",
                    "schema": {
                      "type": "integer",
                      "minimum": 0,
                      "maximum": 9223372036854775807
                    }
                  },
                  {
                    "name": "_end",
                    "in": "query",
                    "required": false,
                    "description": "Zero-based end, excluded.",
                    "schema": {
                      "type": "integer",
                      "minimum": 0,
                      "maximum": 9223372036854775807
                    }
                  }
                ]
              }
            },
            "/posts/{id}": {
              "get": {
                "operationId": "getPost",
                "summary": "One post",
                "tags": [
                  "posts"
                ],
                "responses": {
                  "200": {
                    "description": "The post",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Post"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  }
                },
                "parameters": [
                  {
                    "name": "id",
                    "in": "path",
                    "required": true,
                    "description": "The item's id.",
                    "schema": {
                      "type": "integer",
                      "minimum": -9223372036854775808,
                      "maximum": 9223372036854775807
                    }
                  }
                ]
              }
            },
            "/posts/refresh": {
              "post": {
                "operationId": "refreshPosts",
                "summary": "Run NetworkManager.getData(.posts) again",
                "tags": [
                  "posts"
                ],
                "responses": {
                  "200": {
                    "description": "The new posts (also emitted)",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "array",
                          "items": {
                            "$ref": "#/components/schemas/Post"
                          }
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "502": {
                    "$ref": "#/components/responses/BadGateway"
                  },
                  "504": {
                    "$ref": "#/components/responses/GatewayTimeout"
                  }
                },
                "security": [
                  {},
                  {
                    "bearer": []
                  }
                ]
              }
            },
            "/albums": {
              "get": {
                "operationId": "listAlbums",
                "summary": "The view model's albums (query language)",
                "tags": [
                  "albums"
                ],
                "responses": {
                  "200": {
                    "description": "Albums",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "array",
                          "items": {
                            "$ref": "#/components/schemas/AlbumModel"
                          }
                        }
                      }
                    },
                    "headers": {
                      "X-Total-Count": {
                        "description": "Items matching the filters, before paging.",
                        "schema": {
                          "type": "string",
                          "pattern": "^[0-9]+$"
                        }
                      },
                      "Link": {
                        "description": "RFC 8288 first/prev/next/last links when paging.",
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  }
                },
                "parameters": [
                  {
                    "name": "albumId",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `albumId` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "id",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `id` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "title",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `title` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "url",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `url` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "thumbnailUrl",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `thumbnailUrl` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "q",
                    "in": "query",
                    "required": false,
                    "description": "Case-insensitive substring over the string fields.",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "_sort",
                    "in": "query",
                    "required": false,
                    "description": "Fields to sort by, comma-separated; `-field` sorts descending. Empty means unsorted.",
                    "schema": {
                      "type": "string",
                      "pattern": "^(-?(albumId|id|title|url|thumbnailUrl)(,-?(albumId|id|title|url|thumbnailUrl))*)?$"
                    }
                  },
                  {
                    "name": "_order",
                    "in": "query",
                    "required": false,
                    "description": "`asc` or `desc`, one for all `_sort` fields or one each; needs `_sort`.",
                    "schema": {
                      "type": "string",
                      "pattern": "^([aA][sS][cC]|[dD][eE][sS][cC])(,([aA][sS][cC]|[dD][eE][sS][cC]))*$"
                    }
                  },
                  {
                    "name": "_page",
                    "in": "query",
                    "required": false,
                    "description": "1-based page of `_limit` items (10 without it); not with `_start`/`_end`.",
                    "schema": {
                      "type": "integer",
                      "minimum": 1,
                      "maximum": 9223372036854775807
                    }
                  },
                  {
                    "name": "_limit",
                    "in": "query",
                    "required": false,
                    "description": "Page size with `_page` (at least 1 then), else the first M items; not with `_end`.",
                    "schema": {
                      "type": "integer",
                      "minimum": 0,
                      "maximum": 9223372036854775807
                    }
                  },
                  {
                    "name": "_start",
                    "in": "query",
                    "required": false,
                    "description": "Zero-based start, as `Array.slice`.",
                    "schema": {
                      "type": "integer",
                      "minimum": 0,
                      "maximum": 9223372036854775807
                    }
                  },
                  {
                    "name": "_end",
                    "in": "query",
                    "required": false,
                    "description": "Zero-based end, excluded.",
                    "schema": {
                      "type": "integer",
                      "minimum": 0,
                      "maximum": 9223372036854775807
                    }
                  }
                ]
              }
            },
            "/albums/{id}": {
              "get": {
                "operationId": "getAlbum",
                "summary": "One album photo",
                "tags": [
                  "albums"
                ],
                "responses": {
                  "200": {
                    "description": "The album photo",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/AlbumModel"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  }
                },
                "parameters": [
                  {
                    "name": "id",
                    "in": "path",
                    "required": true,
                    "description": "The item's id.",
                    "schema": {
                      "type": "integer",
                      "minimum": -9223372036854775808,
                      "maximum": 9223372036854775807
                    }
                  }
                ]
              }
            },
            "/albums/refresh": {
              "post": {
                "operationId": "refreshAlbums",
                "summary": "Reload the albums (URL/photos)",
                "tags": [
                  "albums"
                ],
                "responses": {
                  "200": {
                    "description": "The new albums (also emitted)",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "array",
                          "items": {
                            "$ref": "#/components/schemas/AlbumModel"
                          }
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "502": {
                    "$ref": "#/components/responses/BadGateway"
                  },
                  "504": {
                    "$ref": "#/components/responses/GatewayTimeout"
                  }
                },
                "security": [
                  {},
                  {
                    "bearer": []
                  }
                ]
              }
            },
            "/albums/selection": {
              "get": {
                "operationId": "getAlbumSelection",
                "summary": "The current image",
                "tags": [
                  "albums"
                ],
                "responses": {
                  "200": {
                    "description": "Its URL, type and size",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ImageInfo"
                        }
                      }
                    }
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  }
                }
              },
              "post": {
                "operationId": "selectAlbum",
                "summary": "Send a URL (or an album's URL by id) into imageUrlSubject",
                "tags": [
                  "albums"
                ],
                "responses": {
                  "202": {
                    "description": "Accepted; the download runs, the latest wins",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object",
                          "properties": {
                            "url": {
                              "type": "string"
                            }
                          },
                          "required": [
                            "url"
                          ],
                          "additionalProperties": false
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "413": {
                    "$ref": "#/components/responses/TooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "422": {
                    "$ref": "#/components/responses/Unprocessable"
                  }
                },
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/AlbumSelection"
                      }
                    }
                  }
                },
                "security": [
                  {},
                  {
                    "bearer": []
                  }
                ]
              }
            },
            "/albums/selection/image": {
              "get": {
                "operationId": "getAlbumSelectionImage",
                "summary": "The current image's bytes",
                "tags": [
                  "albums"
                ],
                "responses": {
                  "200": {
                    "description": "The image with its content type",
                    "content": {
                      "image/*": {
                        "schema": {
                          "type": "string",
                          "contentMediaType": "image/*"
                        }
                      }
                    }
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  }
                }
              }
            },
            "/placeholder/{size}/{colour}": {
              "get": {
                "operationId": "getPlaceholder",
                "summary": "A generated PNG of that size and colour",
                "tags": [
                  "albums"
                ],
                "responses": {
                  "200": {
                    "description": "The image",
                    "content": {
                      "image/png": {
                        "schema": {
                          "type": "string",
                          "contentMediaType": "image/png"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  }
                },
                "parameters": [
                  {
                    "name": "size",
                    "in": "path",
                    "required": true,
                    "description": "Square side in pixels, 1 to 2000.",
                    "schema": {
                      "type": "integer",
                      "minimum": 1,
                      "maximum": 2000
                    }
                  },
                  {
                    "name": "colour",
                    "in": "path",
                    "required": true,
                    "description": "Colour as six hex digits (rrggbb).",
                    "schema": {
                      "type": "string",
                      "pattern": "^[0-9a-fA-F]{6}$"
                    }
                  }
                ]
              }
            },
            "/frameworks": {
              "get": {
                "operationId": "listFrameworks",
                "summary": "The Apple frameworks (query language)",
                "tags": [
                  "frameworks"
                ],
                "responses": {
                  "200": {
                    "description": "Frameworks",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "array",
                          "items": {
                            "$ref": "#/components/schemas/AppleFramework"
                          }
                        }
                      }
                    },
                    "headers": {
                      "X-Total-Count": {
                        "description": "Items matching the filters, before paging.",
                        "schema": {
                          "type": "string",
                          "pattern": "^[0-9]+$"
                        }
                      },
                      "Link": {
                        "description": "RFC 8288 first/prev/next/last links when paging.",
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  }
                },
                "parameters": [
                  {
                    "name": "name",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `name` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "imageName",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `imageName` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "urlString",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `urlString` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "description",
                    "in": "query",
                    "required": false,
                    "description": "Keeps items whose `description` equals one of the values (repeatable). Values are compared in their text form, as json-server does: `?completed=true`, `?albumId=3`.",
                    "style": "form",
                    "explode": true,
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "name": "q",
                    "in": "query",
                    "required": false,
                    "description": "Case-insensitive substring over the string fields.",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "_sort",
                    "in": "query",
                    "required": false,
                    "description": "Fields to sort by, comma-separated; `-field` sorts descending. Empty means unsorted.",
                    "schema": {
                      "type": "string",
                      "pattern": "^(-?(name|imageName|urlString|description)(,-?(name|imageName|urlString|description))*)?$"
                    }
                  },
                  {
                    "name": "_order",
                    "in": "query",
                    "required": false,
                    "description": "`asc` or `desc`, one for all `_sort` fields or one each; needs `_sort`.",
                    "schema": {
                      "type": "string",
                      "pattern": "^([aA][sS][cC]|[dD][eE][sS][cC])(,([aA][sS][cC]|[dD][eE][sS][cC]))*$"
                    }
                  },
                  {
                    "name": "_page",
                    "in": "query",
                    "required": false,
                    "description": "1-based page of `_limit` items (10 without it); not with `_start`/`_end`.",
                    "schema": {
                      "type": "integer",
                      "minimum": 1,
                      "maximum": 9223372036854775807
                    }
                  },
                  {
                    "name": "_limit",
                    "in": "query",
                    "required": false,
                    "description": "Page size with `_page` (at least 1 then), else the first M items; not with `_end`.",
                    "schema": {
                      "type": "integer",
                      "minimum": 0,
                      "maximum": 9223372036854775807
                    }
                  },
                  {
                    "name": "_start",
                    "in": "query",
                    "required": false,
                    "description": "Zero-based start, as `Array.slice`.",
                    "schema": {
                      "type": "integer",
                      "minimum": 0,
                      "maximum": 9223372036854775807
                    }
                  },
                  {
                    "name": "_end",
                    "in": "query",
                    "required": false,
                    "description": "Zero-based end, excluded.",
                    "schema": {
                      "type": "integer",
                      "minimum": 0,
                      "maximum": 9223372036854775807
                    }
                  }
                ]
              }
            },
            "/frameworks/selection": {
              "post": {
                "operationId": "selectFramework",
                "summary": "didSelect.send (passthrough: not replayed)",
                "tags": [
                  "frameworks"
                ],
                "responses": {
                  "202": {
                    "description": "Sent into didSelect",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object",
                          "properties": {
                            "selected": {
                              "$ref": "#/components/schemas/AppleFramework"
                            }
                          },
                          "required": [
                            "selected"
                          ],
                          "additionalProperties": false
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "413": {
                    "$ref": "#/components/responses/TooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  }
                },
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "type": "object",
                        "properties": {
                          "name": {
                            "type": "string"
                          }
                        },
                        "required": [
                          "name"
                        ]
                      }
                    }
                  }
                },
                "security": [
                  {},
                  {
                    "bearer": []
                  }
                ]
              }
            },
            "/movies": {
              "get": {
                "operationId": "searchMovies",
                "summary": "Search now",
                "tags": [
                  "movies"
                ],
                "responses": {
                  "200": {
                    "description": "A search result",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/MovieSearchResult"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  }
                },
                "parameters": [
                  {
                    "name": "q",
                    "in": "query",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  }
                ]
              }
            },
            "/movies/keyword": {
              "put": {
                "operationId": "setMovieKeyword",
                "summary": "Send into $keyword (debounced 0.5 s, result on the movies topic)",
                "tags": [
                  "movies"
                ],
                "responses": {
                  "202": {
                    "description": "Sent into $keyword",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object",
                          "properties": {
                            "keyword": {
                              "type": "string"
                            }
                          },
                          "required": [
                            "keyword"
                          ],
                          "additionalProperties": false
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "413": {
                    "$ref": "#/components/responses/TooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  }
                },
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "type": "object",
                        "properties": {
                          "keyword": {
                            "type": "string"
                          }
                        },
                        "required": [
                          "keyword"
                        ]
                      }
                    }
                  }
                },
                "security": [
                  {},
                  {
                    "bearer": []
                  }
                ]
              }
            },
            "/events": {
              "get": {
                "operationId": "events",
                "summary": "Server-Sent Events",
                "tags": [
                  "events"
                ],
                "responses": {
                  "200": {
                    "description": "An endless text/event-stream: `retry`, then `id`/`event`/`data` blocks and `: keep-alive` comments.",
                    "headers": {
                      "Cache-Control": {
                        "schema": {
                          "const": "no-cache"
                        }
                      },
                      "X-Accel-Buffering": {
                        "schema": {
                          "const": "no"
                        }
                      }
                    },
                    "content": {
                      "text/event-stream": {
                        "schema": {
                          "description": "One event: `data` is the topic's value as one line of JSON.",
                          "type": "object",
                          "properties": {
                            "id": {
                              "type": "string",
                              "pattern": "^[0-9]+$"
                            },
                            "event": {
                              "type": "string",
                              "enum": [
                                "todos",
                                "posts",
                                "albums",
                                "image",
                                "frameworks",
                                "movies"
                              ]
                            },
                            "data": {
                              "type": "string",
                              "contentMediaType": "application/json"
                            }
                          },
                          "required": [
                            "id",
                            "event",
                            "data"
                          ]
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  }
                },
                "parameters": [
                  {
                    "name": "topics",
                    "in": "query",
                    "required": false,
                    "style": "form",
                    "explode": false,
                    "description": "Comma-separated topics (all when absent); an unknown or empty one is a 400.",
                    "schema": {
                      "type": "array",
                      "items": {
                        "type": "string",
                        "enum": [
                          "todos",
                          "posts",
                          "albums",
                          "image",
                          "frameworks",
                          "movies"
                        ]
                      },
                      "minItems": 1
                    }
                  },
                  {
                    "name": "diff",
                    "in": "query",
                    "required": false,
                    "description": "`1` (or `true`, or empty) sends collection topics as inserted/updated/deleted changes.",
                    "schema": {
                      "type": "string",
                      "enum": [
                        "",
                        "0",
                        "1",
                        "true",
                        "false"
                      ]
                    }
                  },
                  {
                    "name": "Last-Event-ID",
                    "in": "header",
                    "required": false,
                    "description": "Resume after this event id; a value that is not a number is ignored (first connect).",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "lastEventID",
                    "in": "query",
                    "required": false,
                    "description": "As Last-Event-ID, for a page that opens a new EventSource (the header wins). Any other query parameter is a 400.",
                    "schema": {
                      "type": "string"
                    }
                  }
                ]
              }
            }
          },
          "components": {
            "securitySchemes": {
              "bearer": {
                "type": "http",
                "scheme": "bearer",
                "description": "Only when started with --token."
              }
            },
            "schemas": {
              "Error": {
                "type": "object",
                "properties": {
                  "error": {
                    "type": "string"
                  },
                  "message": {
                    "type": "string"
                  }
                },
                "required": [
                  "error",
                  "message"
                ],
                "additionalProperties": false
              },
              "Todo": {
                "type": "object",
                "properties": {
                  "id": {
                    "type": "integer"
                  },
                  "title": {
                    "type": "string"
                  },
                  "completed": {
                    "type": "boolean"
                  }
                },
                "required": [
                  "id",
                  "title",
                  "completed"
                ],
                "additionalProperties": false
              },
              "NewTodo": {
                "type": "object",
                "properties": {
                  "title": {
                    "type": "string"
                  }
                },
                "required": [
                  "title"
                ]
              },
              "TodoPatch": {
                "type": "object",
                "properties": {
                  "title": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "completed": {
                    "type": [
                      "boolean",
                      "null"
                    ]
                  }
                },
                "required": []
              },
              "Post": {
                "type": "object",
                "properties": {
                  "userId": {
                    "type": "integer"
                  },
                  "id": {
                    "type": "integer"
                  },
                  "title": {
                    "type": "string"
                  },
                  "body": {
                    "type": "string"
                  }
                },
                "required": [
                  "userId",
                  "id",
                  "title",
                  "body"
                ],
                "additionalProperties": false
              },
              "AlbumModel": {
                "type": "object",
                "properties": {
                  "albumId": {
                    "type": "integer"
                  },
                  "id": {
                    "type": "integer"
                  },
                  "title": {
                    "type": "string"
                  },
                  "url": {
                    "type": "string"
                  },
                  "thumbnailUrl": {
                    "type": "string"
                  }
                },
                "required": [
                  "albumId",
                  "id",
                  "title",
                  "url",
                  "thumbnailUrl"
                ],
                "additionalProperties": false
              },
              "AlbumSelection": {
                "oneOf": [
                  {
                    "type": "object",
                    "properties": {
                      "url": {
                        "type": "string",
                        "format": "uri"
                      }
                    },
                    "required": [
                      "url"
                    ]
                  },
                  {
                    "type": "object",
                    "properties": {
                      "id": {
                        "type": "integer"
                      }
                    },
                    "required": [
                      "id"
                    ]
                  }
                ]
              },
              "ImageInfo": {
                "type": "object",
                "properties": {
                  "url": {
                    "type": "string"
                  },
                  "contentType": {
                    "type": "string"
                  },
                  "bytes": {
                    "type": "integer",
                    "minimum": 0
                  }
                },
                "required": [
                  "url",
                  "contentType",
                  "bytes"
                ],
                "additionalProperties": false
              },
              "AppleFramework": {
                "type": "object",
                "properties": {
                  "name": {
                    "type": "string"
                  },
                  "imageName": {
                    "type": "string"
                  },
                  "urlString": {
                    "type": "string"
                  },
                  "description": {
                    "type": "string"
                  }
                },
                "required": [
                  "name",
                  "imageName",
                  "urlString",
                  "description"
                ],
                "additionalProperties": false
              },
              "Movie": {
                "type": "object",
                "properties": {
                  "id": {
                    "type": "string"
                  },
                  "resultType": {
                    "type": "string"
                  },
                  "image": {
                    "type": "string"
                  },
                  "title": {
                    "type": "string"
                  },
                  "description": {
                    "type": "string"
                  }
                },
                "required": [
                  "id",
                  "resultType",
                  "image",
                  "title",
                  "description"
                ],
                "additionalProperties": false
              },
              "MovieSearchResult": {
                "type": "object",
                "properties": {
                  "searchType": {
                    "type": "string"
                  },
                  "expression": {
                    "type": "string"
                  },
                  "results": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Movie"
                    }
                  },
                  "errorMessage": {
                    "type": "string"
                  }
                },
                "required": [
                  "searchType",
                  "expression",
                  "results",
                  "errorMessage"
                ],
                "additionalProperties": false
              }
            },
            "responses": {
              "BadRequest": {
                "description": "Malformed JSON, a wrong field type (the message names the field), a bad path parameter or query",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "Unauthorized": {
                "description": "Missing or wrong bearer token (only with --token)",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "NotFound": {
                "description": "No such id",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "TooLarge": {
                "description": "Body over 1 MiB",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "UnsupportedMediaType": {
                "description": "A body whose Content-Type is not JSON",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "Unprocessable": {
                "description": "A well-formed value the view model rejects",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "BadGateway": {
                "description": "The upstream failed: responseError, decodingError, invalidURL or unknown",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "GatewayTimeout": {
                "description": "The upstream took over 10 s",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "StorageUnavailable": {
                "description": "The todo store could not commit the change (nothing was changed)",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              }
            }
          }
        }
        """#
}
