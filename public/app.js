// LiveState page: plain JavaScript, no build step.
// Reads go through GET, mutations through POST/PUT/PATCH/DELETE, and every change
// (ours or another client's) comes back through one EventSource on /events.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const TOKEN_KEY = "livestate.token";
  const ALBUM_PAGE_SIZE = 24;
  const TOPICS = ["todos", "posts", "albums", "image", "frameworks", "movies"];

  const state = {
    albumPage: 1,
    albumPages: 1,
    albumRequest: 0,
    selectedAlbumId: null,
    frameworks: [],
    selectedFramework: null,
    everLive: false,
  };

  // ---------- small helpers ----------

  /** Creates an element with properties and children (text or nodes); never parses HTML. */
  function el(tag, props = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props)) {
      if (key === "class") node.className = value;
      else if (key === "dataset") Object.assign(node.dataset, value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key in node && typeof value !== "string") node[key] = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) {
      if (child == null) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function token() {
    try { return localStorage.getItem(TOKEN_KEY) || ""; } catch { return ""; }
  }

  /**
   * Calls the API. Resolves to {ok, status, data, headers}; never throws for HTTP errors.
   * A network failure resolves with status 0 and a message a person can read.
   */
  async function api(method, path, body) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (method !== "GET" && token()) headers.Authorization = `Bearer ${token()}`;
    let response;
    try {
      response = await fetch(path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      return { ok: false, status: 0, data: { message: "The server cannot be reached." }, headers: new Headers() };
    }
    let data = null;
    const type = response.headers.get("Content-Type") || "";
    if (response.status !== 204 && type.includes("json")) {
      try { data = await response.json(); } catch { data = null; }
    }
    return { ok: response.ok, status: response.status, data, headers: response.headers };
  }

  /** The text to show for a failed call: the server's own message when it sent one. */
  function failure(result) {
    if (result.status === 401) {
      $("settings-note").textContent = "The server wants a token: set it here.";
      document.querySelector(".settings").open = true;
    }
    const message = result.data && result.data.message;
    return message || `Request failed (HTTP ${result.status}).`;
  }

  function hue(text) {
    let h = 0;
    for (const ch of text) h = (h * 31 + ch.codePointAt(0)) % 360;
    return h;
  }

  // ---------- connection ----------

  const CONN_LABELS = { connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…", offline: "Offline" };

  function setConnection(status) {
    const node = $("conn-state");
    node.dataset.state = status;
    node.querySelector(".conn-label").textContent = CONN_LABELS[status];
  }

  function connect() {
    setConnection(state.everLive ? "reconnecting" : "connecting");
    const source = new EventSource("/events");
    source.addEventListener("open", () => {
      state.everLive = true;
      setConnection("live");
    });
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) {
        // The browser gives up on an HTTP error answer; try again on our own.
        setConnection("offline");
        source.close();
        setTimeout(connect, 3000);
      } else {
        setConnection("reconnecting");
      }
    });
    for (const topic of TOPICS) {
      source.addEventListener(topic, (event) => {
        let value;
        try { value = JSON.parse(event.data); } catch { return; }
        $("last-event").textContent = `#${event.lastEventId} (${topic}) at ${new Date().toLocaleTimeString()}`;
        handlers[topic](value, event.lastEventId);
      });
    }
  }

  // ---------- todos ----------

  function renderTodos(todos) {
    const list = $("todo-list");
    const existing = new Map([...list.children].map((li) => [li.dataset.id, li]));
    const wanted = new Set();
    todos.forEach((todo, index) => {
      const key = String(todo.id);
      wanted.add(key);
      let li = existing.get(key);
      if (!li) li = todoItem(todo);
      const checkbox = li.querySelector("input");
      checkbox.checked = Boolean(todo.completed);
      checkbox.disabled = false;
      li.querySelector("label").textContent = todo.title;
      li.querySelector(".delete").setAttribute("aria-label", `Delete “${todo.title}”`);
      li.classList.toggle("done", Boolean(todo.completed));
      if (list.children[index] !== li) list.insertBefore(li, list.children[index] || null);
    });
    for (const [key, li] of existing) if (!wanted.has(key)) li.remove();
    const open = todos.filter((t) => !t.completed).length;
    $("todo-count").textContent = todos.length ? `${open} open of ${todos.length}` : "";
    $("todo-empty").hidden = todos.length > 0;
  }

  function todoItem(todo) {
    const id = `todo-${todo.id}`;
    const checkbox = el("input", { type: "checkbox", id });
    checkbox.addEventListener("change", async () => {
      checkbox.disabled = true;
      const result = await api("PATCH", `/todos/${todo.id}`, { completed: checkbox.checked });
      checkbox.disabled = false;
      if (!result.ok) {
        checkbox.checked = !checkbox.checked;
        $("todo-error").textContent = failure(result);
      }
    });
    const remove = el("button", { type: "button", class: "delete" }, "Delete");
    remove.addEventListener("click", async () => {
      remove.disabled = true;
      const result = await api("DELETE", `/todos/${todo.id}`);
      remove.disabled = false;
      if (!result.ok && result.status !== 404) $("todo-error").textContent = failure(result);
    });
    return el("li", { class: "todo-item", dataset: { id: String(todo.id) } }, checkbox, el("label", { for: id }), remove);
  }

  $("todo-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("todo-input");
    const button = $("todo-add");
    $("todo-error").textContent = "";
    button.disabled = true;
    const result = await api("POST", "/todos", { title: input.value });
    button.disabled = false;
    if (result.ok) {
      input.value = "";
    } else {
      $("todo-error").textContent = failure(result);
    }
    input.focus();
  });
  $("todo-input").addEventListener("input", () => { $("todo-error").textContent = ""; });

  // ---------- posts ----------

  function renderPosts(posts) {
    const items = posts.map((post) => el("li", { class: "post" },
      el("p", { class: "meta" }, `#${post.id} · user ${post.userId}`),
      el("h3", {}, post.title),
      el("p", {}, post.body)));
    $("post-list").replaceChildren(...items);
    $("post-count").textContent = `${posts.length} post${posts.length === 1 ? "" : "s"}`;
  }

  $("post-refresh").addEventListener("click", async () => {
    const button = $("post-refresh");
    button.disabled = true;
    $("post-error").textContent = "";
    const result = await api("POST", "/posts/refresh");
    button.disabled = false;
    if (!result.ok) $("post-error").textContent = failure(result);
  });

  // ---------- albums ----------

  async function loadAlbumPage(page) {
    const request = ++state.albumRequest;
    const result = await api("GET", `/albums?_page=${page}&_limit=${ALBUM_PAGE_SIZE}`);
    if (request !== state.albumRequest) return; // a newer page request won
    if (!result.ok || !Array.isArray(result.data)) {
      $("album-error").textContent = failure(result);
      return;
    }
    $("album-error").textContent = "";
    const total = Number(result.headers.get("X-Total-Count") || result.data.length);
    state.albumPages = Math.max(1, Math.ceil(total / ALBUM_PAGE_SIZE));
    if (page > state.albumPages && total > 0) return loadAlbumPage(state.albumPages);
    state.albumPage = page;
    $("album-count").textContent = `${total.toLocaleString()} photo${total === 1 ? "" : "s"}`;
    $("album-page").textContent = total ? `Page ${page} of ${state.albumPages}` : "No photos yet";
    $("album-prev").disabled = page <= 1;
    $("album-next").disabled = page >= state.albumPages;
    const thumbs = result.data.map((album) => {
      const button = el("button", {
        type: "button", class: "album-thumb", role: "listitem",
        "aria-pressed": String(album.id === state.selectedAlbumId),
        "aria-label": `Photo ${album.id}: ${album.title}`, title: album.title,
        dataset: { id: String(album.id) },
      }, el("img", { src: album.thumbnailUrl, alt: "", loading: "lazy", width: "150", height: "150" }));
      button.addEventListener("click", () => selectAlbum(album));
      return button;
    });
    $("album-grid").replaceChildren(...thumbs);
  }

  async function selectAlbum(album) {
    state.selectedAlbumId = album.id;
    for (const node of $("album-grid").children) {
      node.setAttribute("aria-pressed", String(node.dataset.id === String(album.id)));
    }
    $("album-error").textContent = "";
    $("album-caption").textContent = `Loading “${album.title}”…`;
    const result = await api("POST", "/albums/selection", { id: album.id });
    if (!result.ok) {
      $("album-error").textContent = failure(result);
      $("album-caption").textContent = "";
    }
    // The image itself arrives with the `image` event, for every open page.
  }

  function showImage(image, eventId) {
    if (!image) return;
    const img = $("album-image");
    const src = `/albums/selection/image?v=${encodeURIComponent(eventId || Date.now())}`;
    img.onload = () => {
      img.hidden = false;
      $("album-viewer").classList.add("has-image");
      $("album-placeholder").hidden = true;
    };
    img.onerror = () => { $("album-error").textContent = "The selected image could not be shown."; };
    img.alt = `Selected photo from ${image.url}`;
    img.src = src;
    const kb = image.bytes != null ? ` · ${(image.bytes / 1024).toFixed(1)} kB` : "";
    $("album-caption").textContent = `${image.url} · ${image.contentType || "image"}${kb}`;
  }

  $("album-prev").addEventListener("click", () => loadAlbumPage(Math.max(1, state.albumPage - 1)));
  $("album-next").addEventListener("click", () => loadAlbumPage(Math.min(state.albumPages, state.albumPage + 1)));

  // ---------- frameworks ----------

  function badge(name, large) {
    return el("span", {
      class: large ? "badge large" : "badge", "aria-hidden": "true",
      style: `background: hsl(${hue(name)} 55% 45%)`,
    }, name.slice(0, 1).toUpperCase());
  }

  async function loadFrameworks() {
    const result = await api("GET", "/frameworks");
    if (!result.ok || !Array.isArray(result.data)) {
      $("framework-error").textContent = failure(result);
      return;
    }
    state.frameworks = result.data;
    const cells = result.data.map((framework) => {
      const button = el("button", {
        type: "button", class: "framework", role: "listitem", "aria-pressed": "false",
        dataset: { name: framework.name }, title: framework.description || framework.name,
      }, badge(framework.name), el("span", {}, framework.name));
      button.addEventListener("click", async () => {
        $("framework-error").textContent = "";
        const sent = await api("POST", "/frameworks/selection", { name: framework.name });
        if (!sent.ok) $("framework-error").textContent = failure(sent);
        // The detail opens when the `frameworks` event comes back, on every open page.
      });
      return button;
    });
    $("framework-grid").replaceChildren(...cells);
    if (state.selectedFramework) markFramework(state.selectedFramework.name);
  }

  function markFramework(name) {
    for (const node of $("framework-grid").children) {
      node.setAttribute("aria-pressed", String(node.dataset.name === name));
    }
  }

  function showFramework(framework) {
    if (!framework) return;
    state.selectedFramework = framework;
    $("framework-detail-badge").replaceWith(Object.assign(badge(framework.name, true), { id: "framework-detail-badge" }));
    $("framework-detail-name").textContent = framework.name;
    $("framework-detail-description").textContent = framework.description || "";
    const link = $("framework-detail-link");
    link.href = framework.urlString;
    link.setAttribute("aria-label", `Learn more about ${framework.name}`);
    $("framework-detail").hidden = false;
    markFramework(framework.name);
  }

  $("framework-detail-close").addEventListener("click", () => {
    $("framework-detail").hidden = true;
    markFramework(null);
  });

  // ---------- movies ----------

  let keywordSent = 0;
  $("movie-search").addEventListener("input", async () => {
    const keyword = $("movie-search").value;
    const sent = ++keywordSent;
    $("movie-status").textContent = "Searching…";
    $("movie-error").textContent = "";
    const result = await api("PUT", "/movies/keyword", { keyword });
    if (!result.ok && sent === keywordSent) {
      $("movie-status").textContent = "";
      $("movie-error").textContent = failure(result);
    }
  });
  $("movie-form").addEventListener("submit", (event) => event.preventDefault());

  function renderMovies(result) {
    if (!result) return;
    const movies = Array.isArray(result.results) ? result.results : [];
    const items = movies.map((movie) => el("li", { class: "movie" },
      movie.image ? el("img", { src: movie.image, alt: "", loading: "lazy", width: "48", height: "64" })
                  : el("span", { class: "poster", "aria-hidden": "true" }),
      el("div", {}, el("h3", {}, movie.title), el("p", {}, movie.description))));
    $("movie-results").replaceChildren(...items);
    $("movie-empty").hidden = movies.length > 0;
    if (!movies.length && result.expression) $("movie-empty").textContent = `No film matches “${result.expression}”.`;
    const expression = result.expression || "";
    $("movie-status").textContent = expression
      ? `${movies.length} result${movies.length === 1 ? "" : "s"} for “${expression}”`
      : "";
    $("movie-error").textContent = result.errorMessage || "";
  }

  // ---------- settings ----------

  $("token-input").value = token();
  $("settings-form").addEventListener("submit", (event) => {
    event.preventDefault();
    try { localStorage.setItem(TOKEN_KEY, $("token-input").value.trim()); } catch { /* private mode */ }
    $("settings-note").textContent = token() ? "Token saved in this browser." : "No token set.";
  });
  $("token-clear").addEventListener("click", () => {
    try { localStorage.removeItem(TOKEN_KEY); } catch { /* private mode */ }
    $("token-input").value = "";
    $("settings-note").textContent = "Token cleared.";
  });

  // ---------- live events ----------

  const handlers = {
    todos: (todos) => Array.isArray(todos) && renderTodos(todos),
    posts: (posts) => Array.isArray(posts) && renderPosts(posts),
    albums: () => loadAlbumPage(state.albumPage),
    image: (image, id) => showImage(image, id),
    frameworks: (value) => showFramework(value && value.selected),
    movies: (result) => renderMovies(result),
  };

  loadFrameworks();
  loadAlbumPage(1);
  connect();
})();
