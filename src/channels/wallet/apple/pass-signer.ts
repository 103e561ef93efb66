// Passes are signed off the event loop (decision 0087): signing one is about 30 ms of synchronous
// RSA, hashing and zipping, and 32 downloads at once on the event loop held every other tenant's
// requests for half a second. A few worker threads sign; the event loop only sends them pass.json
// and gets the .pkpass back. What waits for them is bounded per branch and per account, so one
// shop (or one account's shops) can hold only its share of the threads; over it a download is
// refused before anything is written (the route answers 429).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { PassSigningKeys } from './sign-pass.ts';
import type { SignAnswer, SignRequest } from './sign-worker.ts';

export type SigningLimits = {
  /** Signing threads; one core is left to the event loop. */
  threads: number;
  /** Signings in flight or waiting, per branch and per account. */
  perBranch: number;
  perAccount: number;
};

export const SIGNING_LIMITS: SigningLimits = {
  threads: Math.max(1, Math.min(4, availableParallelism() - 1)),
  perBranch: 8,
  perAccount: 16,
};

/** Whose signing this is: the pass's branch and its account. */
export type SigningOwner = { branchId: string; accountId: string };

/** A place taken in the branch's and the account's share; given back once, by sign or release. */
export type SigningPermit = { release(): void };

type Job = { request: SignRequest; resolve: (b: Buffer) => void; reject: (e: Error) => void };
type Thread = { worker: Worker; job: Job | null };

/** The thread's module: TypeScript in a checkout, compiled JavaScript in the package (decision 0069). */
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './sign-worker.ts' : './sign-worker.js', import.meta.url);

export class PassSigner {
  private readonly keys: PassSigningKeys;
  private readonly limits: SigningLimits;
  private readonly threads: Thread[] = [];
  private readonly waiting: Job[] = [];
  private readonly held = new Map<string, number>();
  private nextId = 0;
  private closed = false;

  constructor(keys: PassSigningKeys, limits: SigningLimits = SIGNING_LIMITS) {
    this.keys = { wwdr: keys.wwdr, cert: keys.cert, key: keys.key, keyPassphrase: keys.keyPassphrase };
    this.limits = limits;
  }

  /** A place to sign for this owner, or null when its branch or account already has its share in flight. */
  admit(owner: SigningOwner): SigningPermit | null {
    const keys = [`b:${owner.branchId}`, `a:${owner.accountId}`] as const;
    if ((this.held.get(keys[0]) ?? 0) >= this.limits.perBranch || (this.held.get(keys[1]) ?? 0) >= this.limits.perAccount) return null;
    for (const k of keys) this.held.set(k, (this.held.get(k) ?? 0) + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        for (const k of keys) {
          const n = (this.held.get(k) ?? 1) - 1;
          if (n === 0) this.held.delete(k);
          else this.held.set(k, n);
        }
      },
    };
  }

  /** The signed .pkpass of this pass.json, signed on a thread; the permit is given back when it is done. */
  async sign(permit: SigningPermit, passJson: string): Promise<Buffer> {
    try {
      if (this.closed) throw new Error('the pass signer is closed');
      return await new Promise<Buffer>((resolve, reject) => {
        this.waiting.push({ request: { id: this.nextId++, passJson }, resolve, reject });
        this.dispatch();
      });
    } finally {
      permit.release();
    }
  }

  /** Starts the first thread now, so the first customer's pass does not wait for it to load. */
  warm(): void {
    if (this.threads.length === 0 && !this.closed) this.spawn();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(new Error('the pass signer is closed'));
    await Promise.all(this.threads.splice(0).map((t) => t.worker.terminate()));
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      let thread = this.threads.find((t) => t.job === null);
      if (thread === undefined && this.threads.length < this.limits.threads) thread = this.spawn();
      if (thread === undefined) return;
      const job = this.waiting.shift()!;
      thread.job = job;
      thread.worker.postMessage(job.request);
    }
  }

  private spawn(): Thread {
    const thread: Thread = { worker: new Worker(WORKER_URL, { workerData: this.keys }), job: null };
    // An idle signing thread does not keep the process alive; close() ends them.
    thread.worker.unref();
    thread.worker.on('message', (answer: SignAnswer) => {
      const job = thread.job;
      thread.job = null;
      if (job !== null) {
        if ('pkpass' in answer) job.resolve(Buffer.from(answer.pkpass));
        else job.reject(new Error(`signing the pass failed: ${answer.error}`));
      }
      this.dispatch();
    });
    const lost = (err: Error): void => {
      const i = this.threads.indexOf(thread);
      if (i >= 0) this.threads.splice(i, 1);
      thread.job?.reject(err);
      thread.job = null;
      if (!this.closed) this.dispatch();
    };
    thread.worker.on('error', lost);
    thread.worker.on('exit', (code) => lost(new Error(`the signing thread exited (${code})`)));
    this.threads.push(thread);
    return thread;
  }
}
