// LiveState page: plain JavaScript, no build step.
// Reads go through GET, mutations through POST/PUT/PATCH/DELETE, and every change
// (ours or another client's) comes back through one EventSource on /events, or a live query (/livestate.js).
import { live } from "/livestate.js";

(() => {
  const $ = (id) => document.getElementById(id);
  const TOKEN_KEY = "livestate.token";
  const ALBUM_PAGE_SIZE = 24;
  // Only what the page shows from the stream. The album grid's page and the todos (whole or filtered) are
  // live queries of their own (`live`, from /livestate.js): the page receives the 24 photos it shows and their changes,
  // never the whole photo list (5,000 photos, about 720 kB), nor todos its filter hides.
  const TOPICS = ["posts", "image", "frameworks", "movies"];
  // Collections change by `{"inserted","updated","deleted"}` (after the first, whole value).
  const EVENTS_URL = `/events?topics=${TOPICS.join(",")}&diff=1`;
  // How long a selected photo may take before the page says it did not arrive. The server gives up on a
  // download after 10 s; a little more, so that its own answer (`failed`) can come first.
  const SELECTION_TIMEOUT_MS = 12000;
  // The album grid has no event of its own on this stream: it is read again when the stream (re)opens,
  // when the window comes back into view, and every so often while it is visible.
  const ALBUM_RECHECK_MS = 60000;
  const ALBUM_RECHECK_EMPTY_MS = 5000;

  const state = {
    albumPage: 1,
    albumPages: 1,
    albumRequest: 0,
    albums: [],
    albumsLoadedAt: 0,
    /** The image shown: `{url, contentType, bytes}` as the server sent it, or null. */
    image: null,
    /** The selection made last that is not the image shown yet: `{url, title, since}` or null. */
    selection: null,
    selectionTimer: 0,
    todos: [],
    todoTotal: 0,
    /** The todo filter: "" (all), "false" (open) or "true" (done): the `completed` of the live query. */
    todoFilter: "",
    posts: [],
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
      // Through the CSSOM, not a `style` attribute, which a Content-Security-Policy without
      // 'unsafe-inline' styles refuses.
      else if (key === "style") Object.assign(node.style, value);
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
   * Reads revalidate (`no-cache`): with an ETag the server answers 304 and nothing is sent again.
   */
  async function api(method, path, body) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (method !== "GET" && token()) headers.Authorization = `Bearer ${token()}`;
    let response;
    try {
      response = await fetch(path, {
        method, headers, cache: "no-cache", body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      return { ok: false, status: 0, data: { message: "The server cannot be reached. Is it running?" }, headers: new Headers() };
    }
    let data = null;
    const type = response.headers.get("Content-Type") || "";
    if (response.status !== 204 && type.includes("json")) {
      try { data = await response.json(); } catch { data = null; }
    }
    return { ok: response.ok, status: response.status, data, headers: response.headers };
  }

  /** The text to show for a failed call: the server's own message, or what to do about a token. */
  function failure(result) {
    if (result.status === 401) {
      const saved = token() !== "";
      openSettings(saved
        ? "The server did not accept the saved token. Check it (ask whoever started the server) and save it again."
        : "This server only accepts changes with its token. Paste the token here and press Save.");
      return saved
        ? "The change was refused: the saved token is not the server's. Check it in Settings, then try again."
        : "The change was refused: this server needs a token. Enter it in Settings (top right), then try again.";
    }
    const message = result.data && result.data.message;
    return message || `Request failed (HTTP ${result.status}).`;
  }

  function hue(text) {
    let h = 0;
    for (const ch of text) h = (h * 31 + ch.codePointAt(0)) % 360;
    return h;
  }

  /**
   * Applies a `?diff=1` change to a list kept in the server's order (by id): updated items in place,
   * deleted ones out, inserted ones at the end (new ids are the highest). A whole list replaces it.
   * Applying a change twice gives the same list, so a replayed event after a reload does no harm.
   */
  function applyChange(list, value, key = "id") {
    if (Array.isArray(value)) return value;
    if (!value || typeof value !== "object") return list;
    const gone = new Set((value.deleted || []).map(String));
    const changed = new Map([...(value.updated || []), ...(value.inserted || [])].map((item) => [String(item[key]), item]));
    const next = [];
    for (const item of list) {
      const id = String(item[key]);
      if (gone.has(id)) continue;
      if (changed.has(id)) { next.push(changed.get(id)); changed.delete(id); } else next.push(item);
    }
    for (const item of value.inserted || []) if (changed.has(String(item[key]))) next.push(item);
    return next;
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
    const source = new EventSource(EVENTS_URL);
    source.addEventListener("open", () => {
      const again = state.everLive;
      state.everLive = true;
      setConnection("live");
      // What the stream does not carry may have changed while it was down.
      if (again) { loadAlbumPage(state.albumPage); if (state.image) loadSelection(); }
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
    const shown = { "": `${open} open of ${todos.length}`, false: `${state.todoTotal} open`, true: `${state.todoTotal} done` };
    $("todo-count").textContent = todos.length ? shown[state.todoFilter] : "";
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
      input.focus();
    } else {
      $("todo-error").textContent = failure(result);
      if (result.status !== 401) input.focus();
    }
  });
  $("todo-input").addEventListener("input", () => { $("todo-error").textContent = ""; });

  let closeTodos = null;
  /** Shows the todos of the filter: a live query of all of them, or of the open or the done ones. */
  function followTodos(filter) {
    if (closeTodos) closeTodos();
    state.todoFilter = filter;
    closeTodos = live(filter ? `/todos?completed=${filter}` : "/todos", (todos, { total }) => {
      state.todos = todos;
      state.todoTotal = total;
      renderTodos(todos);
    });
  }
  $("todo-filter").addEventListener("change", (event) => followTodos(event.target.value));

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

  let closeAlbums = null;
  /** Follows page `page` of the photos as a live query (`/photos`, the same list as `/albums` under
   * jsonplaceholder's name); asking again for the page already followed changes nothing. */
  function loadAlbumPage(page) {
    if (closeAlbums && page === state.albumPage) return;
    if (closeAlbums) closeAlbums();
    const request = ++state.albumRequest;
    state.albumPage = page;
    closeAlbums = live(`/photos?_page=${page}&_limit=${ALBUM_PAGE_SIZE}`, (items, { total }) => {
      if (request === state.albumRequest) showAlbumPage(page, items, total);
    });
  }

  function showAlbumPage(page, data, total) {
    const result = { data };
    $("album-error").textContent = "";
    state.albumPages = Math.max(1, Math.ceil(total / ALBUM_PAGE_SIZE));
    if (page > state.albumPages && total > 0) { loadAlbumPage(state.albumPages); return; }
    state.albumsLoadedAt = Date.now();
    const unchanged = page === state.albumPage && JSON.stringify(result.data) === JSON.stringify(state.albums);
    state.albumPage = page;
    $("album-count").textContent = `${total.toLocaleString()} photo${total === 1 ? "" : "s"}`;
    $("album-page").textContent = total ? `Page ${page} of ${state.albumPages}` : "No photos yet";
    $("album-prev").disabled = page <= 1;
    $("album-next").disabled = page >= state.albumPages;
    if (unchanged && $("album-grid").children.length) return; // keeps the buttons (and keyboard focus)
    state.albums = result.data;
    const thumbs = result.data.map((album) => {
      const button = el("button", {
        type: "button", class: "album-thumb", role: "listitem", "aria-pressed": "false",
        "aria-label": `Photo ${album.id}: ${album.title}`, title: album.title,
        dataset: { id: String(album.id), url: album.url },
      }, el("img", { src: album.thumbnailUrl, alt: "", loading: "lazy", width: "150", height: "150" }));
      button.addEventListener("click", () => selectAlbum(album));
      return button;
    });
    $("album-grid").replaceChildren(...thumbs);
    markThumbnails();
  }

  /** Marks the thumbnail of the photo on show (or being loaded), the same way in every window. */
  function markThumbnails() {
    const wanted = state.selection ? state.selection.url : state.image && state.image.url;
    for (const node of $("album-grid").children) {
      const pressed = wanted != null && node.dataset.url === wanted;
      node.setAttribute("aria-pressed", String(pressed));
      node.classList.toggle("pending", pressed && state.selection != null);
    }
  }

  function titleOf(url) {
    const album = state.albums.find((a) => a.url === url);
    return album ? album.title : null;
  }

  function describe(url, title) {
    return title ? `“${title}”` : url;
  }

  async function selectAlbum(album) {
    $("selection-error").textContent = "";
    startWaiting({ url: album.url, title: album.title });
    // On a phone the viewer sits above the grid: bring it into view, where the outcome will show.
    if (window.matchMedia("(max-width: 720px)").matches) $("album-viewer").scrollIntoView({ block: "nearest" });
    const result = await api("POST", "/albums/selection", { id: album.id });
    if (!result.ok) {
      stopWaiting();
      $("selection-error").textContent = failure(result);
      showCaption();
      return;
    }
    // The image itself arrives with the `image` event, for every open page. Whether its download is
    // still running or failed only `GET /albums/selection` says: ask until one of them is known. Before
    // the first image that answer is a 404, which the browser logs as an error: then the `image` event or
    // the timeout says it.
    if (state.image) pollSelection(album.url);
  }

  /** Shows that `selection` is loading, and says so plainly if nothing comes in time. */
  function startWaiting(selection) {
    clearTimeout(state.selectionTimer);
    state.selection = { ...selection, since: Date.now() };
    $("album-viewer").dataset.state = "pending";
    $("album-caption").textContent = `Loading ${describe(selection.url, selection.title)}…`;
    markThumbnails();
    state.selectionTimer = setTimeout(() => {
      if (!state.selection || state.selection.url !== selection.url) return;
      selectionFailed(selection.url,
        "it did not arrive within 12 seconds. The image's host may be down or slow; try again or pick another photo.");
    }, SELECTION_TIMEOUT_MS);
  }

  function stopWaiting() {
    clearTimeout(state.selectionTimer);
    state.selection = null;
    markThumbnails();
  }

  function selectionFailed(url, reason) {
    const title = (state.selection && state.selection.url === url && state.selection.title) || titleOf(url);
    stopWaiting();
    $("album-viewer").dataset.state = "failed";
    $("selection-error").textContent = `Could not show ${describe(url, title)}: ${reason}`;
    showCaption();
  }

  async function pollSelection(url) {
    while (state.image && state.selection && state.selection.url === url) {
      await new Promise((resolve) => setTimeout(resolve, 700));
      if (!state.selection || state.selection.url !== url) return;
      const result = await api("GET", "/albums/selection");
      if (result.ok && result.data) applySelection(result.data);
    }
  }

  /** Reads `GET /albums/selection`: the image on show, and what became of a newer selection. Asked only
   * once an image exists (the `image` topic of /events says so): before, the answer is a 404, which the
   * browser's console shows as an error. */
  async function loadSelection() {
    if (!state.image) return;
    const result = await api("GET", "/albums/selection");
    if (result.ok && result.data) applySelection(result.data);
  }

  /** Shows a selection state `{url, contentType, bytes, pending?: {url}, failed?: {url, reason}}`. */
  function applySelection(value) {
    if (value.url && value.contentType) showImage(value);
    if (value.failed && value.failed.url) {
      if (!state.selection || state.selection.url === value.failed.url) {
        selectionFailed(value.failed.url, readableReason(value.failed.reason));
      }
    } else if (value.pending && value.pending.url) {
      if (!state.selection || state.selection.url !== value.pending.url) {
        startWaiting({ url: value.pending.url, title: titleOf(value.pending.url) });
        pollSelection(value.pending.url);
      }
    }
  }

  function readableReason(reason) {
    const text = typeof reason === "string" ? reason.trim() : "";
    return text ? text.replace(/\.?$/, ".") : "the server could not download it as an image.";
  }

  function showImage(image) {
    if (!image || !image.url) return;
    state.image = image;
    if (state.selection && state.selection.url === image.url) stopWaiting();
    if (!state.selection) {
      $("album-viewer").dataset.state = "shown";
      $("selection-error").textContent = "";
    }
    const img = $("album-image");
    // One address per image, so that the same image (from the stream and from GET) loads once.
    const src = `/albums/selection/image?v=${encodeURIComponent(`${image.url} ${image.bytes}`)}`;
    img.onload = () => {
      img.hidden = false;
      $("album-viewer").classList.add("has-image");
      $("album-placeholder").hidden = true;
    };
    img.onerror = () => { $("selection-error").textContent = "The selected image could not be shown by this browser."; };
    const title = titleOf(image.url);
    img.alt = title ? `Selected photo: ${title}` : `Selected photo from ${image.url}`;
    if (img.getAttribute("src") !== src) img.src = src;
    markThumbnails();
    showCaption();
  }

  function showCaption() {
    if (state.selection) return;
    const image = state.image;
    if (!image) { $("album-caption").textContent = ""; return; }
    const kb = image.bytes != null ? ` · ${(image.bytes / 1024).toFixed(1)} kB` : "";
    const title = titleOf(image.url);
    $("album-caption").textContent = `${title ? `“${title}” · ` : ""}${image.url} · ${image.contentType || "image"}${kb}`;
  }

  $("album-prev").addEventListener("click", () => loadAlbumPage(Math.max(1, state.albumPage - 1)));
  $("album-next").addEventListener("click", () => loadAlbumPage(Math.min(state.albumPages, state.albumPage + 1)));

  function recheckAlbums() {
    const due = state.albums.length ? ALBUM_RECHECK_MS : ALBUM_RECHECK_EMPTY_MS;
    if (document.visibilityState === "visible" && Date.now() - state.albumsLoadedAt >= due) {
      loadAlbumPage(state.albumPage);
    }
    // The `image` topic carries only images that arrived: whether a selection made in another window
    // is still loading or failed only GET /albums/selection says. Asked once an image exists (before,
    // the answer is a 404, which the browser would log each time).
    if (document.visibilityState === "visible" && state.image && !state.selection) loadSelection();
    setTimeout(recheckAlbums, ALBUM_RECHECK_EMPTY_MS);
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") { loadAlbumPage(state.albumPage); loadSelection(); }
  });

  // ---------- frameworks ----------

  function badge(name, large) {
    return el("span", {
      class: large ? "badge large" : "badge", "aria-hidden": "true",
      style: { background: `hsl(${hue(name)} 55% 45%)` },
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

  // The keyword is the server's: every window shows the one the latest search ran for. While this
  // window's own typing has not come back yet, its box is left alone.
  const typing = { keyword: null, at: 0 };
  const MOVIE_HINT = $("movie-empty").textContent;

  $("movie-search").addEventListener("input", async () => {
    const keyword = $("movie-search").value;
    typing.keyword = keyword;
    typing.at = Date.now();
    $("movie-status").textContent = keyword.trim() ? "Searching…" : "";
    $("movie-error").textContent = "";
    sendKeyword(keyword);
  });

  // One keyword request at a time, the newest typed going next: requests sent at once may travel on
  // different connections and reach the server out of order, which would leave it with an older
  // keyword than the box shows (a fast typist's last letter lost in every window).
  const outgoing = { sending: false, next: null };
  async function sendKeyword(keyword) {
    outgoing.next = keyword;
    if (outgoing.sending) return;
    outgoing.sending = true;
    while (outgoing.next !== null) {
      const sent = outgoing.next;
      outgoing.next = null;
      const result = await api("PUT", "/movies/keyword", { keyword: sent });
      if (!result.ok && typing.keyword === sent && outgoing.next === null) {
        typing.keyword = null;
        $("movie-status").textContent = "";
        $("movie-error").textContent = failure(result);
      }
    }
    outgoing.sending = false;
  }
  $("movie-form").addEventListener("submit", (event) => event.preventDefault());

  function renderMovies(result) {
    if (!result) return;
    const expression = typeof result.expression === "string" ? result.expression : "";
    const mine = typing.keyword !== null && Date.now() - typing.at < 3000;
    if (mine && expression !== typing.keyword) return; // this window's newer keyword is on its way
    typing.keyword = null;
    const field = $("movie-search");
    if (field.value !== expression) field.value = expression;
    const movies = Array.isArray(result.results) ? result.results : [];
    const items = movies.map((movie) => el("li", { class: "movie" },
      movie.image ? el("img", { src: movie.image, alt: "", loading: "lazy", width: "48", height: "64" })
                  : el("span", { class: "poster", "aria-hidden": "true" }),
      el("div", {}, el("h3", {}, movie.title), el("p", {}, movie.description))));
    $("movie-results").replaceChildren(...items);
    const searched = expression.trim() !== "";
    $("movie-empty").hidden = movies.length > 0;
    $("movie-empty").textContent = searched && !movies.length ? `No film matches “${expression}”.` : MOVIE_HINT;
    $("movie-status").textContent = searched
      ? `${movies.length} result${movies.length === 1 ? "" : "s"} for “${expression}”`
      : "";
    $("movie-error").textContent = result.errorMessage || "";
  }

  // ---------- settings ----------

  const settings = document.querySelector(".settings");

  function openSettings(note) {
    $("settings-note").textContent = note;
    settings.open = true;
    $("token-input").focus();
  }

  function showTokenState() {
    $("settings-state").textContent = token() ? "token set" : "";
  }

  $("token-input").value = token();
  showTokenState();
  $("settings-form").addEventListener("submit", (event) => {
    event.preventDefault();
    try { localStorage.setItem(TOKEN_KEY, $("token-input").value.trim()); } catch { /* private mode */ }
    $("settings-note").textContent = "";
    showTokenState();
    settings.open = false;
    // Back to what the person was doing: the change that asked for the token can be sent again.
    $("todo-error").textContent = "";
  });
  $("token-clear").addEventListener("click", () => {
    try { localStorage.removeItem(TOKEN_KEY); } catch { /* private mode */ }
    $("token-input").value = "";
    $("settings-note").textContent = "Token removed from this browser.";
    showTokenState();
  });
  // A popover: Escape or a click elsewhere closes it.
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && settings.open) { settings.open = false; settings.querySelector("summary").focus(); }
  });
  document.addEventListener("click", (event) => {
    if (settings.open && !settings.contains(event.target)) settings.open = false;
  });

  // ---------- live events ----------

  const handlers = {
    posts: (value) => { state.posts = applyChange(state.posts, value); renderPosts(state.posts); },
    image: (image) => applySelection(image),
    frameworks: (value) => showFramework(value && value.selected),
    movies: (result) => renderMovies(result),
  };

  loadFrameworks();
  followTodos("");
  loadAlbumPage(1);
  // The selection's image comes with the /events replay (the `image` topic), so the first load asks
  // nothing that could answer 404.
  connect();
  setTimeout(recheckAlbums, ALBUM_RECHECK_EMPTY_MS);
})();
