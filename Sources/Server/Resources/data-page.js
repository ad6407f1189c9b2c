// The built-in page of a data file: the resources with live counts, and a chosen collection as a live
// table (rows appear, change and disappear as the data does), a page of 50 rows at a time. Everything it
// shows comes from live queries (docs/api.md, "Live queries"), so it receives nothing it does not show:
// per collection `?_limit=0` (its count only), for the table `?_page=N&_limit=50`, and the singular
// resources' topics of /events. A list of values (an array whose elements are not all objects) is read-only
// and no topic: it is shown as /db gave it, with its length. `$schema` is no resource: not listed.
import { idKey, live } from "/livestate.js";

const PAGE = 50;
const state = { resources: {}, chosen: null, page: 1, idField: "id", table: null, counts: {}, streams: [] };
const list = document.getElementById("resources");
const view = document.getElementById("view");
const title = document.getElementById("title");
const status = document.getElementById("status");
const STATUS = { live: "Live", reconnecting: "Reconnecting…", offline: "Offline" };
// The page's streams say how they are (the last to speak wins: they share one server).
const onStatus = (now) => { if (STATUS[now]) status.textContent = STATUS[now]; };

function setCount(name, text) {
  state.counts[name] = text;
  const count = document.querySelector(`[data-count="${CSS.escape(name)}"]`);
  if (count) count.textContent = text;
}

function renderList() {
  list.textContent = "";
  for (const [name, kind] of Object.entries(state.resources)) {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.resource = name;
    button.setAttribute("aria-pressed", String(state.chosen === name));
    const label = document.createElement("span");
    label.textContent = "/" + name;
    const count = document.createElement("span");
    count.className = "count";
    count.dataset.count = name;
    count.textContent = state.counts[name] ?? (kind === "collection" ? "…" : kind === "value" ? "list" : "object");
    button.append(label, count);
    button.addEventListener("click", () => choose(name, 1));
    item.append(button);
    list.append(item);
  }
}

function renderTable(rows, total, changed) {
  view.textContent = "";
  const columns = [];
  for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const column of columns) { const th = document.createElement("th"); th.textContent = column; head.append(th); }
  const body = table.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    tr.dataset.id = String(row[state.idField]);
    if (changed && changed.has(idKey(row[state.idField]))) tr.className = "changed";
    for (const column of columns) {
      const cell = tr.insertCell();
      const value = row[column];
      cell.textContent = value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);
    }
  }
  view.append(table);
  const pages = Math.max(1, Math.ceil(total / PAGE));
  const nav = document.createElement("p");
  nav.className = "pages";
  const previous = document.createElement("button");
  previous.type = "button";
  previous.textContent = "‹ Previous";
  previous.disabled = state.page <= 1;
  previous.addEventListener("click", () => choose(state.chosen, state.page - 1));
  const next = document.createElement("button");
  next.type = "button";
  next.textContent = "Next ›";
  next.disabled = state.page >= pages;
  next.addEventListener("click", () => choose(state.chosen, state.page + 1));
  const where = document.createElement("span");
  where.dataset.page = String(state.page);
  where.textContent = ` page ${state.page} of ${pages} `;
  nav.append(previous, where, next);
  view.append(nav);
}

function renderObject(value) {
  view.textContent = "";
  const pre = document.createElement("pre");
  pre.textContent = JSON.stringify(value, null, 2);
  view.append(pre);
}

function choose(name, page) {
  state.chosen = name;
  state.page = page;
  renderList();
  title.textContent = "/" + name;
  if (state.table) { state.table(); state.table = null; }
  if (state.resources[name] === "value") { renderObject(state.values[name]); return; }
  if (state.resources[name] !== "collection") { renderObject(state.singulars[name]); return; }
  state.table = live(`/${encodeURIComponent(name)}?_page=${page}&_limit=${PAGE}`, (rows, { total, change }) => {
    const changed = change && new Set(change.inserted.concat(change.updated).map((row) => idKey(row[state.idField])));
    renderTable(rows, total, changed);
  }, { idField: state.idField, onStatus });
}

// Whether an array of /db is a list of values: an element that is not an object (an empty array is a
// collection, as the server takes it).
function isValueList(array) {
  return array.some((element) => element === null || typeof element !== "object" || Array.isArray(element));
}

// Reads /db and opens the streams of its resources; closes those of an earlier load first (the set of
// resources changed: a save of the file added or removed some).
function load() {
  for (const close of state.streams) close();
  state.streams = [];
  state.resources = {};
  state.counts = {};
  return fetch("/db").then((response) => response.json()).then((db) => {
    state.singulars = {};
    state.values = {};
    delete db.$schema;
    for (const [name, value] of Object.entries(db)) {
      if (Array.isArray(value) && isValueList(value)) {
        state.resources[name] = "value";
        state.values[name] = value;
        setCount(name, value.length === 1 ? "1 value" : `${value.length} values`);
        continue;
      }
      state.resources[name] = Array.isArray(value) ? "collection" : "singular";
      if (!Array.isArray(value)) { state.singulars[name] = value; setCount(name, "object"); }
    }
    renderList();
    const collections = Object.keys(db).filter((name) => state.resources[name] === "collection");
    if (collections.length <= 3) {
      for (const name of collections) {
        state.streams.push(
          live(`/${encodeURIComponent(name)}?_limit=0`, (_, { total }) => setCount(name, String(total)), { onStatus }));
      }
    } else {
      // NB: a browser opens at most six connections to one server: past three collections, their counts
      // come from one /events stream of their changes instead of a stream each.
      const counts = Object.fromEntries(collections.map((name) => [name, db[name].length]));
      for (const name of collections) setCount(name, String(counts[name]));
      const source = new EventSource(`/events?diff=1&topics=${collections.map(encodeURIComponent).join(",")}`);
      state.streams.push(() => source.close());
      for (const name of collections) {
        source.addEventListener(name, (event) => {
          const data = JSON.parse(event.data);
          counts[name] = Array.isArray(data) ? data.length : counts[name] + data.inserted.length - data.deleted.length;
          setCount(name, String(counts[name]));
        });
      }
    }
    const singulars = Object.keys(state.singulars);
    if (singulars.length > 0) {
      const source = new EventSource(`/events?topics=${singulars.map(encodeURIComponent).join(",")}`);
      state.streams.push(() => source.close());
      for (const name of singulars) {
        source.addEventListener(name, (event) => {
          state.singulars[name] = JSON.parse(event.data);
          if (state.chosen === name) renderObject(state.singulars[name]);
        });
      }
    }
    const kept = state.chosen !== null && state.resources[state.chosen] ? state.chosen : null;
    const first = kept || Object.keys(db).find((name) => state.resources[name] === "collection") || Object.keys(db)[0];
    if (first) choose(first, kept ? state.page : 1);
    if (!first) {
      if (state.table) { state.table(); state.table = null; }
      state.chosen = null;
      title.textContent = "";
      view.textContent = "";
    }
  });
}

// The set of resources: its first event is the set /db was read with; each later one a save's new set.
let known = null;
const resourceList = new EventSource("/_livestate/resources");
resourceList.addEventListener("resources", (event) => {
  const now = JSON.stringify(JSON.parse(event.data));
  if (known !== null && now !== known) load();
  known = now;
});
load();
