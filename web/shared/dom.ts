// The one DOM helper both pages' scripts use: their elements are written by the server
// (src/http/pages), so an id the script asks for is there.

/** The element with this id, which the server's HTML always holds. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}
