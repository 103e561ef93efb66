// A signing thread (pass-signer.ts starts it): signs the pass.json it is sent with the keys it was
// started with, and hands the .pkpass back without copying it.
import { parentPort, workerData } from 'node:worker_threads';
import { signPass, type PassSigningKeys } from './sign-pass.ts';

export type SignRequest = { id: number; passJson: string };
export type SignAnswer = { id: number; pkpass: ArrayBuffer } | { id: number; error: string };

const keys = workerData as PassSigningKeys;
const port = parentPort;
port?.on('message', (m: SignRequest) => {
  try {
    const pass = signPass(keys, m.passJson);
    const pkpass = pass.buffer.slice(pass.byteOffset, pass.byteOffset + pass.byteLength) as ArrayBuffer;
    port.postMessage({ id: m.id, pkpass } satisfies SignAnswer, [pkpass]);
  } catch (err) {
    port.postMessage({ id: m.id, error: (err as Error).message } satisfies SignAnswer);
  }
});
