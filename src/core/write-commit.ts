// What every write's commit is given and answers (the write path, src/write/, runs them; a
// create's commit is the store's, Db.commitCreate): the Idempotency-Key to record with the answer,
// and whether the commit happened. In core because the Db port's create commit names them.

/** The Idempotency-Key a write records at the end of its commit, with what identifies the request and the answer's status. */
export type KeyToRecord = { key: string; fingerprint: string; status: number };

/** What a write's commit did: answered (the answer serialised as its key keeps it), or found its key taken and wrote nothing. */
export type Committed = { kind: 'done'; answer: string } | { kind: 'key-taken' };
