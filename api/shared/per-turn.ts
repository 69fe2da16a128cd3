/**
 * @module Work gathered over one turn of the event loop and done once at its end. Requests that
 * arrive together (the sockets one poll of the loop finds ready) are answered together: one
 * database ask or query for all of them, and their answers leave at once. Whatever the gathered
 * work reads, it reads after each of its callers began, so none sees the data older than when it
 * arrived.
 */

/**
 * Gathers the items passed during one turn of the event loop and hands them to `flush` together
 * at the turn's end (setImmediate), or at once when `max` are waiting.
 */
export function perTurn<T>(flush: (items: T[]) => void, max = Infinity): (item: T) => void {
  let waiting: T[] | undefined;
  const send = () => {
    const items = waiting;
    waiting = undefined;
    if (items) flush(items);
  };
  return (item) => {
    if (!waiting) {
      waiting = [];
      setImmediate(send);
    }
    waiting.push(item);
    if (waiting.length >= max) send();
  };
}
