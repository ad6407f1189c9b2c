// LiveState's client of a live query (docs/api.md, "Live queries"): an ES module, no dependency, no build
// step. `live(url, onItems)` holds the result of a list URL (its filter, sort and page) as the server keeps
// it: it opens the query's stream (an EventSource, which asks for text/event-stream), takes the `result`,
// applies each `change`, and calls `onItems(items, info)` after each. A dropped stream is resumed by the
// browser with Last-Event-ID (the server sends the changes missed, or a new result); one the server
// refused (an HTTP error, such as a 503 while it restarts) is opened again `retry` ms later and starts from
// a new result. The function it returns closes the stream for good.
//
//   import { live } from "/livestate.js";
//   const close = live("/posts?userId=1&_sort=id", (posts, { total }) => render(posts, total));

/** The text an id compares by, as the server compares them: `1` and `"1"` are one id. */
export const idKey = (id) => String(id);

/**
 * The result after `change`: the deleted and the updated items taken out, then the inserted and the updated
 * ones put at their indices in the new result, lowest index first; so the items are those a fresh GET would
 * answer, in its order. `items` is left as it was.
 */
export function applyChange(items, change, idField = "id") {
  const gone = new Set(change.deleted.map(idKey));
  for (const item of change.updated) gone.add(idKey(item[idField]));
  const next = items.filter((item) => !gone.has(idKey(item[idField])));
  const placed = change.inserted
    .map((item, i) => [change.insertedAt[i], item])
    .concat(change.updated.map((item, i) => [change.updatedAt[i], item]))
    .sort((a, b) => a[0] - b[0]);
  for (const [index, item] of placed) next.splice(index, 0, item);
  return next;
}

/**
 * Follows the live query `url`. `onItems(items, { total, change, eventId })` runs after the first result and
 * after each change (`change` null for a result; `total` as `X-Total-Count` gives it). Options: `idField`
 * (the server's `--id`, "id" by default), `retry` (ms before a refused stream is opened again, 3000), and
 * `onStatus(status)`, told "live", "reconnecting", "offline" (refused, waiting to try again) or "closed".
 * Returns the function that closes it.
 */
export function live(url, onItems, { idField = "id", retry = 3000, onStatus = () => {} } = {}) {
  let items = null;
  let source = null;
  let timer = null;
  let closed = false;
  const open = () => {
    timer = null;
    source = new EventSource(url);
    source.addEventListener("open", () => onStatus("live"));
    source.addEventListener("result", (event) => {
      const result = JSON.parse(event.data);
      items = result.items;
      onItems(items, { total: result.total, change: null, eventId: event.lastEventId });
    });
    source.addEventListener("change", (event) => {
      if (items === null) return;
      const change = JSON.parse(event.data);
      items = applyChange(items, change, idField);
      onItems(items, { total: change.total, change, eventId: event.lastEventId });
    });
    source.addEventListener("error", () => {
      if (closed) return;
      if (source.readyState !== EventSource.CLOSED) return onStatus("reconnecting");
      // The browser gives up on an HTTP error answer; try again on our own.
      onStatus("offline");
      timer = setTimeout(open, retry);
    });
  };
  open();
  return () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    source.close();
    onStatus("closed");
  };
}
