// The built-in page of a data file: the resources with live counts, and a chosen collection as a live
// table (rows appear, change and disappear as the data does). One EventSource on /events?diff=1.
"use strict";
const state = { resources: {}, chosen: null, idField: "id" };
const list = document.getElementById("resources");
const view = document.getElementById("view");
const title = document.getElementById("title");
const status = document.getElementById("status");

function keyOf(id) { return typeof id + ":" + String(id); }

function render() {
  list.textContent = "";
  for (const [name, resource] of Object.entries(state.resources)) {
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
    count.textContent = Array.isArray(resource.value) ? String(resource.value.length) : "object";
    button.append(label, count);
    button.addEventListener("click", () => { state.chosen = name; render(); });
    item.append(button);
    list.append(item);
  }
  renderChosen();
}

function renderChosen(changed) {
  const resource = state.resources[state.chosen];
  if (!resource) return;
  title.textContent = "/" + state.chosen;
  view.textContent = "";
  if (!Array.isArray(resource.value)) {
    const pre = document.createElement("pre");
    pre.textContent = JSON.stringify(resource.value, null, 2);
    view.append(pre);
    return;
  }
  const columns = [];
  for (const row of resource.value) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const column of columns) { const th = document.createElement("th"); th.textContent = column; head.append(th); }
  const body = table.createTBody();
  for (const row of resource.value) {
    const tr = body.insertRow();
    tr.dataset.id = String(row[state.idField]);
    if (changed && changed.has(keyOf(row[state.idField]))) tr.className = "changed";
    for (const column of columns) {
      const cell = tr.insertCell();
      const value = row[column];
      cell.textContent = value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);
    }
  }
  view.append(table);
}

function apply(name, data) {
  const resource = state.resources[name] || (state.resources[name] = { value: null });
  if (!Array.isArray(resource.value) || !("inserted" in data && "deleted" in data)) {
    resource.value = data;
    return null;
  }
  const changed = new Set();
  const deleted = new Set(data.deleted.map(keyOf));
  let rows = resource.value.filter((row) => !deleted.has(keyOf(row[state.idField])));
  const updated = new Map(data.updated.map((row) => [keyOf(row[state.idField]), row]));
  rows = rows.map((row) => updated.get(keyOf(row[state.idField])) || row);
  for (const row of data.updated) changed.add(keyOf(row[state.idField]));
  for (const row of data.inserted) { rows.push(row); changed.add(keyOf(row[state.idField])); }
  resource.value = rows;
  return changed;
}

function connect(names) {
  const source = new EventSource("/events?diff=1");
  source.onopen = () => { status.textContent = "Live"; };
  source.onerror = () => { status.textContent = source.readyState === EventSource.CLOSED ? "Offline" : "Reconnecting…"; };
  for (const name of names) {
    source.addEventListener(name, (event) => {
      const changed = apply(name, JSON.parse(event.data));
      if (name === state.chosen) renderChosen(changed); else render();
      const count = document.querySelector(`[data-count="${CSS.escape(name)}"]`);
      const value = state.resources[name].value;
      if (count) count.textContent = Array.isArray(value) ? String(value.length) : "object";
    });
  }
}

fetch("/db").then((response) => response.json()).then((db) => {
  for (const [name, value] of Object.entries(db)) state.resources[name] = { value };
  state.chosen = Object.keys(db).find((name) => Array.isArray(db[name])) || Object.keys(db)[0] || null;
  render();
  connect(Object.keys(db));
});
