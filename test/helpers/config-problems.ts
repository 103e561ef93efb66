// What loadConfig reports for an environment: the configuration tests' one way of asking.
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';

/** The problems loadConfig reports for `env`, or [] when it accepts it. */
export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.problems;
  }
}
