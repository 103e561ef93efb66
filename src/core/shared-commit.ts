// The verbs whose transaction may share its commit with the writes that arrive together
// (Db.writeShared): small ones, a ticket's transitions, that hold no lock but their ticket's row
// for long and wait on nothing outside the store. The write path asks (src/write/); a verb is
// marked where it is defined. Decision 0079.
const SHARED = new WeakSet<object>();

/** Marks `verb` as one whose transaction may share its commit; answers it. */
export function sharesCommit<V extends object>(verb: V): V {
  SHARED.add(verb);
  return verb;
}

export const mayShareCommit = (verb: object): boolean => SHARED.has(verb);
